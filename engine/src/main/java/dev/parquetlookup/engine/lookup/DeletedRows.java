package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.metadata.RowGroupInfo;

import java.util.Arrays;
import java.util.List;

/**
 * The rows of one data file that a table version deleted without rewriting the file (a Delta
 * deletion vector, Iceberg position deletes), as sorted positions in the file (0 = its first row,
 * counting across row groups). A {@link SnapshotSource} supplies them with each file of a listing;
 * the engine drops those rows from the row spans a lookup found, before any value is read, so a
 * deleted row is never returned.
 *
 * <p>Example: {@code DeletedRows.of(new long[] {7, 3})} deletes the file's 4th and 8th rows; a span
 * of rows {@code [0, 10)} becomes {@code [0, 3), [4, 7), [8, 10)}.
 */
public final class DeletedRows {

    /** No row deleted. */
    public static final DeletedRows NONE = new DeletedRows(new long[0]);

    private final long[] positions;

    private DeletedRows(long[] positions) {
        this.positions = positions;
    }

    /** The rows at {@code positions} (any order, duplicates allowed; the array is copied). */
    public static DeletedRows of(long[] positions) {
        if (positions.length == 0) {
            return NONE;
        }
        long[] sorted = positions.clone();
        Arrays.sort(sorted);
        int n = 1;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] != sorted[n - 1]) {
                sorted[n++] = sorted[i];
            }
        }
        if (sorted[0] < 0) {
            throw new IllegalArgumentException("negative row position " + sorted[0]);
        }
        return new DeletedRows(n == sorted.length ? sorted : Arrays.copyOf(sorted, n));
    }

    /** How many rows are deleted. */
    public int count() {
        return positions.length;
    }

    public boolean isEmpty() {
        return positions.length == 0;
    }

    /** Whether the row at {@code position} (in the file) is deleted. */
    public boolean contains(long position) {
        return Arrays.binarySearch(positions, position) >= 0;
    }

    /**
     * Replaces the spans of {@code spans} from index {@code from} on by the same rows without the
     * deleted ones (a span may split into several, or vanish). Spans are row-group relative; {@code
     * rowGroups} give each row group's first row in the file.
     */
    void removeFrom(List<SortedFile.RowSpan> spans, int from, List<RowGroupInfo> rowGroups) {
        if (positions.length == 0 || spans.size() == from) {
            return;
        }
        List<SortedFile.RowSpan> found = List.copyOf(spans.subList(from, spans.size()));
        spans.subList(from, spans.size()).clear();
        for (SortedFile.RowSpan span : found) {
            long base = rowGroups.get(span.rowGroup()).firstRow();
            long start = span.from();
            // First deleted position at or after the span's first row.
            int i = Arrays.binarySearch(positions, base + start);
            if (i < 0) {
                i = -i - 1;
            }
            for (; i < positions.length && positions[i] < base + span.to(); i++) {
                long deleted = positions[i] - base;
                if (deleted > start) {
                    spans.add(new SortedFile.RowSpan(span.rowGroup(), start, deleted));
                }
                start = deleted + 1;
            }
            if (start < span.to()) {
                spans.add(new SortedFile.RowSpan(span.rowGroup(), start, span.to()));
            }
        }
    }

    @Override
    public String toString() {
        return positions.length + " deleted row(s)";
    }
}
