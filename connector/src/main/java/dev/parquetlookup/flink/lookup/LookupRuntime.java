package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.io.disk.TieredFileStore;

import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.data.RowData;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOCAL_FILES_MMAP;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.MAX_RETRIES;

/**
 * Everything a lookup function does, without Flink's function classes around it: open the table on
 * the shared caches, normalise the key, look up, filter residual keys, convert, count. The sync and
 * async functions are thin shells around one instance.
 *
 * <p>Thread-safe: the async function calls {@link #lookup} from many threads at once; no lock is
 * taken here and the engine takes none per lookup.
 *
 * <pre>{@code
 * try (LookupRuntime runtime = LookupRuntime.open(config, spec, metricGroup)) {
 *     List<RowData> rows = runtime.lookup(GenericRowData.of(42L));
 * }
 * }</pre>
 */
public final class LookupRuntime implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(LookupRuntime.class);

    private final ParquetLookupConfig config;
    private final LookupSpec spec;
    private final SharedCaches.Lease caches;
    private final SharedCaches.StoreLease store;
    private final RefreshingTable table;
    private final LookupPlan plan;
    private final RowDataConverter converter;
    private final LookupMetrics metrics;
    private final RequestLimiter limiter;
    private final LookupFailures failures;

    /** Asynchronous lookups not completed yet: failed by {@link #close()}. */
    private final Set<CompletableFuture<List<RowData>>> pending = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    /** The disk tier's lease and the table's warm-up, for remote tables with a disk tier. */
    @Nullable private SharedCaches.TierLease tier;

    @Nullable private TableWarmup warmup;

    private LookupRuntime(
            ParquetLookupConfig config,
            LookupSpec spec,
            SharedCaches.Lease caches,
            SharedCaches.StoreLease store,
            RefreshingTable table,
            MetricGroup metricGroup) {
        this.config = config;
        this.spec = spec;
        this.caches = caches;
        this.store = store;
        this.table = table;
        this.plan = table.plan(spec.normalizer().keyColumns(), spec.projectedNames());
        this.converter = new RowDataConverter(spec.projectedTypes());
        this.limiter = new RequestLimiter(config.get(LOOKUP_MAX_IN_FLIGHT_REQUESTS));
        this.failures = new LookupFailures(config.tableName(), config.path());
        this.metrics =
                new LookupMetrics(
                        metricGroup,
                        table::readStatistics,
                        caches.metadataCache(),
                        caches.pageCache());
        metrics.registerSnapshot(metricGroup, table::status);
    }

    /** Opens the table on the JVM-wide shared caches. */
    public static LookupRuntime open(
            ParquetLookupConfig config, LookupSpec spec, MetricGroup metricGroup)
            throws IOException {
        return open(config, spec, metricGroup, TableOpener.DEFAULT);
    }

    /** Like {@link #open(ParquetLookupConfig, LookupSpec, MetricGroup)} with a given opener. */
    public static LookupRuntime open(
            ParquetLookupConfig config,
            LookupSpec spec,
            MetricGroup metricGroup,
            TableOpener opener)
            throws IOException {
        long openStart = System.nanoTime();
        SharedCaches.Lease caches =
                SharedCaches.acquire(
                        config.metadataCacheMaxBytes(), config.resolvedPageCacheMaxBytes());
        SharedCaches.StoreLease store =
                SharedCaches.fileStore(config.hadoopOptions(), config.get(LOCAL_FILES_MMAP));
        RefreshingTable table = null;
        SharedCaches.TierLease tier = null;
        TableWarmup warmup = null;
        try {
            if (config.async() && !TieredFileStore.isLocal(config.path())) {
                // The asynchronous client starts while the table opens, not at the first lookup.
                store.shared().prepareAsyncReads(config.path());
            }
            FileStore shared = store.store();
            TieredFileStore tiered = null;
            if (config.diskTier().enabled() && !TieredFileStore.isLocal(config.path())) {
                tier =
                        SharedCaches.diskTier(
                                config.diskTier().resolveDirectory(), config.diskTier().maxBytes());
                tiered = tier.tier().wrap(shared);
                shared = tiered;
            }
            LocalForms forms = localForms(config);
            table =
                    opener.open(
                            config.toTableConfig(caches.metadataCache(), caches.pageCache(), forms),
                            config.refreshOptions(),
                            shared);
            LookupRuntime runtime =
                    new LookupRuntime(config, spec, caches, store, table, metricGroup);
            if (forms != null) {
                LocalFormMetrics.register(metricGroup, forms);
            }
            if (tiered != null) {
                // In the background: the first lookup does not wait for it. It does not yield to
                // the lookups (TableWarmup can): measured at 10M rows, D = 20 ms, yielding kept
                // warm-up at one fetch while cold lookups had requests out, so the tier filled
                // slowly and the job stayed at S3 speed (first 5 s 143-995 events/s, next 5 s
                // 317-46,720) where full concurrency filled it in the first window (13,794 and
                // 268,504, 0.97 of the local file); docs/objectstore.md.
                warmup =
                        TableWarmup.start(
                                config.tableName(),
                                table,
                                tiered,
                                config.diskTier().warmup(),
                                DiskTierConfig.WARMUP_CONCURRENCY);
                runtime.tier = tier;
                runtime.warmup = warmup;
                DiskTierMetrics.register(metricGroup, tier.tier(), warmup);
            }
            LOG.info(
                    "Opened lookup table '{}' at {}: {} files, key {}, columns {}, in {} ms",
                    config.tableName(),
                    config.path(),
                    table.files().size(),
                    spec.normalizer().keyColumns(),
                    spec.projectedNames(),
                    (System.nanoTime() - openStart) / 1_000_000);
            return runtime;
        } catch (IOException | RuntimeException e) {
            if (warmup != null) {
                warmup.close();
            }
            closeQuietly(table);
            if (tier != null) {
                tier.close();
            }
            closeQuietly(store);
            caches.close();
            throw e;
        }
    }

    /** The TaskManager's local forms, or null when off or their directory cannot be made. */
    @Nullable
    private static LocalForms localForms(ParquetLookupConfig config) {
        try {
            return config.localForms();
        } catch (IOException | RuntimeException e) {
            LOG.warn(
                    "Table '{}': no local forms ('repage'), files with large pages are read as"
                            + " they are: {}",
                    config.tableName(),
                    e.toString());
            return null;
        }
    }

    /** The table's warm-up, or null without a disk tier; for tests and benchmarks. */
    @Nullable
    public TableWarmup warmup() {
        return warmup;
    }

    /**
     * The rows whose key equals {@code keyRow} (the planner's key row), retrying I/O failures up to
     * {@code lookup.max-retries} times.
     */
    public List<RowData> lookup(RowData keyRow) throws IOException {
        return lookup(spec.normalizer().normalize(keyRow), spec.residualValues(keyRow));
    }

    /**
     * Like {@link #lookup(RowData)} for a key already normalised (in the caller's thread, so the
     * planner may reuse its key row): {@code key} null or {@code residual} null match nothing.
     */
    public List<RowData> lookup(@Nullable Object[] key, @Nullable Object[] residual)
            throws IOException {
        if (key == null || residual == null) {
            metrics.recordLookup(0, 0);
            return Collections.emptyList();
        }
        for (int attempt = 0; ; attempt++) {
            long start = System.nanoTime();
            try {
                List<RowData> rows = convert(table.lookup(plan, key), residual);
                metrics.recordLookup(System.nanoTime() - start, rows.size());
                return rows;
            } catch (IOException | RuntimeException | InternalError e) {
                if (e instanceof InternalError internal
                        && !LookupFailures.isLostMappedPage(internal)) {
                    throw internal;
                }
                // An interrupt means the function is closing: do not retry.
                Throwable failure = giveUp(attempt, e, Thread.currentThread().isInterrupted());
                if (failure instanceof IOException io) {
                    throw io;
                } else if (failure != null) {
                    throw (RuntimeException) failure;
                }
                LookupFailures.backoff(attempt);
            }
        }
    }

    /**
     * What a failed attempt leads to: null to retry it (logged), else the failure to report
     * (counted). I/O failures are retried up to {@code lookup.max-retries} times, unless {@code
     * stop}. A memory-mapped file that lost a page (truncated or rewritten in place, an NFS file
     * dropped) makes the JVM raise InternalError in the reading thread, which Flink would treat as
     * fatal to the TaskManager: it is a failed read, reported without retry (the page stays lost),
     * and the restart opens the files again.
     */
    @Nullable
    private Throwable giveUp(int attempt, Throwable e, boolean stop) {
        Throwable failure;
        if (e instanceof InternalError internal && LookupFailures.isLostMappedPage(internal)) {
            failure = failures.lostMappedPage(internal);
        } else if (!(e instanceof IOException) && !(e instanceof UncheckedIOException)) {
            failure = e;
        } else if (attempt >= config.get(MAX_RETRIES) || stop) {
            failure = failures.failedAfter(attempt, e);
        } else {
            LOG.warn(
                    "Lookup in table '{}' failed (attempt {} of {}), retrying: {}",
                    config.tableName(),
                    attempt + 1,
                    config.get(MAX_RETRIES) + 1,
                    e.toString());
            return null;
        }
        metrics.recordFailure();
        return failure;
    }

    private List<RowData> convert(List<Object[]> found, Object[] residual) {
        if (found.isEmpty()) {
            return Collections.emptyList();
        }
        if (found.size() == 1) {
            // The common case of a unique key: no list to grow.
            Object[] values = found.get(0);
            return spec.matchesResidual(residual, values)
                    ? Collections.singletonList(converter.toRowData(values))
                    : Collections.emptyList();
        }
        List<RowData> rows = new ArrayList<>(found.size());
        for (Object[] values : found) {
            if (spec.matchesResidual(residual, values)) {
                rows.add(converter.toRowData(values));
            }
        }
        return rows;
    }

    // ---------------------------------------------------------------- asynchronous lookups

    /**
     * Like {@link #lookup(Object[], Object[])} without holding a thread while read requests are
     * out: on local or cached pages the returned future is already complete (no thread hand-off);
     * on remote files it completes in the thread that completes the last request. I/O failures are
     * retried up to {@code lookup.max-retries} times after a backoff on the JDK's delay scheduler.
     * Every future completes: {@link #close()} fails those still running.
     */
    public CompletableFuture<List<RowData>> lookupAsync(
            @Nullable Object[] key, @Nullable Object[] residual) {
        if (key == null || residual == null) {
            metrics.recordLookup(0, 0);
            return CompletableFuture.completedFuture(Collections.emptyList());
        }
        CompletableFuture<List<RowData>> result = new CompletableFuture<>();
        attemptAsync(key, residual, 0, result);
        if (!result.isDone()) {
            pending.add(result);
            result.whenComplete((rows, failure) -> pending.remove(result));
            if (closed) {
                result.completeExceptionally(closedError());
            }
        }
        return result;
    }

    private void attemptAsync(
            Object[] key, Object[] residual, int attempt, CompletableFuture<List<RowData>> result) {
        if (closed) {
            result.completeExceptionally(closedError());
            return;
        }
        long start = System.nanoTime();
        RefreshingTable.Lease lease;
        CompletableFuture<List<Object[]>> found;
        try {
            lease = table.acquire();
        } catch (RuntimeException e) {
            metrics.recordFailure();
            result.completeExceptionally(e);
            return;
        }
        try {
            found = lease.table().lookupAsync(plan, key, limiter);
        } catch (RuntimeException e) {
            found = CompletableFuture.failedFuture(e);
        }
        found.whenComplete(
                (values, failure) -> {
                    lease.close();
                    if (failure == null) {
                        try {
                            List<RowData> rows = convert(values, residual);
                            metrics.recordLookup(System.nanoTime() - start, rows.size());
                            result.complete(rows);
                        } catch (RuntimeException e) {
                            metrics.recordFailure();
                            result.completeExceptionally(e);
                        }
                        return;
                    }
                    Throwable error = giveUp(attempt, LookupFailures.unwrap(failure), closed);
                    if (error != null) {
                        result.completeExceptionally(error);
                        return;
                    }
                    CompletableFuture.delayedExecutor(
                                    LookupFailures.backoffMillis(attempt), TimeUnit.MILLISECONDS)
                            .execute(() -> attemptAsync(key, residual, attempt + 1, result));
                });
    }

    private RejectedExecutionException closedError() {
        return new RejectedExecutionException(
                "lookup function of table '"
                        + config.tableName()
                        + "' closed before the lookup ran");
    }

    /**
     * Closes the table; asynchronous lookups still running fail with a {@link
     * RejectedExecutionException} (their requests run to their end and release what they hold).
     */
    @Override
    public void close() throws IOException {
        closed = true;
        limiter.close();
        for (CompletableFuture<List<RowData>> future : List.copyOf(pending)) {
            future.completeExceptionally(closedError());
        }
        if (warmup != null) {
            warmup.close();
        }
        try {
            table.close();
        } finally {
            try {
                if (tier != null) {
                    tier.close();
                }
                store.close();
            } finally {
                caches.close();
            }
        }
    }

    private static void closeQuietly(@Nullable Closeable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("Ignoring failure to close {}", closeable, e);
            }
        }
    }
}
