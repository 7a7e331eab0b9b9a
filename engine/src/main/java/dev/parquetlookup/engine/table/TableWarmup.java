package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.table.WarmupPlan.Piece;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.io.TransientFailures;
import dev.parquetlookup.io.disk.TieredFileStore;
import dev.parquetlookup.io.disk.TieredRangeSource;
import dev.parquetlookup.metadata.FileMetadata;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Warm-up: after a table opens, fetches its remote files' column chunks into the disk tier in the
 * background while lookups are already served (the first row never waits for it): first each file's
 * tail (page indexes and footer), then the sort-key columns of every row group, then (mode {@link
 * Mode#ALL}) the other columns. A chunk is fetched as runs of whole pages of at most 8 MiB (one GET
 * each), so every page read later lies inside one stored range.
 *
 * <p>Bounded: {@code concurrency} fetches at a time, and no more than 90% of the tier's bound is
 * planned (the rest is logged as not warmed). Failures: a transient failure (an outage) pauses the
 * fetch with a backoff of up to 5 s and resumes it; a permanent one (the object was replaced or
 * deleted) skips that file. Warm-up follows the snapshot that was current when it started; files a
 * refresh adds are cached as lookups read them.
 *
 * <pre>{@code
 * TableWarmup warmup = TableWarmup.start("customers", table, tieredStore, Mode.ALL, 4);
 * warmup.done().join(); // tests; lookups do not wait
 * }</pre>
 */
public final class TableWarmup implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(TableWarmup.class);

    /** Largest range one warm-up request fetches. */
    static final long MAX_PIECE_BYTES = 8L << 20;

    private static final long MAX_BACKOFF_MILLIS = 5_000;

    /** How often a yielding worker looks whether the lookups' requests are back. */
    private static final long YIELD_MILLIS = 5;

    /** What warm-up fetches ({@code warmup} option). */
    public enum Mode {
        NONE,
        KEY_COLUMNS,
        ALL;

        /** The value of this mode in the {@code warmup} option. */
        public String optionValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The option value, so that option parsers (Flink's enum options) read and print it. */
        @Override
        public String toString() {
            return optionValue();
        }
    }

    private final String tableName;
    private final List<Piece> pieces;
    private final Map<FileId, TieredRangeSource> sources;
    private final long plannedBytes;
    private final AtomicLong warmedBytes = new AtomicLong();
    private final AtomicLong fetchedBytes = new AtomicLong();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger running;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final CountDownLatch stop = new CountDownLatch(1);
    private final AtomicBoolean outageLogged = new AtomicBoolean();
    private final List<Thread> workers = new ArrayList<>();
    private final long startNanos = System.nanoTime();
    private volatile boolean closed;

    /** The lookups' limiter: while it has requests out, only the first worker fetches. */
    @Nullable private final RequestLimiter lookups;

    private final AtomicInteger fetching = new AtomicInteger();
    private final AtomicInteger peakFetchingBesideLookups = new AtomicInteger();

    private TableWarmup(
            String tableName,
            List<Piece> pieces,
            Map<FileId, TieredRangeSource> sources,
            int concurrency,
            @Nullable RequestLimiter lookups) {
        this.tableName = tableName;
        this.pieces = pieces;
        this.sources = sources;
        this.lookups = lookups;
        this.plannedBytes = WarmupPlan.bytes(pieces);
        int threads = Math.max(1, Math.min(concurrency, pieces.size()));
        this.running = new AtomicInteger(threads);
        for (int i = 0; i < threads; i++) {
            int worker = i;
            Thread t =
                    new Thread(() -> work(worker), "parquet-lookup-warmup-" + tableName + "-" + i);
            t.setDaemon(true);
            workers.add(t);
        }
    }

    /**
     * Plans the warm-up of the table's current snapshot and starts it on {@code concurrency} daemon
     * threads; returns at once.
     */
    public static TableWarmup start(
            String tableName,
            RefreshingTable table,
            TieredFileStore store,
            Mode mode,
            int concurrency)
            throws IOException {
        return start(tableName, table, store, mode, concurrency, null);
    }

    /**
     * Like {@link #start(String, RefreshingTable, TieredFileStore, Mode, int)}, yielding to the
     * lookups of {@code lookups}: while it has requests out, one fetch runs, not {@code
     * concurrency}. Warm-up never takes the lookups' permits or connections (its reads are
     * synchronous requests of the store's client, on the instance that serves footers, not the
     * lookups' one); this keeps it from taking most of the store's capacity from them too
     * (measured: lookups at 10-30 events/s while four 8 MiB fetches ran on a busy machine).
     */
    public static TableWarmup start(
            String tableName,
            RefreshingTable table,
            TieredFileStore store,
            Mode mode,
            int concurrency,
            @Nullable RequestLimiter lookups)
            throws IOException {
        List<FileMetadata> files;
        try (RefreshingTable.Lease lease = table.acquire()) {
            files = lease.table().fileMetadata();
        }
        long budget = (long) (store.tier().maxBytes() * 0.9);
        long maxPiece = Math.min(MAX_PIECE_BYTES, store.tier().maxExtentBytes());
        List<Piece> planned =
                mode == Mode.NONE ? List.of() : WarmupPlan.plan(files, mode, maxPiece);
        List<Piece> pieces = WarmupPlan.withinBudget(planned, budget);
        long bytes = WarmupPlan.bytes(pieces);
        long skipped = WarmupPlan.bytes(planned) - bytes;
        if (skipped > 0) {
            LOG.warn(
                    "Warm-up of table '{}' fetches {} of {} bytes: the rest does not fit in"
                            + " 'local-cache.max-bytes' ({} bytes, 90% planned). Raise it to warm"
                            + " the whole table; the rest is cached as lookups read it.",
                    tableName, bytes, bytes + skipped, store.tier().maxBytes());
        }
        Map<FileId, TieredRangeSource> sources = new HashMap<>();
        try {
            for (Piece p : pieces) {
                if (!sources.containsKey(p.file())) {
                    sources.put(p.file(), store.openTiered(p.file()));
                }
            }
        } catch (IOException | RuntimeException e) {
            for (TieredRangeSource s : sources.values()) {
                closeQuietly(s);
            }
            throw e;
        }
        TableWarmup warmup = new TableWarmup(tableName, pieces, sources, concurrency, lookups);
        LOG.info(
                "Warm-up ({}) of table '{}': {} bytes of {} file(s) in {} requests, {} at a time",
                mode.optionValue(),
                tableName,
                warmup.plannedBytes,
                sources.size(),
                pieces.size(),
                warmup.workers.size());
        if (pieces.isEmpty()) {
            warmup.running.set(0);
            warmup.done.complete(null);
        } else {
            for (Thread t : warmup.workers) {
                t.start();
            }
        }
        return warmup;
    }

    private void work(int worker) {
        try {
            while (!closed) {
                if (worker > 0) {
                    yieldToLookups(); // before taking a piece: the first worker may take it
                }
                int i = next.getAndIncrement();
                if (i >= pieces.size()) {
                    break;
                }
                Piece p = pieces.get(i);
                TieredRangeSource source = sources.get(p.file());
                if (source != null && fetch(source, p.range()) && source.isHeld(p.range())) {
                    warmedBytes.addAndGet(p.range().length());
                }
            }
        } finally {
            if (running.decrementAndGet() == 0) {
                finish();
            }
        }
    }

    /** Waits while lookups have requests out and pieces are left (or until closed). */
    private void yieldToLookups() {
        while (!closed && lookups != null && lookups.inFlight() > 0 && next.get() < pieces.size()) {
            try {
                stop.await(YIELD_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private boolean fetch(TieredRangeSource source, FileRange range) {
        int now = fetching.incrementAndGet();
        try {
            if (lookups != null && lookups.inFlight() > 0) {
                peakFetchingBesideLookups.accumulateAndGet(now, Math::max);
            }
            return warm(source, range);
        } finally {
            fetching.decrementAndGet();
        }
    }

    /**
     * The most warm-up fetches out at once that started while lookups had requests out (1 when
     * warm-up yields as it should); for tests.
     */
    public int peakFetchesBesideLookups() {
        return peakFetchingBesideLookups.get();
    }

    /** Fetches one range, waiting out transient failures; false if it was given up. */
    private boolean warm(TieredRangeSource source, FileRange range) {
        for (int attempt = 0; !closed; attempt++) {
            try {
                if (source.warm(range)) {
                    fetchedBytes.addAndGet(range.length());
                }
                if (attempt > 0 && outageLogged.compareAndSet(true, false)) {
                    LOG.info("Warm-up of table '{}' resumed", tableName);
                }
                return true;
            } catch (IOException | RuntimeException e) {
                // Outages are waited out; anything else gets a few attempts, then the range is
                // left to the lookups.
                if (!TransientFailures.isTransient(e) && attempt >= 2) {
                    LOG.warn(
                            "Warm-up of table '{}' skips bytes [{}, {}) of {}: {}",
                            tableName,
                            range.offset(),
                            range.end(),
                            source.file(),
                            e.toString());
                    return false;
                }
                if (outageLogged.compareAndSet(false, true)) {
                    LOG.warn(
                            "Warm-up of table '{}' paused: reading {} failed ({}); retrying with"
                                    + " backoff, lookups are served meanwhile",
                            tableName,
                            source.file(),
                            e.toString());
                }
                try {
                    stop.await(
                            Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(attempt, 6)),
                            TimeUnit.MILLISECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    private void finish() {
        for (TieredRangeSource s : sources.values()) {
            closeQuietly(s);
        }
        if (!closed) {
            LOG.info(
                    "Warm-up of table '{}' done: {} of {} bytes held, {} fetched, in {} ms",
                    tableName,
                    warmedBytes.get(),
                    plannedBytes,
                    fetchedBytes.get(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        }
        done.complete(null);
    }

    /** Completes when every planned range was fetched or given up, or after {@link #close()}. */
    public CompletableFuture<Void> done() {
        return done;
    }

    /** Bytes planned. */
    public long plannedBytes() {
        return plannedBytes;
    }

    /**
     * Bytes of the plan held in the tier so far (fetched here, by another table, or before); a
     * range the disk could not take (full) does not count.
     */
    public long warmedBytes() {
        return warmedBytes.get();
    }

    /** Bytes this warm-up fetched from the store. */
    public long fetchedBytes() {
        return fetchedBytes.get();
    }

    /** Warmed fraction of the plan, 0 to 1 (1 when nothing was planned). */
    public double progress() {
        return plannedBytes == 0 ? 1.0 : (double) warmedBytes.get() / plannedBytes;
    }

    /**
     * Stops the warm-up: no new fetch starts; waits up to 10 s for the fetches in flight, which are
     * never interrupted (an interrupt would close the tier's file channels).
     */
    @Override
    public void close() {
        closed = true;
        stop.countDown();
        for (Thread t : workers) {
            if (t.isAlive()) {
                try {
                    t.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("Ignoring failure to close {}", c, e);
        }
    }
}
