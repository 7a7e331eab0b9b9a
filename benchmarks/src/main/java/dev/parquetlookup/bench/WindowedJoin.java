package dev.parquetlookup.bench;

import dev.parquetlookup.s3proxy.LatencyProxy;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * One measured job of the {@code objectstore} suite: submits {@code INSERT INTO enriched SELECT
 * checked(e.f0, d.v) FROM KEYS AS e LEFT JOIN DIM FOR SYSTEM_TIME AS OF e.proc ...} on an endless
 * key stream, waits for the first enriched row, measures a cold window of W ms (from the first
 * row), a gap, and a warm window of W ms, then cancels the job and fails if any enriched row was
 * wrong or missing. With a {@link LatencyProxy}, each window also carries the proxy's request
 * counts.
 *
 * <pre>{@code
 * WindowedJoin.Job job = WindowedJoin.run(tables, "keys_uniform", "dim_s3", proxy, 5000, 2500);
 * job.cold().eventsPerSecond();
 * }</pre>
 *
 * <p>{@code checked} must be registered as {@link CheckFunction} and {@code enriched} be a sink of
 * one {@code BIGINT} column.
 */
final class WindowedJoin {

    private static final Duration FIRST_ROW_TIMEOUT = Duration.ofMinutes(3);

    private WindowedJoin() {}

    /** What the proxy and the job did in one window. */
    record Window(
            long events,
            double seconds,
            long gets,
            long responseBytes,
            double meanInFlight,
            int maxInFlight,
            double meanRequestMillis) {

        double eventsPerSecond() {
            return events / seconds;
        }

        double getsPerEvent() {
            return events == 0 ? Double.NaN : gets / (double) events;
        }
    }

    /** One job: time to first row, GETs before it, and its two windows. */
    record Job(double firstRowMillis, long openGets, Window cold, Window warm) {}

    /**
     * Called on the measuring thread at the warm window's start and end, while the job runs (before
     * it is cancelled): readings of the window alone, e.g. the lookups' latencies.
     */
    interface WarmProbe {
        void start();

        void end();
    }

    /** Submits the join, measures its windows, cancels it and checks every enriched row. */
    static Job run(
            StreamTableEnvironment tables,
            String keys,
            String dim,
            @Nullable LatencyProxy proxy,
            long window,
            long gap)
            throws Exception {
        return run(tables, keys, dim, proxy, window, gap, null);
    }

    /** Like the above, with {@code probe} told when the warm window starts and ends. */
    static Job run(
            StreamTableEnvironment tables,
            String keys,
            String dim,
            @Nullable LatencyProxy proxy,
            long window,
            long gap,
            @Nullable WarmProbe probe)
            throws Exception {
        CheckFunction.reset();
        if (proxy != null) {
            proxy.resetStats();
        }
        long submit = System.nanoTime();
        TableResult result =
                tables.executeSql(
                        "INSERT INTO enriched SELECT checked(e.f0, d.v) FROM "
                                + keys
                                + " AS e LEFT JOIN "
                                + dim
                                + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.f0 = d.k");
        JobClient client =
                result.getJobClient()
                        .orElseThrow(() -> new IllegalStateException("no job client for " + dim));
        CompletableFuture<?> done = client.getJobExecutionResult();
        try {
            awaitOrFail(
                    () -> CheckFunction.FIRST.get() != 0,
                    submit + FIRST_ROW_TIMEOUT.toNanos(),
                    done,
                    "the first enriched row from " + dim);
            double firstRowMillis = (CheckFunction.FIRST.get() - submit) / 1e6;
            long openGets = proxy == null ? 0 : proxy.stats().gets();
            Window cold = window(proxy, window, done, dim, null);
            sleepOrFail(gap, done, dim);
            Window warm = window(proxy, window, done, dim, probe);
            return new Job(firstRowMillis, openGets, cold, warm);
        } finally {
            cancel(client, done, dim);
            long mismatches = CheckFunction.MISMATCHES.sum();
            if (mismatches > 0) {
                throw new IllegalStateException(
                        String.format(
                                "suite=objectstore: %d of %d enriched rows from %s were wrong or"
                                        + " missing, e.g. %s",
                                mismatches,
                                CheckFunction.ROWS.sum(),
                                dim,
                                CheckFunction.FIRST_MISMATCH.get()));
            }
        }
    }

    private static Window window(
            @Nullable LatencyProxy proxy,
            long millis,
            CompletableFuture<?> done,
            String dim,
            @Nullable WarmProbe probe)
            throws Exception {
        if (proxy != null) {
            proxy.resetStats();
        }
        if (probe != null) {
            probe.start();
        }
        long rows0 = CheckFunction.ROWS.sum();
        long t0 = System.nanoTime();
        sleepOrFail(millis, done, dim);
        long rows1 = CheckFunction.ROWS.sum();
        long t1 = System.nanoTime();
        if (probe != null) {
            probe.end();
        }
        LatencyProxy.Stats s = proxy == null ? null : proxy.stats();
        return new Window(
                rows1 - rows0,
                (t1 - t0) / 1e9,
                s == null ? 0 : s.gets(),
                s == null ? 0 : s.responseBytes(),
                s == null ? 0 : s.meanInFlight(),
                s == null ? 0 : s.maxInFlight(),
                s == null ? 0 : s.meanRequestMillis());
    }

    private static void sleepOrFail(long millis, CompletableFuture<?> done, String dim)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        // Only the job's end can cut a window short: the timeout is not part of this wait.
        awaitOrFail(
                () -> System.nanoTime() >= deadline, Long.MAX_VALUE, done, "a window of " + dim);
    }

    /**
     * Polls {@code condition} (a benchmark's clock, not a test's synchronisation) and fails fast
     * when the job ends first, with its cause; {@code deadline} (a {@code nanoTime}, or {@code
     * Long.MAX_VALUE} for none) bounds the wait.
     */
    private static void awaitOrFail(
            BooleanSupplier condition, long deadline, CompletableFuture<?> done, String what)
            throws Exception {
        while (!condition.getAsBoolean()) {
            if (done.isDone()) {
                try {
                    done.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException(
                            "suite=objectstore: the job failed while waiting for " + what,
                            e.getCause());
                }
                throw new IllegalStateException(
                        "suite=objectstore: the job ended while waiting for " + what);
            }
            if (deadline != Long.MAX_VALUE && System.nanoTime() - deadline > 0) {
                throw new TimeoutException("suite=objectstore: timed out waiting for " + what);
            }
            Thread.sleep(2);
        }
    }

    private static void cancel(JobClient client, CompletableFuture<?> done, String dim)
            throws Exception {
        if (!done.isDone()) {
            try {
                client.cancel().get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                // already finished or failed: its status below says which
            }
        }
        try {
            done.get(120, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
            // a cancelled job's result future fails; the status tells cancelled from failed
        }
        JobStatus status = client.getJobStatus().get(60, TimeUnit.SECONDS);
        if (status != JobStatus.CANCELED && status != JobStatus.FINISHED) {
            throw new IllegalStateException(
                    "suite=objectstore: the job on " + dim + " ended " + status);
        }
    }

    /**
     * Checks every enriched row where the job runs (the embedded cluster shares this JVM and class
     * loader) against the dataset, and notes when the first one came.
     */
    public static final class CheckFunction extends ScalarFunction {
        static final LongAdder ROWS = new LongAdder();
        static final LongAdder MISMATCHES = new LongAdder();
        static final AtomicLong FIRST = new AtomicLong();
        static final AtomicReference<String> FIRST_MISMATCH = new AtomicReference<>();

        static void reset() {
            ROWS.reset();
            MISMATCHES.reset();
            FIRST.set(0);
            FIRST_MISMATCH.set(null);
        }

        public Long eval(Long k, String v) {
            FIRST.compareAndSet(0, System.nanoTime());
            if (v == null || !v.equals(Md5Hex.of(k))) {
                MISMATCHES.increment();
                FIRST_MISMATCH.compareAndSet(null, "k=" + k + " v=" + v);
            }
            ROWS.increment();
            return k;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }
}
