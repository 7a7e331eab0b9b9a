package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import java.util.List;
import java.util.Optional;

/**
 * The one check that a file is sorted by its leading key column, from metadata alone: row-group
 * bounds must not decrease, and within each row group the page bounds (own or synthesized page
 * index) must not decrease. The metadata reader throws its verdict; {@code inspect} reports it.
 *
 * <p>Example:
 *
 * <pre>{@code
 * FileMetadata meta = MetadataReader.readUnverified(source, List.of("id"), PageIndexOptions.OWN);
 * Optional<SortOrderCheck.Violation> v = SortOrderCheck.firstViolation(meta);
 * v.ifPresent(x -> System.out.println(x.message())); // "row group 2 holds keys up to 90 but ..."
 * }</pre>
 *
 * <p>Pages are checked only by their bounds here; the order of keys inside a page is checked when
 * the engine decodes the page.
 */
public final class SortOrderCheck {

    private SortOrderCheck() {}

    /**
     * Two neighbouring row groups or pages out of order.
     *
     * @param file the file
     * @param column the leading sort-key column
     * @param rowGroup the row group of the later entry (for a row-group violation, the later row
     *     group)
     * @param page the later page within {@code rowGroup}, or -1 for a violation between row groups
     * @param earlierEntry the earlier row group (row-group violation) or page (page violation)
     * @param earlierMax the largest key of the earlier entry
     * @param laterMin the smallest key of the later entry
     * @param detail the two entries and values in words, for messages
     */
    public record Violation(
            FileId file,
            String column,
            int rowGroup,
            int page,
            int earlierEntry,
            Object earlierMax,
            Object laterMin,
            String detail) {

        /** The error text: file, column, the two entries and values, and the fix. */
        public String message() {
            return "File "
                    + file
                    + " is not sorted by '"
                    + column
                    + "': "
                    + detail
                    + "."
                    + LookupFileException.Unsorted.advice(column);
        }

        /** The exception the metadata reader throws for this violation. */
        public LookupFileException.Unsorted toException() {
            return new LookupFileException.Unsorted(message());
        }
    }

    /** The first violation of ascending order in {@code meta}, if any. */
    public static Optional<Violation> firstViolation(FileMetadata meta) {
        return firstViolation(
                meta.file(), meta.keyNames().get(0), meta.rowGroupKeys(), meta.rowGroups());
    }

    /**
     * Throws the first violation in {@code meta} as a {@link LookupFileException}: row groups, and
     * pages of a page index read at open (a lazily read one is checked as each row group's is
     * read).
     */
    public static void verify(FileMetadata meta) {
        // A lazily read page index is checked row group by row group when it is read.
        Optional<Violation> v =
                firstViolation(
                        meta.file(),
                        meta.keyNames().get(0),
                        meta.rowGroupKeys(),
                        meta.lazyPageIndex() != null ? List.of() : meta.rowGroups());
        if (v.isPresent()) {
            throw v.get().toException();
        }
    }

    /**
     * The first violation among row-group bounds {@code rowGroupKeys} and the leading key's page
     * bounds of {@code rowGroups}.
     */
    public static Optional<Violation> firstViolation(
            FileId file, String column, KeyRanges rowGroupKeys, List<RowGroupInfo> rowGroups) {
        int bad = rowGroupKeys.firstUnsorted();
        if (bad >= 0) {
            KeyType type = rowGroupKeys.type();
            int earlier = rowGroupKeys.entry(bad - 1);
            int later = rowGroupKeys.entry(bad);
            return Optional.of(
                    new Violation(
                            file,
                            column,
                            later,
                            -1,
                            earlier,
                            rowGroupKeys.max(bad - 1),
                            rowGroupKeys.min(bad),
                            "row group "
                                    + earlier
                                    + " holds keys up to "
                                    + type.format(rowGroupKeys.max(bad - 1))
                                    + " but row group "
                                    + later
                                    + " starts at "
                                    + type.format(rowGroupKeys.min(bad))));
        }
        for (RowGroupInfo rg : rowGroups) {
            Optional<Violation> v = pageViolation(file, column, rg);
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    /**
     * The first pair of pages of {@code rg} out of order by the leading key's page bounds, if any
     * (none without a page index). A lazily read page index is checked this way when it is first
     * read, so disorder between pages is an error at the first lookup into the row group.
     */
    public static Optional<Violation> pageViolation(FileId file, String column, RowGroupInfo rg) {
        KeyRanges pages = rg.keyPages()[0];
        if (pages == null) {
            return Optional.empty();
        }
        int p = pages.firstUnsorted();
        if (p >= 0) {
            KeyType type = pages.type();
            return Optional.of(
                    new Violation(
                            file,
                            column,
                            rg.ordinal(),
                            pages.entry(p),
                            pages.entry(p - 1),
                            pages.max(p - 1),
                            pages.min(p),
                            "in row group "
                                    + rg.ordinal()
                                    + ", page "
                                    + pages.entry(p - 1)
                                    + " holds keys up to "
                                    + type.format(pages.max(p - 1))
                                    + " but page "
                                    + pages.entry(p)
                                    + " starts at "
                                    + type.format(pages.min(p))));
        }
        return Optional.empty();
    }
}
