package dev.parquetlookup.metadata;

import javax.annotation.Nullable;

/**
 * One row group: its rows, its column chunks, and the page-level key bounds of the sort-key
 * columns.
 *
 * @param ordinal position of the row group in the file
 * @param firstRow index of its first row within the file
 * @param rowCount number of rows
 * @param columns per leaf column (schema order), the chunk
 * @param keyPages per sort-key column, page bounds from the ColumnIndex, or {@code null} entries
 *     when the file has no ColumnIndex for it
 */
public record RowGroupInfo(
        int ordinal,
        long firstRow,
        long rowCount,
        ColumnChunkInfo[] columns,
        @Nullable KeyRanges[] keyPages) {

    /** Whether the leading key column has a page index here. */
    public boolean hasPageIndex(int keyLeaf) {
        return keyPages[0] != null && columns[keyLeaf].pages() != null;
    }

    long retainedBytes() {
        long bytes = 64L + 8L * columns.length;
        for (ColumnChunkInfo c : columns) {
            bytes += c.retainedBytes();
        }
        for (KeyRanges k : keyPages) {
            bytes += k == null ? 0 : k.retainedBytes();
        }
        return bytes;
    }
}
