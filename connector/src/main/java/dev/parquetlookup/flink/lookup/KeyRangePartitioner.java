package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.flink.shim.LookupShuffle;

import org.apache.flink.table.data.RowData;

import java.util.List;

/**
 * Routes lookup keys to subtasks by key range ({@code 'shuffle' = 'true'} in the LOOKUP hint):
 * subtask {@code i} of {@code n} gets the keys between the {@code i/n} and {@code (i+1)/n}
 * quantiles of the files' rows, so it reads only about {@code 1/n} of the key and value pages and
 * its page and row caches hold a disjoint slice of the table.
 *
 * <p>The quantiles are a sample of the files' keys (engine key columns, in sort order) taken at
 * planning. Keys with a null component match nothing and go to subtask 0. Example: with samples
 * {@code [10, 20, 30]} and 2 subtasks, key 5 goes to 0 (rank 0), key 25 to 1 (rank 2: {@code 2 * 2
 * / 4 = 1}).
 */
public final class KeyRangePartitioner implements LookupShuffle.Partitioner {

    private static final long serialVersionUID = 1L;

    private final KeyNormalizer normalizer;

    /** Sortable keys ({@link KeyOrder}), ascending. */
    private final Object[][] samples;

    public KeyRangePartitioner(KeyNormalizer normalizer, List<Object[]> sortableSamples) {
        this.normalizer = normalizer;
        this.samples = sortableSamples.toArray(new Object[0][]);
    }

    @Override
    public int partition(RowData joinKeys, int numPartitions) {
        Object[] key = normalizer.normalize(joinKeys);
        if (key == null || numPartitions <= 1) {
            return 0;
        }
        int rank = rank(KeyOrder.sortable(key));
        return (int) ((long) rank * numPartitions / (samples.length + 1));
    }

    /** How many samples are strictly below {@code key}. */
    int rank(Object[] key) {
        int lo = 0;
        int hi = samples.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (KeyOrder.compare(samples[mid], key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public boolean isDeterministic() {
        return true;
    }
}
