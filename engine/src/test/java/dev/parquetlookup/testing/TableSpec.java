package dev.parquetlookup.testing;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Everything that decides one generated table, derived from a seed by {@link
 * TableGenerator#randomSpec(long)} (or built by hand for a targeted test).
 *
 * @param seed the seed rows and probes are drawn from
 * @param columns every column in file order (sort-key columns anywhere among them)
 * @param sortKey names of the sort-key columns, in sort order (1-3 of them)
 * @param options the Parquet layout
 * @param writer which writer produces the files
 * @param sortKeyInConfig whether the table is opened with an explicit sort key ({@code false} only
 *     when the writer records {@code sorting_columns})
 * @param distinctKeys how many distinct key tuples to draw
 * @param fileCount how many files the rows are split across
 * @param overlappingFiles rows dealt to files at random (overlapping key ranges) rather than cut
 *     into consecutive ranges
 * @param longKeyPrefix STRING/BINARY keys share a 70-byte prefix (truncated page-index bounds)
 * @param junkFiles a {@code _SUCCESS}, a hidden file and a {@code _temporary/} file beside the
 *     data, which the engine must skip
 * @param nullKeys nullable key columns hold some nulls (sorted first, as {@code LookupFileWriter}
 *     and SQL's {@code NULLS FIRST} do); a null never matches a lookup
 */
public record TableSpec(
        long seed,
        List<ColumnSpec> columns,
        List<String> sortKey,
        WriterOptions options,
        Writer writer,
        boolean sortKeyInConfig,
        int distinctKeys,
        int fileCount,
        boolean overlappingFiles,
        boolean longKeyPrefix,
        boolean junkFiles,
        boolean nullKeys) {

    /** The writer that produces the files. */
    public enum Writer {
        /** parquet-java's example writer: no {@code sorting_columns} in the footer. */
        PARQUET_JAVA,
        /** The project's {@code LookupFileWriter}: records {@code sorting_columns}. */
        LOOKUP_FILE_WRITER
    }

    public TableSpec {
        columns = List.copyOf(columns);
        sortKey = List.copyOf(sortKey);
    }

    public ColumnSpec column(String name) {
        return columns.get(columnIndex(name));
    }

    public int columnIndex(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + name);
    }

    /** The file positions of the sort-key columns, in sort order. */
    public int[] keyIndexes() {
        return sortKey.stream().mapToInt(this::columnIndex).toArray();
    }

    /** One paragraph for failure messages. */
    public String describe() {
        return "seed="
                + seed
                + " writer="
                + writer
                + " sortKey="
                + sortKey
                + (sortKeyInConfig ? " (given in config)" : " (from sorting_columns)")
                + " files="
                + fileCount
                + (overlappingFiles ? " overlapping" : " consecutive")
                + " distinctKeys="
                + distinctKeys
                + (longKeyPrefix ? " longKeyPrefix" : "")
                + (junkFiles ? " junkFiles" : "")
                + (nullKeys ? " nullKeys" : "")
                + "\n  options="
                + options
                + "\n  columns="
                + columns.stream().map(ColumnSpec::toString).collect(Collectors.joining("; "));
    }
}
