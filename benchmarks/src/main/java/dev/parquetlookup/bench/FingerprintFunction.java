package dev.parquetlookup.bench;

import org.apache.flink.table.functions.ScalarFunction;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fingerprints the enriched rows where the job runs (the embedded cluster shares this JVM and class
 * loader), order-independently, and notes when the first one came; the {@code flink} and {@code
 * paimon} suites' jobs call it as {@code fingerprinted(e.id, d.v)}.
 */
public final class FingerprintFunction extends ScalarFunction {
    static final LongAdder ROWS = new LongAdder();
    static final LongAdder SUM = new LongAdder();
    static final AtomicLong FIRST = new AtomicLong();

    /** The process's CPU time when the first row came ({@link JobEnd#processCpuNanos()}). */
    static final AtomicLong FIRST_CPU = new AtomicLong();

    static void reset() {
        ROWS.reset();
        SUM.reset();
        FIRST.set(0);
        FIRST_CPU.set(0);
    }

    public Long eval(Long id, String value) {
        if (FIRST.get() == 0) {
            // Read first: a compare-and-set on every row would bounce the line between cores.
            long cpu = JobEnd.processCpuNanos();
            if (FIRST.compareAndSet(0, System.nanoTime())) {
                FIRST_CPU.set(cpu);
            }
        }
        long f = Fingerprint.answer(0, id, value);
        ROWS.increment();
        SUM.add(f);
        return f;
    }

    @Override
    public boolean isDeterministic() {
        return false;
    }
}
