package dev.parquetlookup.tools;

import dev.parquetlookup.tools.LayoutReport.ColumnStats;
import dev.parquetlookup.writer.WriterOptions;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The cost model of {@code inspect}: what one lookup reads once metadata is cached (per column, one
 * page with a page index or the whole chunk without, plus the dictionary page when the column has
 * one), and the changes to the layout that would make lookups cheaper.
 *
 * <p>Example: key column {@code k} with 256-row pages of 2 KiB and value column {@code v} with
 * pages of 9 KiB and no dictionary: about 11 KiB in 2 reads.
 *
 * @param parts one entry per column read, e.g. {@code "k (key) 2.0 KiB page"}
 */
record LookupCost(double bytes, long reads, List<String> parts) {

    /** Pages above this many rows make every lookup decode much more than it returns. */
    static final int MAX_GOOD_PAGE_ROWS = 4_096;

    /** Dictionary pages above this size are a costly extra read per lookup. */
    static final long LARGE_DICTIONARY = 64 << 10;

    /**
     * The predicted cost of one lookup returning {@code projected}.
     *
     * @param keyColumn the leading sort-key column, or null when unknown
     */
    static LookupCost predict(LayoutReport report, String keyColumn, List<String> projected) {
        List<String> read = new ArrayList<>();
        String keyName =
                keyColumn != null && report.columns.containsKey(keyColumn) ? keyColumn : null;
        if (keyName != null) {
            read.add(keyName);
        }
        for (String c : projected) {
            if (!c.equals(keyName)) {
                read.add(c);
            }
        }
        long reads = 0;
        double bytes = 0;
        List<String> parts = new ArrayList<>();
        for (String name : read) {
            ColumnStats c = report.columns.get(name);
            boolean indexed = c.indexed() && c.pages > 0;
            double part =
                    indexed
                            ? (double) c.pageBytesTotal / c.pages
                            : c.chunks == 0 ? 0 : (double) c.compressed / c.chunks;
            if (c.chunksWithDictionary > 0) {
                part += c.averageDictionaryBytes();
                reads++;
            }
            reads++;
            bytes += part;
            parts.add(
                    name
                            + (name.equals(keyName) ? " (key) " : " ")
                            + Formats.bytes(part)
                            + (indexed ? " page" : " chunk")
                            + (c.chunksWithDictionary > 0 ? " + dictionary" : ""));
        }
        return new LookupCost(bytes, reads, List.copyOf(parts));
    }

    /** Advice to a table format's user instead of {@code prepare}, which reads plain files only. */
    static final String TABLE_WRITER =
            "Set this in the writer that maintains the table (a Delta or Iceberg table's data"
                    + " files are never rewritten outside its log).";

    /**
     * What to change, most important first; empty when the layout suits point lookups.
     *
     * @param plainFiles whether the files are plain Parquet files; a table format's advice names
     *     its writer, never {@code prepare}
     */
    static List<String> recommendations(LayoutReport report, String keyColumn, boolean plainFiles) {
        List<String> advice = recommendations(report, keyColumn);
        if (plainFiles) {
            return advice;
        }
        return advice.stream()
                .map(
                        a ->
                                a.replace(FOR_PLAIN_FILES + report.sortKeyFlags() + SORTED, "")
                                        .replace(ODD_FILES, ODD_TABLE_FILES)
                                        .replaceAll(
                                                " ?(?:[Rr]un prepare[^.]*|rewrite them together"
                                                        + " with prepare|prepare leaves key"
                                                        + " columns uncompressed)\\.",
                                                " " + TABLE_WRITER))
                .toList();
    }

    private static final String FOR_PLAIN_FILES =
            " For plain Parquet files you own (never a Delta or Iceberg table's data files),"
                    + " prepare --key ";
    private static final String SORTED = " rewrites them sorted, the fastest layout.";

    /** What to do with files whose columns disagree: plain files, then a table format's. */
    private static final String ODD_FILES = " rewrite the odd files, or move them out of the path.";

    private static final String ODD_TABLE_FILES =
            " the writer that maintains the table must rewrite the odd files (a Delta or Iceberg"
                    + " table's data files are never rewritten or removed outside its log).";

    private static List<String> recommendations(LayoutReport report, String keyColumn) {
        LinkedHashSet<String> out = new LinkedHashSet<>();
        tableAdvice(report, out);
        pageAdvice(report, out);
        encodingAdvice(report, out);
        if (keyColumn != null && report.columns.containsKey(keyColumn)) {
            keyColumnAdvice(report, keyColumn, out);
        }
        if (report.maxRowGroupRows > 4L * 1024 * 1024) {
            out.add(
                    "Row groups hold up to "
                            + Formats.count(report.maxRowGroupRows)
                            + " rows; about 131,072 keep the footer small and statistics useful."
                            + " Run prepare.");
        }
        return List.copyOf(out);
    }

    /** Whether the files can be one sorted table: schemas, declared sort keys, overlaps. */
    private static void tableAdvice(LayoutReport report, LinkedHashSet<String> out) {
        if (!report.schemaDifferences.isEmpty()) {
            out.add(
                    "The files disagree on "
                            + report.schemaDifferences.size()
                            + " column(s) (see Schema above), so they cannot serve as one table:"
                            + ODD_FILES);
        }
        if (!report.sortKeysAgree()) {
            out.add("The files declare different sort keys: rewrite them together with prepare.");
        } else if (report.sortKey.isEmpty()) {
            out.add(
                    "The sort order is not declared: lookups need the key column named ('sort-key'"
                            + " in SQL, --key on the command line). Run prepare --key <column> to"
                            + " sort and declare it, or give inspect --key <column> to check the"
                            + " current order.");
        } else if (report.anyNotSorted()) {
            out.add(
                    "The files are not sorted by '"
                            + report.sortKey.get(0)
                            + "': the engine serves them through a key index it builds per file"
                            + " ('unsorted-files' = 'index', the default; 'refuse' refuses them)."
                            + FOR_PLAIN_FILES
                            + report.sortKeyFlags()
                            + SORTED);
        }
        int overlaps = report.overlappingFilePairs();
        if (overlaps > 0) {
            out.add(
                    overlaps
                            + " pair(s) of files overlap in key range, so some lookups read several"
                            + " files (and return the rows of all of them): run prepare to write"
                            + " files with disjoint ranges.");
        }
    }

    /** Page sizes and the page index: how much one lookup decodes and reads. */
    private static void pageAdvice(LayoutReport report, LinkedHashSet<String> out) {
        for (ColumnStats c : report.columns.values()) {
            if (c.pages > 0 && c.pageRowsMax > MAX_GOOD_PAGE_ROWS) {
                out.add(
                        "Pages of '"
                                + c.name
                                + "' hold up to "
                                + Formats.count(c.pageRowsMax)
                                + " rows: each lookup decodes up to that many values. Run prepare"
                                + " ("
                                + WriterOptions.DEFAULT_PAGE_ROWS
                                + " rows per page).");
                break;
            }
        }
        if (report.noPageIndex()) {
            out.add(
                    "No page index: lookups read whole column chunks (about "
                            + Formats.bytes(averageChunk(report))
                            + " per column) instead of one page. Run prepare.");
        } else if (!report.allPageIndexed()) {
            out.add(
                    "Some column chunks have no page index: lookups there read whole chunks. Run"
                            + " prepare.");
        }
    }

    /** Large dictionaries and slow codecs on the columns lookups return. */
    private static void encodingAdvice(LayoutReport report, LinkedHashSet<String> out) {
        List<String> slowCodec = new ArrayList<>();
        for (ColumnStats c : report.columns.values()) {
            if (c.chunksWithDictionary > 0 && c.averageDictionaryBytes() > LARGE_DICTIONARY) {
                out.add(
                        "Column '"
                                + c.name
                                + "' is dictionary encoded with "
                                + Formats.bytes(c.averageDictionaryBytes())
                                + " dictionary pages, read with every lookup that returns it."
                                + " Run prepare (dictionary off).");
            }
            if (c.codecs.contains("GZIP") || c.codecs.contains("BROTLI")) {
                slowCodec.add(c.name);
            }
        }
        if (!slowCodec.isEmpty()) {
            out.add(
                    "Column(s) "
                            + String.join(", ", slowCodec)
                            + " are compressed with GZIP or BROTLI, slow to decompress per"
                            + " lookup: run prepare --codec LZ4_RAW (or ZSTD for size).");
        }
    }

    /** The key column: its ColumnIndex and its compression. */
    private static void keyColumnAdvice(
            LayoutReport report, String keyColumn, LinkedHashSet<String> out) {
        ColumnStats k = report.columns.get(keyColumn);
        if (report.rowGroupsWithoutKeyIndex() > 0 && k.indexed()) {
            out.add(
                    "Key column '"
                            + keyColumn
                            + "' has no ColumnIndex (page min/max) in some row groups: the"
                            + " key page cannot be found directly. Run prepare.");
        }
        List<String> keyCodecs =
                k.codecs.stream().filter(codec -> !codec.equals("UNCOMPRESSED")).toList();
        if (!keyCodecs.isEmpty()) {
            out.add(
                    "Key column '"
                            + keyColumn
                            + "' is compressed ("
                            + String.join(",", keyCodecs)
                            + "): every lookup decompresses a key page, which for sorted keys"
                            + " saves little space (about 2:1) and costs as much as the value"
                            + " page's decompression. prepare leaves key columns uncompressed.");
        }
    }

    private static double averageChunk(LayoutReport report) {
        long chunks = 0;
        long bytes = 0;
        for (ColumnStats c : report.columns.values()) {
            chunks += c.chunks;
            bytes += c.compressed;
        }
        return chunks == 0 ? 0 : (double) bytes / chunks;
    }
}
