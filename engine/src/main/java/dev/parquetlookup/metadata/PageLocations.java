package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileRange;

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
