package dev.parquetlookup.io.hedge;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of {@link HedgedRangeReader}: GETs asked of a store's client, hedges sent (each one an
 * extra request), hedges answered first, late GETs answered while they waited for the budget, and
 * the last delay and median latency learnt. The readers the engine builds report to {@link
 * #shared()}, one per JVM (a TaskManager), like the shared metadata cache: the lookup functions'
 * metrics {@code storeGets}, {@code hedgesSent}, {@code hedgesWon}, {@code hedgesOverBudget} and
 * {@code hedgeDelayMicros} read it. They sum every table and job of the TaskManager and keep
 * counting across jobs (a job's share is the difference of two readings, taken while no other
 * table's reads run); a table with hedging off adds nothing. Thread-safe, striped adders.
 */
public final class HedgeStatistics {

    /** Counters of a reader of its own (tests); the engine's readers use {@link #shared()}. */
    public HedgeStatistics() {}

    private static final HedgeStatistics SHARED = new HedgeStatistics();

    private final LongAdder gets = new LongAdder();
    private final LongAdder hedgesSent = new LongAdder();
    private final LongAdder hedgesWon = new LongAdder();
    private final LongAdder overBudget = new LongAdder();
    private volatile long delayNanos;
    private volatile long medianNanos;

    /** The counters of every hedging reader of this JVM built from a Hadoop configuration. */
    public static HedgeStatistics shared() {
        return SHARED;
    }

    void get() {
        gets.increment();
    }

    void hedgeSent() {
        hedgesSent.increment();
    }

    void hedgeWon() {
        hedgesWon.increment();
    }

    void overBudget() {
        overBudget.increment();
    }

    /** Called per GET: writes (to fields every thread reads) only what changed. */
    void latencies(long delay, long median) {
        if (delayNanos != delay) {
            delayNanos = delay;
        }
        if (medianNanos != median) {
            medianNanos = median;
        }
    }

    /** GETs asked of the stores' clients (one per range), hedges not counted. */
    public long gets() {
        return gets.sum();
    }

    /**
     * Hedges: GETs sent again because their answer (or their first hedge's) was late, at most two
     * per GET: the extra requests.
     */
    public long hedgesSent() {
        return hedgesSent.sum();
    }

    /** Hedges whose answer came first (the other requests were then cancelled). */
    public long hedgesWon() {
        return hedgesWon.sum();
    }

    /**
     * Late GETs that ended (answered, failed or cancelled) while they waited for the budget of
     * extra requests to allow their hedge; a late GET hedged once the budget allowed is not
     * counted.
     */
    public long hedgesOverBudget() {
        return overBudget.sum();
    }

    /** The delay after which a GET was last hedged or would be, in microseconds. */
    public long delayMicros() {
        return delayNanos / 1000;
    }

    /**
     * The median latency of a store's recent GETs (those the delay was learnt from), in
     * microseconds, as last learnt; 0 before 64 GETs were answered.
     */
    public long medianMicros() {
        return medianNanos / 1000;
    }

    @Override
    public String toString() {
        return "HedgeStatistics{gets="
                + gets()
                + ", hedgesSent="
                + hedgesSent()
                + ", hedgesWon="
                + hedgesWon()
                + ", overBudget="
                + hedgesOverBudget()
                + ", delayMicros="
                + delayMicros()
                + ", medianMicros="
                + medianMicros()
                + '}';
    }
}
