package dev.parquetlookup.io.hedge;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.TransientFailures;

import org.apache.hadoop.conf.Configuration;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Decorator of a store's {@link AsyncRangeReader} that hedges late GETs: each range is its own
 * request, and one not answered within a delay learnt from the store's recent requests ({@link
 * RecentLatencies}: by default the 99th percentile of the last 1,024, at least 20 ms, at most 1 s)
 * is sent a second time, which the client sends on another connection (the first one is busy with
 * the first request). The first answer wins; the other request is cancelled, which makes the client
 * abort it and close its connection. A budget bounds the extra requests: each GET earns {@code
 * budget} of a token (0.05 by default), a hedge spends one, and at most {@value #BURST_TOKENS}
 * tokens are saved, so hedges never exceed 5% of the GETs plus {@value #BURST_TOKENS}. Ranges above
 * {@value #MAX_HEDGED_BYTES} bytes (the disk tier's warm-up fetches) are neither hedged nor timed:
 * their time is set by their size.
 *
 * <p>Why: Flink's ordered asynchronous output waits behind its oldest lookup, so one GET held for
 * seconds (object stores answer a small share of requests 10-100x slower than the median) stops a
 * subtask's output for seconds. Measured in {@code docs/objectstore.md}.
 *
 * <p>A failure ends the read at once unless it is transient and the other request is still out;
 * then the other request's answer decides. Cancelling a read cancels both requests. Counters go to
 * a {@link HedgeStatistics}. One timer thread serves every reader of the JVM; a reader checks its
 * GETs out in batches, at most every {@code min-delay} / {@value #TICKS_PER_MIN_DELAY}, instead of
 * setting and cancelling a timer per GET.
 *
 * <p>Hadoop options (table options with the prefix {@code hadoop.}), read by {@link #around}:
 *
 * <pre>
 * parquet-lookup.hedge.enabled     true   false: no hedging (the reader is not wrapped)
 * parquet-lookup.hedge.percentile  99     the percentile of recent latencies a GET may take
 * parquet-lookup.hedge.min-delay   20ms   the floor of that delay
 * parquet-lookup.hedge.max-delay   1s     its ceiling (and the delay until 64 GETs were answered)
 * parquet-lookup.hedge.budget      0.05   extra requests per GET, at most
 * </pre>
 *
 * <pre>{@code
 * AsyncRangeReader reader = HedgedRangeReader.around(NettyS3RangeReader.forFileSystem(fs), conf);
 * }</pre>
 */
public final class HedgedRangeReader implements AsyncRangeReader {

    public static final String ENABLED = "parquet-lookup.hedge.enabled";
    public static final String PERCENTILE = "parquet-lookup.hedge.percentile";
    public static final String MIN_DELAY = "parquet-lookup.hedge.min-delay";
    public static final String MAX_DELAY = "parquet-lookup.hedge.max-delay";
    public static final String BUDGET = "parquet-lookup.hedge.budget";

    /** Ranges larger than this are not hedged (1 MiB). */
    static final int MAX_HEDGED_BYTES = 1 << 20;

    /**
     * The checks for late GETs run at most every {@code min-delay} / this (5 ms by default): a GET
     * is hedged up to that much after its delay, and the timer wakes at most 200 times a second
     * however many GETs are out, instead of being set and cancelled for each GET.
     */
    static final int TICKS_PER_MIN_DELAY = 4;

    /** Tokens saved at most: hedges in a burst after a quiet spell. */
    static final int BURST_TOKENS = 10;

    /** What decides when to hedge and how often. */
    public record Settings(double percentile, Duration minDelay, Duration maxDelay, double budget) {

        public Settings {
            if (!(budget >= 0 && budget <= 1)) {
                throw new IllegalArgumentException(
                        BUDGET + " must be in [0, 1] (extra requests per GET), got " + budget);
            }
            new RecentLatencies(percentile, minDelay.toNanos(), maxDelay.toNanos()); // checks
        }

        /** 99th percentile, 20 ms to 1 s, 5% extra requests at most. */
        public static Settings defaults() {
            return new Settings(99, Duration.ofMillis(20), Duration.ofSeconds(1), 0.05);
        }

        /** The settings of {@code conf} (defaults for what it does not set). */
        static Settings of(Configuration conf) {
            Settings d = defaults();
            return new Settings(
                    conf.getDouble(PERCENTILE, d.percentile()),
                    Duration.ofMillis(
                            conf.getTimeDuration(
                                    MIN_DELAY, d.minDelay().toMillis(), TimeUnit.MILLISECONDS)),
                    Duration.ofMillis(
                            conf.getTimeDuration(
                                    MAX_DELAY, d.maxDelay().toMillis(), TimeUnit.MILLISECONDS)),
                    conf.getDouble(BUDGET, d.budget()));
        }
    }

    /** Runs a task after a delay on one thread (never two at once). A seam for tests. */
    @FunctionalInterface
    interface Timer {
        void schedule(Runnable task, long delayNanos);
    }

    private final AsyncRangeReader delegate;
    private final RecentLatencies latencies;
    private final Budget budget;
    private final HedgeStatistics statistics;
    private final Timer timer;
    private final LongSupplier clock;
    private final long tickNanos;

    /** GETs out whose hedge is not decided yet, in the order they were sent. */
    private final ConcurrentLinkedQueue<Race> watched = new ConcurrentLinkedQueue<>();

    /** When the next check of {@link #watched} is due; {@code Long.MAX_VALUE}: none is. */
    private volatile long checkAt = Long.MAX_VALUE;

    HedgedRangeReader(
            AsyncRangeReader delegate,
            Settings settings,
            HedgeStatistics statistics,
            Timer timer,
            LongSupplier clock) {
        this.delegate = delegate;
        this.latencies =
                new RecentLatencies(
                        settings.percentile(),
                        settings.minDelay().toNanos(),
                        settings.maxDelay().toNanos());
        this.budget = new Budget(settings.budget());
        this.statistics = statistics;
        this.timer = timer;
        this.clock = clock;
        this.tickNanos = Math.max(1, settings.minDelay().toNanos() / TICKS_PER_MIN_DELAY);
    }

    /**
     * {@code reader} hedged as {@code conf} says ({@link HedgeStatistics#shared()} counting), or
     * {@code reader} itself when {@value #ENABLED} is false.
     */
    public static AsyncRangeReader around(AsyncRangeReader reader, Configuration conf) {
        if (!conf.getBoolean(ENABLED, true)) {
            return reader;
        }
        return hedged(reader, Settings.of(conf), HedgeStatistics.shared());
    }

    /** {@code reader} hedged with {@code settings}, counted in {@code statistics}. */
    public static HedgedRangeReader hedged(
            AsyncRangeReader reader, Settings settings, HedgeStatistics statistics) {
        return new HedgedRangeReader(
                reader, settings, statistics, SharedTimer::schedule, System::nanoTime);
    }

    /**
     * The one timer thread of every hedging reader of the JVM (a daemon, started with the first
     * one): its tasks only decide and send a hedge, which does not block, so one thread serves any
     * number of readers; its queue holds at most one task per GET out.
     */
    private static final class SharedTimer {
        private static final ScheduledThreadPoolExecutor POOL = start();

        private static ScheduledThreadPoolExecutor start() {
            ScheduledThreadPoolExecutor pool =
                    new ScheduledThreadPoolExecutor(
                            1, DaemonThreads.jvmWide("parquet-lookup-hedge-timer"));
            pool.setRemoveOnCancelPolicy(true);
            return pool;
        }

        static void schedule(Runnable task, long delayNanos) {
            POOL.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The delay after which a GET is hedged now. */
    public Duration delay() {
        return Duration.ofNanos(latencies.delayNanos());
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        // A failed range fails the read: the other ranges' requests are dropped.
        return AsyncRangeReader.eachRange(ranges, i -> get(file, ranges.get(i)));
    }

    private CompletableFuture<byte[]> get(FileId file, FileRange range) {
        statistics.get();
        if (range.length() > MAX_HEDGED_BYTES) {
            return first(delegate.readAll(file, List.of(range)));
        }
        budget.earn();
        Race race = new Race(file, range);
        race.start();
        return race.result;
    }

    private static CompletableFuture<byte[]> first(CompletableFuture<byte[][]> read) {
        CompletableFuture<byte[]> one = read.thenApply(bytes -> bytes[0]);
        one.whenComplete(
                (bytes, failure) -> {
                    if (one.isCancelled()) {
                        read.cancel(true);
                    }
                });
        return one;
    }

    /** Watches {@code race} for its delay: a check is due by its deadline. */
    private void watch(Race race) {
        watched.add(race);
        if (race.deadlineNanos < checkAt) {
            checkAt = race.deadlineNanos;
            timer.schedule(this::check, race.deadlineNanos - clock.getAsLong());
        }
    }

    /**
     * On the timer's thread: hedges the watched GETs past their deadline, forgets the answered
     * ones, and sets the next check (not sooner than a tick from now).
     */
    private void check() {
        checkAt = Long.MAX_VALUE;
        long now = clock.getAsLong();
        long next = Long.MAX_VALUE;
        for (Iterator<Race> it = watched.iterator(); it.hasNext(); ) {
            Race race = it.next();
            if (race.result.isDone()) {
                it.remove();
            } else if (race.deadlineNanos <= now) {
                it.remove();
                race.late();
            } else {
                next = Math.min(next, race.deadlineNanos);
            }
        }
        if (next != Long.MAX_VALUE && next < checkAt) {
            next = Math.max(next, now + tickNanos);
            checkAt = next;
            timer.schedule(this::check, next - now);
        }
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** One GET and, if it is late, its hedge: the first answer completes {@link #result}. */
    private final class Race {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final FileId file;
        private final FileRange range;
        private final long startNanos = clock.getAsLong();
        private long deadlineNanos;
        // Guarded by this:
        private CompletableFuture<byte[][]> first;
        private CompletableFuture<byte[][]> second;
        private long secondStartNanos;
        private boolean firstFailed;
        private boolean secondFailed;
        private Throwable failure;

        Race(FileId file, FileRange range) {
            this.file = file;
            this.range = range;
        }

        void start() {
            CompletableFuture<byte[][]> request = send();
            synchronized (this) {
                first = request;
            }
            request.whenComplete((bytes, f) -> answered(false, bytes, f));
            long delay = latencies.delayNanos();
            statistics.latencies(delay, latencies.medianNanos());
            if (!result.isDone()) {
                deadlineNanos = startNanos + delay;
                watch(this);
            }
            result.whenComplete(
                    (bytes, f) -> {
                        if (result.isCancelled()) {
                            cancelAll();
                        }
                    });
        }

        private CompletableFuture<byte[][]> send() {
            try {
                return delegate.readAll(file, List.of(range));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /** The first request is late: hedge it if the budget allows. */
        private void late() {
            synchronized (this) {
                if (result.isDone() || firstFailed) {
                    return;
                }
                if (!budget.trySpend()) {
                    statistics.overBudget();
                    return;
                }
                statistics.hedgeSent();
                secondStartNanos = clock.getAsLong();
            }
            CompletableFuture<byte[][]> request = send();
            synchronized (this) {
                second = request;
                if (result.isDone()) {
                    request.cancel(true);
                    return;
                }
            }
            request.whenComplete((bytes, f) -> answered(true, bytes, f));
        }

        private void answered(boolean hedge, byte[][] bytes, Throwable f) {
            if (f == null) {
                long start;
                synchronized (this) {
                    start = hedge ? secondStartNanos : startNanos;
                }
                latencies.record(clock.getAsLong() - start);
                if (result.complete(bytes[0])) {
                    if (hedge) {
                        statistics.hedgeWon();
                    }
                    cancelAll();
                }
                return;
            }
            if (result.isDone()) {
                return; // the loser, cancelled, or a request after the end
            }
            boolean fail;
            synchronized (this) {
                if (hedge) {
                    secondFailed = true;
                } else {
                    firstFailed = true;
                }
                if (failure == null) {
                    failure = f;
                } else if (failure != f) {
                    failure.addSuppressed(f);
                }
                boolean otherOut = hedge ? !firstFailed : second != null && !secondFailed;
                fail = !otherOut || !TransientFailures.isTransient(f);
            }
            if (fail && result.completeExceptionally(failure)) {
                cancelAll();
            }
        }

        private void cancelAll() {
            CompletableFuture<byte[][]> a;
            CompletableFuture<byte[][]> b;
            synchronized (this) {
                a = first;
                b = second;
            }
            if (a != null && !a.isDone()) {
                a.cancel(true);
            }
            if (b != null && !b.isDone()) {
                b.cancel(true);
            }
        }
    }

    /**
     * The budget of extra requests, a token bucket in thousandths of a token: each GET earns {@code
     * ratio} of a token, a hedge spends one, at most {@value #BURST_TOKENS} are kept.
     */
    static final class Budget {
        private static final long TOKEN = 1000;
        private final long earn;
        private final AtomicLong milliTokens = new AtomicLong();

        Budget(double ratio) {
            this.earn = Math.round(ratio * TOKEN);
        }

        void earn() {
            if (earn == 0) {
                return;
            }
            milliTokens.accumulateAndGet(earn, (t, e) -> Math.min(BURST_TOKENS * TOKEN, t + e));
        }

        boolean trySpend() {
            while (true) {
                long t = milliTokens.get();
                if (t < TOKEN) {
                    return false;
                }
                if (milliTokens.compareAndSet(t, t - TOKEN)) {
                    return true;
                }
            }
        }
    }
}
