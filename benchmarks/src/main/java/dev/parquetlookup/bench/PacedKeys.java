package dev.parquetlookup.bench;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@code objectstore} tail case's paced key stream: the uniform keys of {@link LookupKeys} (the
 * same function of the event's sequence number), each subtask emitting its share of a total rate
 * ({@code eventsPerSecond} / parallelism), one event per slot. The subtask's thread parks until its
 * next slot ({@link LockSupport#parkNanos}: no spinning on the shared cores). A subtask held back
 * (its output waits behind a slow lookup) emits the events of the slots it missed at once, as a
 * stream with a backlog would (a Kafka topic written at that rate), so the job keeps the rate on
 * average exactly when it keeps up.
 *
 * <p>Example: {@code source.map(new PacedKeys(1_000_000, 400))} at parallelism 2 emits 200 keys a
 * second per subtask, the keys {@code new LookupKeys(1_000_000, false)} would give.
 */
final class PacedKeys extends RichMapFunction<Long, Long> {

    private static final long serialVersionUID = 1L;

    private final LookupKeys keys;
    private final double eventsPerSecond;
    private transient long periodNanos;

    /** The slot of the next event ({@code nanoTime}); 0 before the first one. */
    private transient long next;

    /**
     * @param rows the keys are 1..{@code rows}
     * @param eventsPerSecond the total rate over every subtask, above 0
     */
    PacedKeys(long rows, double eventsPerSecond) {
        if (!(eventsPerSecond > 0)) {
            throw new IllegalArgumentException("a paced rate must be > 0, got " + eventsPerSecond);
        }
        this.keys = new LookupKeys(rows, false);
        this.eventsPerSecond = eventsPerSecond;
    }

    @Override
    public void open(OpenContext context) {
        int subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
        periodNanos = Math.max(1, Math.round(1e9 * subtasks / eventsPerSecond));
        next = 0;
    }

    @Override
    public Long map(Long sequence) {
        long now = System.nanoTime();
        if (next == 0) {
            next = now;
        }
        // A cancelled task's thread is interrupted: it then stops waiting for slots.
        for (long wait = next - now;
                wait > 0 && !Thread.currentThread().isInterrupted();
                wait = next - System.nanoTime()) {
            LockSupport.parkNanos(wait);
        }
        next += periodNanos;
        return keys.key(sequence);
    }
}
