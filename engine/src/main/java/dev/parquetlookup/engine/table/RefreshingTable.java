package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.RowConsumer;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.SnapshotSource.Listing;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RetryingFileStore;
import dev.parquetlookup.metadata.LookupFileException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A dimension table that follows its path: it serves one immutable {@link DimensionTable} snapshot
 * at a time and, every {@link RefreshOptions#interval()}, lists the path again on one background
 * daemon thread; when the file set or any file's length or modification time changed it opens a new
 * snapshot (unchanged files take their metadata from the metadata cache) and swaps it in.
 *
 * <p>Consistency: each lookup {@linkplain #acquire() acquires} the current snapshot for its whole
 * duration, so lookups in flight finish on the snapshot they started with and one result never
 * mixes two versions. Snapshots are reference counted; the old one is closed when its last lookup
 * releases it, and then the metadata and pages of files no open snapshot (of any table sharing the
 * caches) uses any more are dropped from the caches.
 *
 * <p>Failures: a refresh that fails (listing error, half-written or invalid file, a schema that no
 * longer fits, no complete snapshot directory) keeps serving the last good snapshot, logs one WARN
 * line saying why, and is retried at the next interval. {@link #status()} exposes the snapshot's
 * version and age and the last error, for metrics.
 *
 * <pre>{@code
 * RefreshOptions refresh = RefreshOptions.defaults().withInterval(Duration.ofMinutes(1));
 * try (RefreshingTable table = RefreshingTable.open(TableConfig.builder("s3a://b/dim/").build(), refresh)) {
 *     LookupPlan plan = table.plan(List.of("id"), List.of("name"));
 *     List<Object[]> rows = table.lookup(plan, new Object[] {42L});
 * }
 * }</pre>
 */
public final class RefreshingTable implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(RefreshingTable.class);

    private final TableConfig config;
    private final RefreshOptions options;
    private final FileStore store;
    private final ReadStatistics statistics;
    private final AtomicBoolean storeClosed = new AtomicBoolean();
    private final List<ColumnSchema> initialColumns;
    private final List<String> initialSortKey;

    /** Snapshots not closed yet (the current one and those still used by lookups). */
    private final Set<Snapshot> live = ConcurrentHashMap.newKeySet();

    /** Serialises refreshes (the background one and explicit calls). */
    private final Object refreshLock = new Object();

    @Nullable private final RefreshSchedule schedule;

    /** The qualified parent path in {@code latest-success} mode, resolved at open. */
    private final SnapshotSource source;

    private final RefreshHistory history;

    /** Stops hearing of local forms becoming ready, or null without local forms. */
    @Nullable private final AutoCloseable localFormsListener;

    /** Plans on secondary keys made so far: each new snapshot starts their index builds. */
    private final Set<LookupPlan> secondaryPlans = ConcurrentHashMap.newKeySet();

    private volatile Snapshot current;
    private volatile boolean closed;

    private RefreshingTable(
            TableConfig config,
            RefreshOptions options,
            FileStore store,
            ReadStatistics statistics,
            SnapshotSource source,
            Snapshot first) {
        this.config = config;
        this.options = options;
        this.store = store;
        this.statistics = statistics;
        this.source = source;
        this.current = first;
        first.onLastRelease = this::closeSnapshot;
        this.live.add(first);
        this.history = new RefreshHistory(config.path(), first.publishedAtMillis);
        this.initialColumns = first.table.columns();
        this.initialSortKey = first.table.sortKey();
        this.schedule =
                options.refreshes()
                        ? new RefreshSchedule(config.path(), options.interval(), this::refresh)
                        : null;
        this.localFormsListener =
                config.localForms() == null
                        ? null
                        : config.localForms().onReady(this::localFormReady);
    }

    /**
     * A file of the current snapshot got its local form (on the local forms' background thread): a
     * new snapshot of the same files opens it; lookups in flight finish on the old one.
     */
    private void localFormReady(FileId file) {
        Snapshot s = current;
        if (!closed && s != null && s.listed.contains(file)) {
            LOG.info("Reopening {}: the local form of {} is ready", config.path(), file);
            refresh(true);
        }
    }

    /**
     * Opens the first snapshot over a Hadoop store for {@code config}'s options whose reads and
     * listings retry transient failures with {@code options.retryPolicy()}.
     *
     * @throws LookupFileException if the first snapshot cannot serve lookups
     * @throws IOException if the path cannot be listed or read
     */
    public static RefreshingTable open(TableConfig config, RefreshOptions options)
            throws IOException {
        return open(
                config,
                options,
                new RetryingFileStore(
                        HadoopFileStore.create(config.hadoopOptions(), config.mapLocalFiles()),
                        options.retryPolicy()));
    }

    /**
     * Like {@link #open(TableConfig, RefreshOptions)} over a given store, which the table closes.
     */
    public static RefreshingTable open(TableConfig config, RefreshOptions options, FileStore store)
            throws IOException {
        try {
            SnapshotSource source =
                    SnapshotSource.forOptions(
                            config.path(), config.hadoopOptions(), options, store);
            ReadStatistics statistics = new ReadStatistics();
            Listing listing = source.list(null);
            Snapshot first = SnapshotStore.open(config, store, statistics, listing, 1);
            RefreshingTable table =
                    new RefreshingTable(config, options, store, statistics, source, first);
            KeyIndexes.shared().tidy(config.indexDirectoryOrDefault());
            LOG.info(
                    "Serving version 1 of {} ({}): {} file(s) from {}{}",
                    config.path(),
                    listing.versionLabel(),
                    first.files.size(),
                    listing.location(),
                    options.refreshes() ? ", refreshed every " + options.interval() : "");
            return table;
        } catch (IOException | RuntimeException e) {
            try {
                store.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ lookups

    /**
     * Takes the current snapshot for the duration of one lookup (or several that must agree). Close
     * the lease to release it.
     *
     * @throws IllegalStateException if the table is closed
     */
    public Lease acquire() {
        while (true) {
            Snapshot s = current;
            if (closed || s == null) {
                throw new IllegalStateException("Table " + config.path() + " is closed");
            }
            if (s.tryRetain()) {
                return new Lease(s);
            }
            // Lost a race with a swap that closed s: read the new current one.
        }
    }

    /** {@link DimensionTable#lookup} on the current snapshot. */
    public List<Object[]> lookup(LookupPlan plan, Object[] key) throws IOException {
        try (Lease lease = acquire()) {
            return lease.table().lookup(plan, key);
        }
    }

    /** {@link DimensionTable#scan} of the current snapshot. */
    public void scan(LookupPlan plan, RowConsumer consumer) throws IOException {
        try (Lease lease = acquire()) {
            lease.table().scan(plan, consumer);
        }
    }

    /**
     * {@link DimensionTable#plan} on the current snapshot. A plan stays valid across refreshes: a
     * snapshot whose columns or sort key no longer match the first one is refused.
     */
    public LookupPlan plan(List<String> keyColumns, List<String> projectedColumns) {
        try (Lease lease = acquire()) {
            LookupPlan plan = lease.table().plan(keyColumns, projectedColumns);
            if (plan.secondary()) {
                secondaryPlans.add(plan); // later snapshots start their index builds at once
            }
            return plan;
        }
    }

    /** Columns of the first snapshot (later ones have them too, with the same types). */
    public List<ColumnSchema> columns() {
        return initialColumns;
    }

    /** The sort key, the same for every snapshot. */
    public List<String> sortKey() {
        return initialSortKey;
    }

    /** The files of the current snapshot. */
    public List<FileId> files() {
        try (Lease lease = acquire()) {
            return lease.table().files();
        }
    }

    /** The configured path. */
    public String path() {
        return config.path();
    }

    /** Bytes and read requests of every snapshot so far, metadata reads included. */
    public ReadStatistics readStatistics() {
        return statistics;
    }

    /** Version, age and last error of the current snapshot. */
    public RefreshStatus status() {
        return history.status(current);
    }

    /** Snapshots not yet closed: the current one plus those still used by lookups; for tests. */
    int liveSnapshots() {
        return live.size();
    }

    // ------------------------------------------------------------------ refresh

    /**
     * Lists the path now and swaps in a new snapshot if anything changed. Runs at most one refresh
     * at a time; the background task calls this every interval.
     */
    public RefreshResult refresh() {
        return refresh(false);
    }

    /** {@link #refresh()}; with {@code reopen}, a new snapshot even of unchanged files. */
    private RefreshResult refresh(boolean reopen) {
        synchronized (refreshLock) {
            if (closed) {
                return RefreshResult.UNCHANGED;
            }
            KeyIndexes.shared().tidy(config.indexDirectoryOrDefault()); // at most hourly
            Snapshot old = current;
            Snapshot next;
            try {
                Listing listing = source.list(old.location);
                history.listed();
                if (!reopen
                        && listing.location().equals(old.location)
                        && listing.versionLabel().equals(old.sourceVersion)
                        && new HashSet<>(listing.files()).equals(old.listed)) {
                    history.succeeded();
                    return RefreshResult.UNCHANGED;
                }
                next = SnapshotStore.open(config, store, statistics, listing, old.version + 1);
                next.onLastRelease = this::closeSnapshot;
                try {
                    SchemaFit.check(initialSortKey, initialColumns, next.table, next.location);
                } catch (RuntimeException e) {
                    next.release();
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                history.failed(e, old, options);
                return RefreshResult.FAILED;
            }
            if (closed) {
                next.release();
                return RefreshResult.UNCHANGED;
            }
            for (LookupPlan plan : secondaryPlans) {
                try {
                    // New files' key indexes build in the background before lookups need them;
                    // unchanged files keep theirs.
                    next.table.prepare(plan);
                } catch (RuntimeException e) {
                    LOG.warn(
                            "Version {} of {}: cannot index {} ({}); its lookups will say why",
                            next.version,
                            config.path(),
                            plan.keyColumns(),
                            e.toString());
                }
            }
            live.add(next);
            current = next;
            history.swapped(old, next);
            old.release();
            return RefreshResult.SWAPPED;
        }
    }

    // ------------------------------------------------------------------ snapshots

    private void closeSnapshot(Snapshot s) {
        try {
            s.table.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Closing version {} of {} failed: {}", s.version, config.path(), e.toString());
        }
        // A refresh drops files: their entries leave the caches once no table uses them, and their
        // key indexes and local forms the disk (an index another table of the JVM holds goes when
        // it lets go). Closing the table does not: the files are still there, and the next table
        // on them (a restart, the runtime after planning) reuses what was parsed and indexed; the
        // caches' byte bounds evict the unused, the index sweep deletes what no process used for a
        // day. Files go only with a version that was served (one a refresh refused never was) and
        // only those the newest version no longer has.
        Set<FileId> dropped = s.releaseFiles(!closed);
        Snapshot newest = current;
        int indexes = 0;
        if (live.contains(s) && newest != s) {
            indexes = KeyIndexes.shared().discard(minus(s.files, newest.files));
            if (config.localForms() != null) {
                config.localForms().discard(minus(s.listed, newest.listed));
            }
        }
        // Only then is the version gone: whoever sees it gone sees its files released too.
        live.remove(s);
        if (closed && live.isEmpty()) {
            closeStore();
        }
        LOG.debug(
                "Closed version {} of {}; released the cached metadata of {} file(s), deleted {}"
                        + " key index file(s)",
                s.version,
                config.path(),
                dropped.size(),
                indexes);
    }

    private static Set<FileId> minus(Set<FileId> files, Set<FileId> kept) {
        Set<FileId> gone = new HashSet<>(files);
        gone.removeAll(kept);
        return gone;
    }

    /**
     * One snapshot taken for a lookup; {@link #close()} releases it (idempotent).
     *
     * <pre>{@code
     * try (RefreshingTable.Lease lease = table.acquire()) {
     *     rows = lease.table().lookup(plan, key);
     * }
     * }</pre>
     */
    public final class Lease implements AutoCloseable {
        private final Snapshot snapshot;
        private final AtomicBoolean released = new AtomicBoolean();

        private Lease(Snapshot snapshot) {
            this.snapshot = snapshot;
        }

        /** The snapshot, valid until this lease is closed. */
        public DimensionTable table() {
            return snapshot.table;
        }

        /** The version as its source names it ({@code "iceberg snapshot 4713"}, a directory). */
        public String sourceVersion() {
            return snapshot.sourceVersion;
        }

        /** The snapshot's version (1, 2, ...). */
        public long version() {
            return snapshot.version;
        }

        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                snapshot.release();
            }
        }
    }

    // ------------------------------------------------------------------ close

    /** Stops the background refresh and releases the current snapshot. */
    @Override
    public void close() throws IOException {
        Snapshot last;
        synchronized (refreshLock) {
            if (closed) {
                return;
            }
            closed = true;
            last = current;
        }
        if (schedule != null) {
            schedule.stop();
        }
        if (localFormsListener != null) {
            try {
                localFormsListener.close();
            } catch (Exception e) {
                LOG.warn(
                        "Unregistering {} from local forms failed: {}",
                        config.path(),
                        e.toString());
            }
        }
        // The store closes with the last snapshot, after lookups still running on older ones.
        last.release();
    }

    private void closeStore() {
        if (storeClosed.compareAndSet(false, true)) {
            try {
                store.close();
            } catch (IOException | RuntimeException e) {
                LOG.warn("Closing the file store of {} failed: {}", config.path(), e.toString());
            }
        }
    }

    @Override
    public String toString() {
        Snapshot s = current;
        return "RefreshingTable{"
                + config.path()
                + ", version "
                + s.version
                + ", "
                + s.files.size()
                + " files from "
                + s.location
                + "}";
    }

    /** Interval of the background refresh, or {@code null}. */
    @Nullable
    public Duration interval() {
        return options.interval();
    }
}
