package dev.parquetlookup.io.hedge;

import java.util.Arrays;

/**
 * Owns the latencies of a store's recent requests (the last {@value #WINDOW} answered ones) and the
 * delay learnt from them after which {@link HedgedRangeReader} sends a request again: a high
 * percentile of the window, but at most a multiple of its median, kept between a floor and a
 * ceiling. Until {@value #MIN_SAMPLES} requests were answered it is the ceiling.
 *
 * <p>Why the multiple of the median: on a loaded client the high percentiles are the client's own
 * queueing (3-9x the median measured), and a delay that long puts every held request's lookup at
 * several times the median; the budget of {@link HedgedRangeReader} bounds the extra requests
 * whatever the delay.
 *
 * <p>Examples, with the 99th percentile, 2x the median, a floor of 20 ms and a ceiling of 1 s: a
 * store answering 990 of the last 1,024 requests within 31 ms (median 28 ms) and the rest within 40
 * ms gives about 31 ms (the percentile); one with a median of 40 ms and a 99th percentile of 300 ms
 * gives 80 ms (the multiple); one answering everything within 2 ms gives 20 ms (the floor).
 *
 * <p>Thread-safe: {@link #record} takes a short lock (one array store; every {@value #RECOMPUTE}
 * samples a sort of the window's copy, about 20 us); {@link #delayNanos} reads a volatile.
 */
final class RecentLatencies {

    static final int WINDOW = 1024;
    static final int RECOMPUTE = 64;
    static final int MIN_SAMPLES = 64;

    private final double percentile;
    private final double medianMultiple;
    private final long floorNanos;
    private final long ceilingNanos;
    private final long[] ring = new long[WINDOW];
    private long samples; // guarded by this
    private volatile long delayNanos;
    private volatile long medianNanos;

    /**
     * @param percentile in (0, 100], e.g. 99
     * @param medianMultiple at least 1: the delay is at most this times the median
     * @param floorNanos the smallest delay
     * @param ceilingNanos the largest delay, and the delay until enough samples were seen
     */
    RecentLatencies(double percentile, double medianMultiple, long floorNanos, long ceilingNanos) {
        if (!(percentile > 0 && percentile <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], got " + percentile);
        }
        if (!(medianMultiple >= 1)) {
            throw new IllegalArgumentException(
                    "median multiple must be at least 1, got " + medianMultiple);
        }
        if (floorNanos < 0 || ceilingNanos < floorNanos) {
            throw new IllegalArgumentException(
                    "hedge delays must satisfy 0 <= floor ("
                            + floorNanos
                            + " ns) <= ceiling ("
                            + ceilingNanos
                            + " ns)");
        }
        this.percentile = percentile;
        this.medianMultiple = medianMultiple;
        this.floorNanos = floorNanos;
        this.ceilingNanos = ceilingNanos;
        this.delayNanos = ceilingNanos;
    }

    /** Records the latency of one answered request. */
    void record(long nanos) {
        long[] copy = null;
        synchronized (this) {
            ring[(int) (samples % WINDOW)] = nanos;
            samples++;
            if (samples >= MIN_SAMPLES && samples % RECOMPUTE == 0) {
                copy = Arrays.copyOf(ring, (int) Math.min(samples, WINDOW));
            }
        }
        if (copy != null) {
            Arrays.sort(copy);
            int index = (int) Math.ceil(percentile / 100.0 * copy.length) - 1;
            long p = copy[Math.max(0, Math.min(copy.length - 1, index))];
            long median = copy[copy.length / 2];
            long capped = (long) Math.min(p, medianMultiple * median);
            delayNanos = Math.max(floorNanos, Math.min(ceilingNanos, capped));
            medianNanos = median;
        }
    }

    /** The delay after which a request not answered yet is sent again. */
    long delayNanos() {
        return delayNanos;
    }

    /** The median of the window when the delay was last learnt; 0 before. */
    long medianNanos() {
        return medianNanos;
    }

    /** Requests recorded so far. */
    synchronized long samples() {
        return samples;
    }
}
