package dev.parquetlookup.io.hedge;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.TransientFailures;

import org.apache.hadoop.conf.Configuration;

import java.time.Duration;
import java.util.ArrayList;
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
 * RecentLatencies}: by default the 99th percentile of the last 1,024, at most {@value
 * #DEFAULT_MEDIAN_MULTIPLE}x their median, at least 20 ms, at most 1 s) is sent again, which the
 * client sends on another connection (the first one is busy with the first request); a hedge itself
 * unanswered for the delay is followed by another, at most {@value #MAX_HEDGES} per GET. The first
 * answer wins; the others are cancelled, which makes the client drop them (it drains a short answer
 * and keeps its connection, or closes the connection).
 *
 * <p>A request is timed from when it went on the wire when the client tells ({@link
 * AsyncRangeReader.Sent}), else from when it was asked for: the delay is learnt from those times,
 * and a GET that still waits behind the client's own requests (for a connection, for its event
 * loop) is not late, however long it waits. Why: a loaded client's own queueing made 3-4% of its
 * GETs late, each hedge an extra GET (measured in {@code docs/objectstore.md}).
 *
 * <p>A budget bounds the extra requests: each GET earns {@code budget} of a token (0.05 by
 * default), a hedge spends one, at most {@value #BURST_TOKENS} tokens are saved and, by GETs out
 * for {@value #BORROW_AFTER_DELAYS} delays or more only, at most {@value #BORROW_TOKENS} owed, so
 * hedges never exceed 5% of the GETs plus 50. A late GET that finds the budget spent is not given
 * up: it stays watched and gets a hedge as soon as the GETs sent since have earned one (or it may
 * borrow), the GETs out longest first. So a store's rare held GET is hedged even while a loaded
 * client's ordinary tail spends the budget, and a store that is slow throughout is still sent at
 * most 5% more requests (plus 50). Ranges above {@value #MAX_HEDGED_BYTES} bytes (the disk tier's
 * warm-up fetches) are neither hedged nor timed: their time is set by their size.
 *
 * <p>Why: Flink's ordered asynchronous output waits behind its oldest lookup, so one GET held for
 * seconds (object stores answer a small share of requests 10-100x slower than the median) stops a
 * subtask's output for seconds. Measured in {@code docs/objectstore.md}.
 *
 * <p>A failure ends the read at once unless it is transient and another request is still out; then
 * the others' answers decide. Cancelling a read cancels every request. Counters go to a {@link
 * HedgeStatistics}. One timer thread serves every reader of the JVM; a reader checks its GETs out
 * in batches, at most every {@code min-delay} / {@value #TICKS_PER_MIN_DELAY}, instead of setting
 * and cancelling a timer per GET.
 *
 * <p>Hadoop options (table options with the prefix {@code hadoop.}), read by {@link #around}:
 *
 * <pre>
 * parquet-lookup.hedge.enabled         true   false: no hedging (the reader is not wrapped)
 * parquet-lookup.hedge.percentile      99     the percentile of recent latencies a GET may take
 * parquet-lookup.hedge.median-multiple 2      ... but at most this many times their median
 * parquet-lookup.hedge.min-delay       20ms   the floor of that delay
 * parquet-lookup.hedge.max-delay       1s     its ceiling (and the delay until 64 GETs were answered)
 * parquet-lookup.hedge.budget          0.05   extra requests per GET, at most (0: no hedging)
 * </pre>
 *
 * <pre>{@code
 * AsyncRangeReader reader = HedgedRangeReader.around(NettyS3RangeReader.forFileSystem(fs), conf);
 * }</pre>
 */
public final class HedgedRangeReader implements AsyncRangeReader {

    public static final String ENABLED = "parquet-lookup.hedge.enabled";
    public static final String PERCENTILE = "parquet-lookup.hedge.percentile";
    public static final String MEDIAN_MULTIPLE = "parquet-lookup.hedge.median-multiple";
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

    /**
     * Tokens saved at most: hedges in a burst after a quiet spell. About a second of what 800
     * GETs/s earn at the default 5%: a stall of the machine or the network makes dozens of GETs
     * late at once, and with a smaller bucket (10 before) they spent it and the one held GET among
     * them waited until it could borrow, one delay later (measured at 400 lookups/s with 1 in 50
     * GETs held: 74-269 late GETs per 8 s waited for a token while 5% of the GETs would have paid
     * for them; docs/objectstore.md).
     */
    static final int BURST_TOKENS = 40;

    /**
     * Tokens a GET held {@value #BORROW_AFTER_DELAYS} delays or more may borrow from the GETs to
     * come when the budget is spent. Why: a subtask whose ordered output waits for a held GET sends
     * no GETs, so earns no budget; when the ordinary tail has spent it, the held GET would wait for
     * its own answer (seconds). Borrowing lets it be hedged; the GETs after repay the debt.
     */
    static final int BORROW_TOKENS = 10;

    /** A GET may borrow when it has been out this many delays (twice the 99th percentile). */
    static final int BORROW_AFTER_DELAYS = 2;

    /**
     * Hedges per GET at most: a hedge that is itself held is followed by one more, so a GET is sent
     * at most 3 times (the budget bounds the total all the same).
     */
    static final int MAX_HEDGES = 2;

    /** The default of {@value #MEDIAN_MULTIPLE}. */
    static final int DEFAULT_MEDIAN_MULTIPLE = 2;

    /** What decides when to hedge and how often. */
    public record Settings(
            double percentile,
            double medianMultiple,
            Duration minDelay,
            Duration maxDelay,
            double budget) {

        public Settings {
            if (!(budget >= 0 && budget <= 1)) {
                throw new IllegalArgumentException(
                        BUDGET + " must be in [0, 1] (extra requests per GET), got " + budget);
            }
            if (!(medianMultiple >= 1)) {
                throw new IllegalArgumentException(
                        MEDIAN_MULTIPLE + " must be at least 1, got " + medianMultiple);
            }
            new RecentLatencies(
                    percentile, medianMultiple, minDelay.toNanos(), maxDelay.toNanos()); // checks
        }

        /** 99th percentile, at most 2x the median, 20 ms to 1 s, 5% extra requests at most. */
        public static Settings defaults() {
            return new Settings(
                    99,
                    DEFAULT_MEDIAN_MULTIPLE,
                    Duration.ofMillis(20),
                    Duration.ofSeconds(1),
                    0.05);
        }

        /** The settings of {@code conf} (defaults for what it does not set). */
        static Settings of(Configuration conf) {
            Settings d = defaults();
            return new Settings(
                    conf.getDouble(PERCENTILE, d.percentile()),
                    conf.getDouble(MEDIAN_MULTIPLE, d.medianMultiple()),
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

    /** False with a budget of 0 (or below a thousandth): GETs are neither watched nor hedged. */
    private final boolean hedging;

    /** GETs out whose hedge is not decided yet, in the order they were sent. */
    private final ConcurrentLinkedQueue<Race> watched = new ConcurrentLinkedQueue<>();

    /**
     * When the one check of {@link #watched} to run next is due; {@code Long.MAX_VALUE}: none is. A
     * check scheduled for another time was superseded by an earlier one and does nothing when it
     * fires, so one chain of checks runs however many GETs set one.
     */
    private final AtomicLong checkAt = new AtomicLong(Long.MAX_VALUE);

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
                        settings.medianMultiple(),
                        settings.minDelay().toNanos(),
                        settings.maxDelay().toNanos());
        this.budget = new Budget(settings.budget());
        this.statistics = statistics;
        this.timer = timer;
        this.clock = clock;
        this.tickNanos = Math.max(1, settings.minDelay().toNanos() / TICKS_PER_MIN_DELAY);
        this.hedging = budget.earns();
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

    private CompletableFuture<byte[][]> get(FileId file, FileRange range) {
        statistics.get();
        if (range.length() > MAX_HEDGED_BYTES) {
            return delegate.readAll(file, List.of(range));
        }
        budget.earn();
        Race race = new Race(file, range);
        race.start();
        return race.result;
    }

    /** Watches {@code race} for its delay: a check is due by {@code deadline}, its first one. */
    private void watch(Race race, long deadline) {
        watched.add(race);
        scheduleCheck(deadline, clock.getAsLong());
    }

    /** Makes sure a check runs by {@code at}: schedules one unless one is due by then. */
    private void scheduleCheck(long at, long now) {
        for (long due = checkAt.get(); at < due; due = checkAt.get()) {
            if (checkAt.compareAndSet(due, at)) {
                timer.schedule(() -> check(at), at - now);
                return;
            }
        }
    }

    /**
     * On the timer's thread: hedges the watched GETs past their deadline, oldest first (when the
     * budget is short, the GET held longest gets the next hedge), forgets the answered ones, and
     * sets the next check (not sooner than a tick from now). A late GET the budget cannot hedge yet
     * stays watched and is tried again at each check: the budget grows with every GET sent. Does
     * nothing if a check for another time superseded this one ({@link #checkAt}).
     */
    private void check(long at) {
        if (!checkAt.compareAndSet(at, Long.MAX_VALUE)) {
            return;
        }
        long now = clock.getAsLong();
        long next = Long.MAX_VALUE;
        for (Iterator<Race> it = watched.iterator(); it.hasNext(); ) {
            Race race = it.next();
            long due;
            if (race.result.isDone()) {
                due = Long.MAX_VALUE;
            } else if (race.deadlineNanos <= now) {
                due = race.late(now);
            } else {
                due = race.deadlineNanos;
            }
            if (due == Long.MAX_VALUE) {
                it.remove();
            } else {
                next = Math.min(next, due);
            }
        }
        if (next != Long.MAX_VALUE) {
            scheduleCheck(Math.max(next, now + tickNanos), now);
        }
    }

    @Override
    public void close() {
        delegate.close();
    }

    /**
     * One GET and, while it is late, its hedges (at most {@value #MAX_HEDGES}, each sent when the
     * newest request out has gone unanswered for the delay): the first answer completes {@link
     * #result} and cancels the others.
     */
    private final class Race {
        final CompletableFuture<byte[][]> result = new CompletableFuture<>();
        private final FileId file;
        private final FileRange range;

        /** When the next hedge is due; read and written by the timer's thread once watched. */
        private long deadlineNanos;

        /** The delay of the newest request out; like {@link #deadlineNanos}. */
        private long delayNanos;

        // Guarded by this:
        @SuppressWarnings("unchecked")
        private final CompletableFuture<byte[][]>[] requests =
                new CompletableFuture[1 + MAX_HEDGES];

        private final long[] sentNanos = new long[1 + MAX_HEDGES];
        private int sent;
        private int failed;
        private boolean waitingForBudget;
        private Throwable failure;

        Race(FileId file, FileRange range) {
            this.file = file;
            this.range = range;
        }

        void start() {
            long now = clock.getAsLong();
            synchronized (this) {
                sent = 1;
                sentNanos[0] = now;
            }
            CompletableFuture<byte[][]> request = send();
            synchronized (this) {
                requests[0] = request;
            }
            request.whenComplete((bytes, f) -> answered(0, bytes, f));
            long delay = latencies.delayNanos();
            statistics.latencies(delay, latencies.medianNanos());
            result.whenComplete(
                    (bytes, f) -> {
                        boolean refused;
                        synchronized (this) {
                            refused = waitingForBudget;
                        }
                        if (refused) {
                            statistics.overBudget();
                        }
                        if (result.isCancelled()) {
                            cancelAll();
                        }
                    });
            if (!result.isDone() && hedging) {
                // The first check: the request went on the wire after it was asked for, not before.
                delayNanos = delay;
                deadlineNanos = now + delay;
                watch(this, now + delay);
            }
        }

        private CompletableFuture<byte[][]> send() {
            try {
                return delegate.readAll(file, List.of(range));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        /**
         * When request {@code i} went on the wire, as far as known: what the client tells ({@link
         * AsyncRangeReader.Sent#NOT_YET} while it waits to be written), else when it was asked for.
         */
        private long onWire(int i) {
            if (requests[i] instanceof AsyncRangeReader.Sent s) {
                return s.sentNanos();
            }
            return sentNanos[i];
        }

        /**
         * On the timer's thread, past {@link #deadlineNanos}: sends a hedge if the newest request
         * has been on the wire for the delay and the budget allows.
         *
         * @return when this race is due to be checked again: {@code now} if it waits for the
         *     budget, a tick later if its newest request waits to be written, the delay after that
         *     request was written, the new hedge's deadline, or {@code Long.MAX_VALUE} when nothing
         *     more will be sent
         */
        long late(long now) {
            int index;
            synchronized (this) {
                if (result.isDone() || sent == failed || sent > MAX_HEDGES) {
                    return Long.MAX_VALUE;
                }
                long wire = onWire(sent - 1);
                if (wire == AsyncRangeReader.Sent.NOT_YET) {
                    return now + tickNanos; // behind the client's own requests: not late
                }
                if (now - wire < delayNanos) {
                    deadlineNanos = wire + delayNanos; // written after it was asked for
                    return deadlineNanos;
                }
                boolean held = now - wire >= BORROW_AFTER_DELAYS * delayNanos;
                if (!budget.trySpend(held)) {
                    waitingForBudget = true;
                    return now;
                }
                waitingForBudget = false;
                statistics.hedgeSent();
                index = sent++;
                sentNanos[index] = now;
            }
            CompletableFuture<byte[][]> request = send();
            synchronized (this) {
                requests[index] = request;
            }
            if (result.isDone()) {
                request.cancel(true);
                return Long.MAX_VALUE;
            }
            request.whenComplete((bytes, f) -> answered(index, bytes, f));
            if (index == MAX_HEDGES) {
                return Long.MAX_VALUE;
            }
            delayNanos = latencies.delayNanos();
            deadlineNanos = now + delayNanos;
            return deadlineNanos;
        }

        private void answered(int index, byte[][] bytes, Throwable f) {
            if (f == null) {
                long start;
                synchronized (this) {
                    start = onWire(index); // set before its answer is listened to
                }
                if (start != AsyncRangeReader.Sent.NOT_YET) {
                    latencies.record(clock.getAsLong() - start);
                }
                if (result.complete(bytes)) {
                    if (index > 0) {
                        statistics.hedgeWon();
                    }
                    if (hedged()) {
                        cancelAll(); // the other requests still out
                    }
                }
                return;
            }
            if (result.isDone()) {
                return; // a loser, cancelled, or a request after the end
            }
            boolean fail;
            synchronized (this) {
                failed++;
                if (failure == null) {
                    failure = f;
                } else if (failure != f) {
                    failure.addSuppressed(f);
                }
                // Another request still out decides, unless this failure is final anyway.
                fail = sent == failed || !TransientFailures.isTransient(f);
            }
            if (fail && result.completeExceptionally(failure)) {
                cancelAll();
            }
        }

        /**
         * Whether a hedge was sent. Read after {@link #result} completed: a hedge sent later sees
         * the result done and cancels itself ({@link #late}).
         */
        private synchronized boolean hedged() {
            return sent > 1;
        }

        private void cancelAll() {
            List<CompletableFuture<byte[][]>> out = new ArrayList<>(1 + MAX_HEDGES);
            synchronized (this) {
                for (int i = 0; i < sent; i++) {
                    if (requests[i] != null) {
                        out.add(requests[i]);
                    }
                }
            }
            for (CompletableFuture<byte[][]> request : out) {
                if (!request.isDone()) {
                    request.cancel(true);
                }
            }
        }
    }

    /**
     * The budget of extra requests, a token bucket in thousandths of a token: each GET earns {@code
     * ratio} of a token, a hedge spends one, at most {@value #BURST_TOKENS} are kept and at most
     * {@value #BORROW_TOKENS} owed (by held GETs only).
     */
    static final class Budget {
        private static final long TOKEN = 1000;
        private final long earn;
        private final AtomicLong milliTokens = new AtomicLong();

        Budget(double ratio) {
            this.earn = Math.round(ratio * TOKEN);
        }

        /** Whether a GET earns anything: false with a ratio of 0. */
        boolean earns() {
            return earn > 0;
        }

        void earn() {
            if (earn == 0) {
                return;
            }
            milliTokens.accumulateAndGet(earn, (t, e) -> Math.min(BURST_TOKENS * TOKEN, t + e));
        }

        /**
         * Spends a token if there is one or, when {@code mayBorrow}, if fewer than {@value
         * #BORROW_TOKENS} are owed.
         */
        boolean trySpend(boolean mayBorrow) {
            long least = mayBorrow ? TOKEN - BORROW_TOKENS * TOKEN : TOKEN;
            while (true) {
                long t = milliTokens.get();
                if (t < least) {
                    return false;
                }
                if (milliTokens.compareAndSet(t, t - TOKEN)) {
                    return true;
                }
            }
        }
    }
}
