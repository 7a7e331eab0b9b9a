package dev.parquetlookup.engine;

import dev.parquetlookup.engine.RefreshOptions.SnapshotMode;
import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.ReadStatistics;
import dev.parquetlookup.io.RetryingFileStore;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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
     *     mode, the chosen snapshot directory in {@code latest-success} mode)
     * @param fileCount files of the current snapshot
     * @param newestFileMillis the largest modification time among them
     * @param failedRefreshes refreshes that failed so far
     * @param lastError why the last refresh failed, or {@code null} if it succeeded
     * @param lastErrorMillis when it failed, or 0
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
            long lastErrorMillis) {

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

    /** The qualified parent path in {@code latest-success} mode, resolved at open. */
    @Nullable private final String qualifiedParent;

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
            @Nullable String qualifiedParent,
            Snapshot first) {
        this.config = config;
        this.options = options;
        this.store = store;
        this.statistics = statistics;
        this.qualifiedParent = qualifiedParent;
        this.current = first;
        first.owner = this;
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
            String parent = null;
            if (options.snapshotMode() == SnapshotMode.LATEST_SUCCESS) {
                try {
                    parent = trimSlash(store.stat(config.path()).path());
                } catch (FileNotFoundException e) {
                    throw new LookupFileException(
                            "Path " + config.path() + " does not exist. Check the table's 'path'.",
                            e);
                }
            }
            ReadStatistics statistics = new ReadStatistics();
            Listing listing = list(config, options, store, parent, null);
            Snapshot first = openSnapshot(config, store, statistics, listing, 1);
            RefreshingTable table =
                    new RefreshingTable(config, options, store, statistics, parent, first);
            LOG.info(
                    "Serving version 1 of {}: {} file(s) from {}{}",
                    config.path(),
                    first.files.size(),
                    listing.location,
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
                lastErrorMillis);
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
                Listing listing = list(config, options, store, qualifiedParent, old);
                lastCheckMillis = System.currentTimeMillis();
                if (listing.location.equals(old.location)
                        && new HashSet<>(listing.files).equals(old.files)) {
                    lastError = null;
                    return RefreshResult.UNCHANGED;
                }
                next = openSnapshot(config, store, statistics, listing, old.version + 1);
                next.owner = this;
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
                        "Refresh of {} failed; still serving version {} ({} file(s) from {},"
                                + " published {} s ago){}: {}",
                        config.path(),
                        old.version,
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
                    "Swapped {} to version {}: {} file(s) from {} ({} new or changed, {} dropped)",
                    config.path(),
                    next.version,
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
        for (ColumnSchema column : initialColumns) {
            ColumnSchema now =
                    t.columns().stream()
                            .filter(c -> c.name().equals(column.name()))
                            .findFirst()
                            .orElse(null);
            if (now == null || !now.type().equals(column.type())) {
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

    // ------------------------------------------------------------------ listing

    /** What one listing found: the directory the table is read from and its files. */
    private record Listing(String location, List<FileId> files) {}

    private static Listing list(
            TableConfig config,
            RefreshOptions options,
            FileStore store,
            @Nullable String qualifiedParent,
            @Nullable Snapshot current)
            throws IOException {
        List<FileId> files;
        try {
            files = store.list(config.path());
        } catch (FileNotFoundException e) {
            throw new LookupFileException(
                    "Path " + config.path() + " does not exist. Check the table's 'path'.", e);
        }
        if (options.snapshotMode() == SnapshotMode.ALL_FILES) {
            if (files.isEmpty()) {
                throw new LookupFileException(
                        "Path "
                                + config.path()
                                + " holds no Parquet files (hidden and '_' files are skipped)."
                                + " Check the table's 'path'.");
            }
            return new Listing(config.path(), files);
        }
        // latest-success: group the files by the directory right below the parent.
        String prefix = qualifiedParent + "/";
        TreeMap<String, List<FileId>> byDirectory = new TreeMap<>(NaturalOrder.INSTANCE);
        for (FileId f : files) {
            if (!f.path().startsWith(prefix)) {
                continue;
            }
            String rest = f.path().substring(prefix.length());
            int slash = rest.indexOf('/');
            if (slash > 0) {
                byDirectory
                        .computeIfAbsent(rest.substring(0, slash), d -> new ArrayList<>())
                        .add(f);
            }
        }
        List<String> incomplete = new ArrayList<>();
        for (Map.Entry<String, List<FileId>> e : byDirectory.descendingMap().entrySet()) {
            String directory = prefix + e.getKey();
            if (current != null && current.location.equals(directory)) {
                return new Listing(directory, e.getValue()); // known complete
            }
            try {
                store.stat(directory + "/" + RefreshOptions.SUCCESS_MARKER);
            } catch (FileNotFoundException notYet) {
                incomplete.add(e.getKey());
                continue;
            }
            // Listed again after the marker was seen: the parent's listing may predate files
            // written just before the marker.
            return new Listing(directory, store.list(directory));
        }
        throw new LookupFileException(
                "No complete snapshot directory under "
                        + config.path()
                        + ": path.snapshot-mode 'latest-success' serves the newest subdirectory"
                        + " holding a "
                        + RefreshOptions.SUCCESS_MARKER
                        + " file, and "
                        + (incomplete.isEmpty()
                                ? "there is no subdirectory with Parquet files"
                                : "none of " + incomplete + " has one")
                        + ". Write the marker last when publishing a snapshot.");
    }

    private static String trimSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    // ------------------------------------------------------------------ snapshots

    private static Snapshot openSnapshot(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Listing listing,
            long version)
            throws IOException {
        TableConfig snapshotConfig =
                listing.location.equals(config.path())
                        ? config
                        : new TableConfig(
                                listing.location,
                                config.sortKey(),
                                config.hadoopOptions(),
                                config.metadataCache(),
                                config.pageCache(),
                                config.mapLocalFiles(),
                                config.synthesizePageIndex());
        DimensionTable table =
                DimensionTable.open(snapshotConfig, new SnapshotStore(store, statistics, listing));
        return new Snapshot(
                table, version, listing.location, config.metadataCache(), config.pageCache());
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
     * How many open snapshots, of any table in this JVM (class loader), use each file version with
     * each cache. The caches are shared by every lookup function of a job in a TaskManager, and
     * each function refreshes its own table: a file's entries leave a cache only when the last
     * snapshot using it with that cache closes. Entries are removed at zero, so the map holds only
     * files of open snapshots. A refresh that has just taken such a file from the cache but not yet
     * registered its snapshot keeps its own reference; the cache merely loses the entry.
     */
    private static final ConcurrentHashMap<FileUse, Integer> FILE_USES = new ConcurrentHashMap<>();

    /** A file version used with one metadata cache and page cache (both compared by identity). */
    private record FileUse(
            MetadataCache metadataCache, @Nullable PageCache pageCache, FileId file) {}

    /** One immutable snapshot with its reference count (1 while it is the current one). */
    private static final class Snapshot {
        final DimensionTable table;
        final long version;
        final String location;
        final Set<FileId> files;
        final long newestFileMillis;
        final long publishedAtMillis = System.currentTimeMillis();
        private final AtomicInteger references = new AtomicInteger(1);

        /** Set once the snapshot belongs to a table; without one, closing only closes the files. */
        @Nullable volatile RefreshingTable owner;

        private final MetadataCache metadataCache;
        @Nullable private final PageCache pageCache;

        Snapshot(
                DimensionTable table,
                long version,
                String location,
                MetadataCache metadataCache,
                @Nullable PageCache pageCache) {
            this.table = table;
            this.version = version;
            this.location = location;
            this.metadataCache = metadataCache;
            this.pageCache = pageCache;
            this.files = Set.copyOf(table.files());
            for (FileId f : files) {
                FILE_USES.merge(new FileUse(metadataCache, pageCache, f), 1, Integer::sum);
            }
            long newest = 0;
            for (FileId f : files) {
                newest = Math.max(newest, f.modificationTime());
            }
            this.newestFileMillis = newest;
        }

        /**
         * Drops this snapshot's use of its files; with {@code invalidate}, the entries of files
         * nothing else uses leave the caches. Returns how many left.
         */
        int releaseFiles(boolean invalidate) {
            int dropped = 0;
            for (FileId f : files) {
                boolean last =
                        FILE_USES.compute(
                                        new FileUse(metadataCache, pageCache, f),
                                        (k, n) -> n == null || n <= 1 ? null : n - 1)
                                == null;
                if (last && invalidate) {
                    metadataCache.invalidate(f);
                    if (pageCache != null) {
                        pageCache.invalidate(f);
                    }
                    dropped++;
                }
            }
            return dropped;
        }

        boolean tryRetain() {
            while (true) {
                int n = references.get();
                if (n <= 0) {
                    return false;
                }
                if (references.compareAndSet(n, n + 1)) {
                    return true;
                }
            }
        }

        void release() {
            int n = references.decrementAndGet();
            if (n == 0) {
                RefreshingTable t = owner;
                if (t != null) {
                    t.closeSnapshot(this);
                } else {
                    try {
                        table.close();
                    } catch (IOException | RuntimeException e) {
                        LOG.warn("Closing an unused snapshot failed: {}", e.toString());
                    }
                    releaseFiles(true);
                }
            } else if (n < 0) {
                throw new IllegalStateException("snapshot released more often than acquired");
            }
        }
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
     * was compared), sources counted into the table's statistics, and closing it leaves the shared
     * store open.
     */
    private static final class SnapshotStore extends ForwardingFileStore {
        private final ReadStatistics statistics;
        private final Listing listing;

        SnapshotStore(FileStore delegate, ReadStatistics statistics, Listing listing) {
            super(delegate);
            this.statistics = statistics;
            this.listing = listing;
        }

        @Override
        public List<FileId> list(String path) throws IOException {
            return path.equals(listing.location) ? listing.files : super.list(path);
        }

        @Override
        public RangeSource open(FileId file) throws IOException {
            return new CountingRangeSource(super.open(file), statistics);
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
                scheduler.awaitTermination(10, TimeUnit.SECONDS);
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
