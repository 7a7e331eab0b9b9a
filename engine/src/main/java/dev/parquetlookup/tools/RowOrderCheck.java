package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.tools.FileLayout.SortVerdict;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code inspect}'s check of the order inside pages: statistics say only that row groups and pages
 * follow each other in key order, not that the rows inside them do (a writer may sort row groups
 * and shuffle each one's rows). The engine checks each key page in full on its first use and
 * refuses a page out of order; this reads every value of the leading key column once, through the
 * engine's own scan, and finds the first row out of order, so that "verified" means every lookup
 * will be served.
 */
final class RowOrderCheck {

    private RowOrderCheck() {}

    /**
     * The verdict on the rows of {@code file}: {@code verdict} when its leading key's values never
     * decrease in file order (NULLs skipped), else NOT_SORTED naming the first row out of order.
     *
     * @param sortKey the key in the file's own (stored) names
     * @param leadName the leading key's name as the user knows it (a table format's column name)
     * @param plainFile whether the file is a plain Parquet file, which {@code prepare} may rewrite
     *     (a Delta or Iceberg table's data file never is)
     */
    static SortVerdict check(
            FileId file,
            List<String> sortKey,
            String leadName,
            boolean plainFile,
            Map<String, String> hadoop,
            SortVerdict verdict)
            throws IOException {
        if (verdict.status() != SortVerdict.Status.SORTED || sortKey.isEmpty()) {
            return verdict;
        }
        String lead = sortKey.get(0);
        TableConfig config =
                TableConfig.builder(file.path())
                        .sortKey(sortKey)
                        .hadoopOptions(hadoop)
                        .metadataCache(new MetadataCache(16L << 20))
                        .build();
        Object[] previous = {null};
        long[] row = {0};
        String[] found = {null};
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of(lead), List.of(lead));
            table.scan(
                    plan,
                    values -> {
                        Object key = values[0];
                        if (found[0] == null && key != null) {
                            if (previous[0] != null && compare(key, previous[0]) < 0) {
                                found[0] =
                                        "row "
                                                + row[0]
                                                + " of "
                                                + file.fileName()
                                                + " has '"
                                                + leadName
                                                + "' = "
                                                + text(key)
                                                + " after "
                                                + text(previous[0])
                                                + ": its row groups and pages are in key order"
                                                + " (statistics), the rows inside them are not."
                                                + " The engine finds it at the first lookup into"
                                                + " such a page and serves the file through a key"
                                                + " index ('unsorted-files' = 'refuse' refuses"
                                                + " it)"
                                                + (plainFile
                                                        ? "; 'prepare --key "
                                                                + leadName
                                                                + "' rewrites it sorted, the"
                                                                + " fastest layout"
                                                                + LookupFileException
                                                                        .PLAIN_FILES_ONLY
                                                        : "");
                            }
                            previous[0] = key;
                        }
                        row[0]++;
                    });
        }
        return found[0] == null
                ? new SortVerdict(SortVerdict.Status.SORTED, SortVerdict.ROWS_CHECKED)
                : new SortVerdict(SortVerdict.Status.NOT_SORTED, "File " + file + ": " + found[0]);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compare(Object a, Object b) {
        if (a instanceof byte[] x) {
            return Arrays.compareUnsigned(x, (byte[]) b);
        }
        return ((Comparable) a).compareTo(b);
    }

    private static String text(@Nullable Object value) {
        return value instanceof byte[] bytes
                ? "'" + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + "'"
                : String.valueOf(value);
    }
}
