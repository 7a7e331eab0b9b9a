package dev.parquetlookup.bench;

import org.apache.flink.api.common.functions.MapFunction;

/**
 * The {@code objectstore} suite's lookup keys, a deterministic function of the event's sequence
 * number (so every job and system sees the same keys in the same order per subtask): {@code
 * uniform} draws keys uniformly from 1..N; {@code skewed} sends 90% of lookups to a hot set of 1%
 * of the keys (spread over the whole file by {@link Scramble}, as hot customers are not neighbours
 * in key order) and 10% uniformly to all keys.
 *
 * <p>Example: {@code new LookupKeys(1_000_000, true).map(7L)} is one fixed key in 1..1,000,000.
 */
final class LookupKeys implements MapFunction<Long, Long> {

    private static final long serialVersionUID = 1L;
    private static final long SEED = 0x0B1EC7L;

    private final long rows;
    private final boolean skewed;
    private final long hot;
    private transient Scramble scramble;

    LookupKeys(long rows, boolean skewed) {
        this.rows = rows;
        this.skewed = skewed;
        this.hot = Math.max(1, rows / 100);
    }

    @Override
    public Long map(Long sequence) {
        return key(sequence);
    }

    long key(long sequence) {
        long r = mix(sequence ^ SEED);
        if (!skewed) {
            return Long.remainderUnsigned(r, rows) + 1;
        }
        long r2 = mix(r);
        if (Long.remainderUnsigned(r, 10) < 9) {
            if (scramble == null) {
                scramble = new Scramble(rows);
            }
            return scramble.apply(Long.remainderUnsigned(r2, hot)) + 1;
        }
        return Long.remainderUnsigned(r2, rows) + 1;
    }

    /** SplitMix64's finaliser: a fixed, well-mixed bijection of longs. */
    private static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
