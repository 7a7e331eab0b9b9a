package dev.parquetlookup.metadata;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

/**
 * One row group: its rows, its column chunks ({@link ColumnChunkInfo}, with their pages' locations
 * {@link PageLocations}), and the page-level key bounds of the sort-key columns.
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

    /**
     * What a lookup needs to know about one column chunk of one row group.
     *
     * @param codec the compression codec of its pages
     * @param startOffset offset of its first page (the dictionary page when there is one)
     * @param firstDataPageOffset offset of its first data page
     * @param totalCompressedSize bytes from {@code startOffset} to its end
     * @param totalUncompressedSize its pages' bytes uncompressed (headers included), as the footer
     *     says
     * @param hasDictionaryPage whether a dictionary page precedes the data pages
     * @param pages page locations from the OffsetIndex, or {@code null} without a page index
     */
    public record ColumnChunkInfo(
            CompressionCodecName codec,
            long startOffset,
            long firstDataPageOffset,
            long totalCompressedSize,
            long totalUncompressedSize,
            boolean hasDictionaryPage,
            @Nullable PageLocations pages) {

        long retainedBytes() {
            return 48L + (pages == null ? 0 : pages.retainedBytes());
        }
    }

    /**
     * Where the data pages of one column chunk lie, from its OffsetIndex, as primitive arrays.
     *
     * <p>{@code firstRows} are relative to the row group. Example: pages of 1,024 rows have {@code
     * firstRows = {0, 1024, 2048, ...}}; row 1500 is in page {@code pageOfRow(1500) == 1}.
     *
     * @param offsets file offset of each page (its header included)
     * @param sizes compressed size of each page, header included
     * @param firstRows index of each page's first row within the row group
     */
    public record PageLocations(long[] offsets, int[] sizes, long[] firstRows) {

        public int pageCount() {
            return offsets.length;
        }

        /** The byte range of page {@code page}. */
        public FileRange range(int page) {
            return new FileRange(offsets[page], sizes[page]);
        }

        /** The page holding row {@code row} (row-group relative). */
        public int pageOfRow(long row) {
            int lo = 0;
            int hi = firstRows.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (firstRows[mid] <= row) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        /** First row after page {@code page}, given the row group's row count. */
        public long endRow(int page, long rowGroupRows) {
            return page + 1 < firstRows.length ? firstRows[page + 1] : rowGroupRows;
        }

        long retainedBytes() {
            return 64L + 20L * offsets.length;
        }
    }
}
