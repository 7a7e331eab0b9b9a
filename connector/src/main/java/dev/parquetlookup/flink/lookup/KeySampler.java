package dev.parquetlookup.flink.lookup;

import java.util.ArrayList;
import java.util.List;

/**
 * Keeps about {@code target} keys evenly spaced over a stream of keys arriving in sorted order, in
 * bounded memory: it keeps every {@code stride}-th key and doubles the stride (dropping every other
 * kept key) whenever {@code 2 * target} are held.
 *
 * <p>Example: offering the keys 0..9999 to {@code new KeySampler(100)} keeps keys 64 apart (0, 64,
 * 128, ...), and {@link #samples()} returns 100 of them evenly spread, the quantiles a range
 * partitioner needs.
 */
public final class KeySampler {

    private final int target;
    private final List<Object[]> kept = new ArrayList<>();
    private long stride = 1;
    private long seen;

    public KeySampler(int target) {
        if (target < 1) {
            throw new IllegalArgumentException("target must be positive: " + target);
        }
        this.target = target;
    }

    /** Offers the next key. */
    public void offer(Object[] key) {
        if (seen++ % stride != 0) {
            return;
        }
        kept.add(key);
        if (kept.size() >= 2 * target) {
            List<Object[]> halved = new ArrayList<>(target);
            for (int i = 0; i < kept.size(); i += 2) {
                halved.add(kept.get(i));
            }
            kept.clear();
            kept.addAll(halved);
            stride *= 2;
        }
    }

    /** Keys offered so far. */
    public long count() {
        return seen;
    }

    /** At most {@code target} of the kept keys, evenly spread, in arrival order. */
    public List<Object[]> samples() {
        if (kept.size() <= target) {
            return new ArrayList<>(kept);
        }
        List<Object[]> result = new ArrayList<>(target);
        for (int i = 0; i < target; i++) {
            result.add(kept.get((int) ((long) i * kept.size() / target)));
        }
        return result;
    }
}
