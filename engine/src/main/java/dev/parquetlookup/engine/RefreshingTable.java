package dev.parquetlookup.engine;

import dev.parquetlookup.engine.SnapshotSource.Listing;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.ReadStatistics;
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
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
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

    /** What {@link #refresh()} did. */
    public enum RefreshResult {
        /** Nothing changed; the current snapshot stays. */
        UNCHANGED,
        /** A new snapshot was opened and is now served. */
        SWAPPED,
        /** The refresh failed; the last good snapshot stays (see {@link Status#lastError()}). */
        FAILED
    }

    /**
     * The state of a refreshing table, for metrics.
     *
     * @param version 1 for the first snapshot, +1 for each swap
     * @param publishedAtMillis when the current snapshot was swapped in (epoch milliseconds)
     * @param lastCheckMillis when the path was last listed successfully
     * @param location the directory the snapshot was opened from (the path in {@code all-files}
     *     mode, the chosen snapshot directory in {@code latest-success} mode, a table format's
     *     root)
     * @param fileCount files of the current snapshot
     * @param newestFileMillis the largest modification time among them
     * @param failedRefreshes refreshes that failed so far
     * @param lastError why the last refresh failed, or {@code null} if it succeeded
     * @param lastErrorMillis when it failed, or 0
     * @param sourceVersion the version as its source names it ({@link
     *     SnapshotSource.Listing#versionLabel()}: {@code "iceberg snapshot 4713"}, or the location
     *     of a directory)
     */
    public record Status(
            long version,
            long publishedAtMillis,
            long lastCheckMillis,
            String location,
            int fileCount,
            long newestFileMillis,
            long failedRefreshes,
            @Nullable String lastError,
            long lastErrorMillis,
            String sourceVersion) {

        /** How long the current snapshot has been served. */
        public long ageMillis(long nowMillis) {
            return Math.max(0, nowMillis - publishedAtMillis);
        }
    }

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

    @Nullable private final ScheduledExecutorService scheduler;
    // The scheduler's one thread, joined by close(): awaitTermination returns while the worker
    // is still exiting, and a task manager's leak check must not see it.
    @Nullable private volatile Thread refreshThread;

    /** The qualified parent path in {@code latest-success} mode, resolved at open. */
    private final SnapshotSource source;

    private volatile Snapshot current;
    private volatile long lastCheckMillis;
    private volatile long failedRefreshes;
    @Nullable private volatile String lastError;
    private volatile long lastErrorMillis;
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
        this.lastCheckMillis = first.publishedAtMillis;
        this.initialColumns = first.table.columns();
        this.initialSortKey = first.table.sortKey();
        if (options.refreshes()) {
            long millis = Math.max(1, options.interval().toMillis());
            scheduler =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "parquet-lookup-refresh " + config.path());
                                t.setDaemon(true);
                                refreshThread = t;
                                return t;
                            });
            scheduler.scheduleWithFixedDelay(
                    this::backgroundRefresh, millis, millis, TimeUnit.MILLISECONDS);
        } else {
            scheduler = null;
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
            Snapshot first = openSnapshot(config, store, statistics, listing, 1);
            RefreshingTable table =
                    new RefreshingTable(config, options, store, statistics, source, first);
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
    public void scan(LookupPlan plan, DimensionTable.RowConsumer consumer) throws IOException {
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
            return lease.table().plan(keyColumns, projectedColumns);
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
    public Status status() {
        Snapshot s = current;
        return new Status(
                s.version,
                s.publishedAtMillis,
                lastCheckMillis,
                s.location,
                s.files.size(),
                s.newestFileMillis,
                failedRefreshes,
                lastError,
                lastErrorMillis,
                s.sourceVersion);
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
        synchronized (refreshLock) {
            if (closed) {
                return RefreshResult.UNCHANGED;
            }
            Snapshot old = current;
            Snapshot next;
            try {
                Listing listing = source.list(old.location);
                lastCheckMillis = System.currentTimeMillis();
                if (listing.location().equals(old.location)
                        && listing.versionLabel().equals(old.sourceVersion)
                        && new HashSet<>(listing.files()).equals(old.files)) {
                    lastError = null;
                    return RefreshResult.UNCHANGED;
                }
                next = openSnapshot(config, store, statistics, listing, old.version + 1);
                next.onLastRelease = this::closeSnapshot;
                try {
                    checkFits(next);
                } catch (RuntimeException e) {
                    next.release();
                    throw e;
                }
            } catch (IOException | RuntimeException e) {
                failedRefreshes++;
                lastError = oneLine(e);
                lastErrorMillis = System.currentTimeMillis();
                LOG.warn(
                        "Refresh of {} failed; still serving version {} ({}, {} file(s) from {},"
                                + " published {} s ago){}: {}",
                        config.path(),
                        old.version,
                        old.sourceVersion,
                        old.files.size(),
                        old.location,
                        (System.currentTimeMillis() - old.publishedAtMillis) / 1000,
                        options.refreshes()
                                ? ", retrying in " + options.interval().toMillis() + " ms"
                                : "",
                        lastError);
                return RefreshResult.FAILED;
            }
            if (closed) {
                next.release();
                return RefreshResult.UNCHANGED;
            }
            live.add(next);
            current = next;
            lastError = null;
            Set<FileId> added = new HashSet<>(next.files);
            added.removeAll(old.files);
            Set<FileId> dropped = new HashSet<>(old.files);
            dropped.removeAll(next.files);
            LOG.info(
                    "Swapped {} to version {} ({}): {} file(s) from {} ({} new or changed, {}"
                            + " dropped)",
                    config.path(),
                    next.version,
                    next.sourceVersion,
                    next.files.size(),
                    next.location,
                    added.size(),
                    dropped.size());
            old.release();
            return RefreshResult.SWAPPED;
        }
    }

    private void backgroundRefresh() {
        try {
            refresh();
        } catch (Throwable t) {
            // An escaping exception would cancel the schedule: never let one out.
            LOG.warn("Background refresh of {} failed unexpectedly", config.path(), t);
        }
    }

    /** A new snapshot must answer every plan made on the first one. */
    private void checkFits(Snapshot next) {
        DimensionTable t = next.table;
        if (!t.sortKey().equals(initialSortKey)) {
            throw new LookupFileException(
                    "The files now at "
                            + next.location
                            + " are sorted by "
                            + t.sortKey()
                            + " but the table was opened sorted by "
                            + initialSortKey
                            + ". Keep the sort key when rewriting, or restart the job.");
        }
        TableSchema.Change change = TableSchema.firstChange(initialColumns, t.columns());
        if (change != null) {
            ColumnSchema column = change.before();
            ColumnSchema now = change.after();
            throw new LookupFileException(
                    "Column '"
                            + column.name()
                            + "' was "
                            + column.parquetType()
                            + " but the files now at "
                            + next.location
                            + (now == null ? " do not have it" : " have " + now.parquetType())
                            + ". Keep the columns and their types when rewriting, or restart"
                            + " the job.");
        }
    }

    private static String oneLine(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        Throwable cause = e.getCause();
        if (cause != null
                && cause.getMessage() != null
                && !s.toString().contains(cause.getMessage())) {
            s.append(" (caused by ").append(cause).append(')');
        }
        if (e.getMessage() == null) {
            s.setLength(0);
            s.append(e);
        }
        return s.toString().replace('\n', ' ');
    }

    // ------------------------------------------------------------------ snapshots

    private static Snapshot openSnapshot(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Listing listing,
            long version)
            throws IOException {
        TableConfig snapshotConfig = config.withPath(listing.location());
        if (snapshotConfig.sortKey().isEmpty() && !listing.sortKey().isEmpty()) {
            // The format's declared order (an Iceberg sort order), verified like a configured key.
            snapshotConfig =
                    new TableConfig(
                            snapshotConfig.path(),
                            listing.sortKey(),
                            snapshotConfig.hadoopOptions(),
                            snapshotConfig.metadataCache(),
                            snapshotConfig.pageCache(),
                            snapshotConfig.mapLocalFiles(),
                            snapshotConfig.synthesizePageIndex());
        }
        DimensionTable table =
                DimensionTable.open(
                        snapshotConfig,
                        new SnapshotStore(store, listing),
                        statistics,
                        listing.deletedRows());
        return new Snapshot(
                table,
                version,
                listing.location(),
                listing.versionLabel(),
                config.metadataCache(),
                config.pageCache());
    }

    private void closeSnapshot(Snapshot s) {
        try {
            s.table.close();
        } catch (IOException | RuntimeException e) {
            LOG.warn("Closing version {} of {} failed: {}", s.version, config.path(), e.toString());
        }
        live.remove(s);
        if (closed && live.isEmpty()) {
            closeStore();
        }
        // A refresh drops files: their entries leave the caches. Closing the table does not: the
        // files are still there, and the next table on them (a restart, the runtime after
        // planning) reuses what was parsed; the caches' byte bounds evict the unused.
        int dropped = s.releaseFiles(!closed);
        LOG.debug(
                "Closed version {} of {}; released the cached metadata of {} file(s)",
                s.version,
                config.path(),
                dropped);
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

    /**
     * The store as one snapshot sees it: the listing already made (so the snapshot is exactly what
     * was compared), and closing it leaves the shared store open.
     */
    private static final class SnapshotStore extends ForwardingFileStore {
        private final Listing listing;

        SnapshotStore(FileStore delegate, Listing listing) {
            super(delegate);
            this.listing = listing;
        }

        @Override
        public List<FileId> list(String path) throws IOException {
            return path.equals(listing.location()) ? listing.files() : super.list(path);
        }

        @Override
        public void close() {}
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
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                if (scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
                    Thread t = refreshThread;
                    if (t != null) {
                        t.join(TimeUnit.SECONDS.toMillis(10));
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
