package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.disk.DiskTier;
import dev.parquetlookup.metadata.MetadataCache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The metadata and page caches shared by every lookup function of a job in one TaskManager JVM,
 * reference counted like Flink's {@code LookupCacheManager}: the first function to open creates a
 * cache, the others reuse the footers and page indexes it parsed, and the cache is dropped when the
 * last function closes.
 *
 * <p>The registry is static state of this class, so it is per class loader: with the connector in
 * the job's jar it is shared by the job's functions in a TaskManager; with the connector in Flink's
 * {@code lib/} it is shared by every job there. Caches are keyed by their byte bound, so tables
 * configured with the same bound share one cache.
 *
 * <pre>{@code
 * try (SharedCaches.Lease lease = SharedCaches.acquire(256 << 20, 0)) {
 *     DimensionTable table = DimensionTable.open(config.toTableConfig(lease.metadataCache(), lease.pageCache()));
 * }
 * }</pre>
 */
public final class SharedCaches {

    private static final Logger LOG = LoggerFactory.getLogger(SharedCaches.class);

    /** Guards the maps below; held only while acquiring or releasing, never during a lookup. */
    private static final Object LOCK = new Object();

    private static final Map<Long, Counted<MetadataCache>> METADATA = new HashMap<>();
    private static final Map<Long, Counted<PageCache>> PAGES = new HashMap<>();
    private static final Map<StoreKey, Counted<HadoopFileStore>> STORES = new HashMap<>();
    private static final Map<TierKey, Counted<DiskTier>> TIERS = new HashMap<>();

    /**
     * How long a file store with a remote file system (an S3A client, its pools, its asynchronous
     * client) stays open after its last lease is released: a job restarted, the next job or the
     * lookup functions of a job just planned in this JVM take it over instead of starting new
     * clients (0.3-1 s each, on the path to the first enriched row). Closed on a daemon thread.
     */
    static final long STORE_LINGER_MILLIS = 60_000;

    /** Closes lingering stores; its one thread ends when idle. */
    @Nullable private static ScheduledThreadPoolExecutor lingerCloser;

    /**
     * Planning-time caches, one per bound, kept for the life of the JVM (see {@link #forPlanning}).
     */
    private static final Map<Long, MetadataCache> PLANNING = new HashMap<>();

    private SharedCaches() {}

    /**
     * The metadata cache used while planning (opening the files to check the declaration, sampling
     * keys for the shuffle hint), one per bound, never released: planning has no close hook, and
     * every table planned in the client JVM reuses the footers parsed for it instead of parsing
     * them again per step or per query. Bounded like any metadata cache.
     */
    public static MetadataCache forPlanning(long metadataMaxBytes) {
        synchronized (LOCK) {
            return PLANNING.computeIfAbsent(metadataMaxBytes, MetadataCache::new);
        }
    }

    /**
     * The file store planning reads the files through: the shared store of these options (see
     * {@link #fileStore}), whose view closes the lease when the planning table closes it. A store
     * with a remote file system lingers after that ({@link #STORE_LINGER_MILLIS}), so planning
     * neither waits for S3A to shut down nor makes the lookup functions start it again.
     */
    public static FileStore planningStore(
            Map<String, String> hadoopOptions, boolean mapLocalFiles) {
        StoreLease lease = fileStore(hadoopOptions, mapLocalFiles);
        return new ForwardingFileStore(lease.shared) {
            @Override
            public void close() throws IOException {
                lease.close();
            }
        };
    }

    /**
     * Takes a reference to the shared metadata cache of {@code metadataMaxBytes} and, if {@code
     * pageMaxBytes > 0}, to the shared page cache of that bound.
     */
    public static Lease acquire(long metadataMaxBytes, long pageMaxBytes) {
        synchronized (LOCK) {
            MetadataCache metadata =
                    METADATA.computeIfAbsent(
                                    metadataMaxBytes,
                                    bytes -> {
                                        LOG.info(
                                                "Creating shared metadata cache of {} bytes",
                                                bytes);
                                        return new Counted<>(new MetadataCache(bytes));
                                    })
                            .retain();
            PageCache pages = null;
            if (pageMaxBytes > 0) {
                pages =
                        PAGES.computeIfAbsent(
                                        pageMaxBytes,
                                        bytes -> {
                                            LOG.info(
                                                    "Creating shared page cache of {} bytes",
                                                    bytes);
                                            return new Counted<>(new PageCache(bytes));
                                        })
                                .retain();
            }
            return new Lease(metadataMaxBytes, metadata, pageMaxBytes, pages);
        }
    }

    /**
     * Takes a reference to the shared file store of these Hadoop options: lookup functions of one
     * TaskManager then share one file system instance per scheme (one S3A client, its connection
     * and thread pools) instead of one each. The store is closed when the last reference goes.
     */
    public static StoreLease fileStore(Map<String, String> hadoopOptions, boolean mapLocalFiles) {
        StoreKey key = new StoreKey(new TreeMap<>(hadoopOptions), mapLocalFiles);
        synchronized (LOCK) {
            HadoopFileStore store =
                    STORES.computeIfAbsent(
                                    key,
                                    k ->
                                            new Counted<>(
                                                    HadoopFileStore.create(
                                                            k.hadoopOptions(), k.mapLocalFiles())))
                            .retain();
            return new StoreLease(key, store);
        }
    }

    /**
     * Takes a reference to the TaskManager's disk tier of remote files below {@code baseDirectory}
     * with bound {@code maxBytes}, creating it (a fresh directory) on first use; the last release
     * closes it and deletes its directory. Tables configured alike share one tier.
     */
    public static TierLease diskTier(Path baseDirectory, long maxBytes) throws IOException {
        TierKey key = new TierKey(baseDirectory.toAbsolutePath().normalize(), maxBytes);
        synchronized (LOCK) {
            Counted<DiskTier> counted = TIERS.get(key);
            if (counted == null) {
                counted = new Counted<>(DiskTier.create(key.directory(), key.maxBytes()));
                TIERS.put(key, counted);
            }
            return new TierLease(key, counted.retain());
        }
    }

    private record TierKey(Path directory, long maxBytes) {}

    /** A reference to a shared disk tier; closing it releases the reference, once. */
    public static final class TierLease implements AutoCloseable {
        private final TierKey key;
        private final DiskTier tier;
        private boolean closed;

        private TierLease(TierKey key, DiskTier tier) {
            this.key = key;
            this.tier = tier;
        }

        public DiskTier tier() {
            return tier;
        }

        @Override
        public void close() {
            DiskTier toClose = null;
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                Counted<DiskTier> counted = TIERS.get(key);
                if (counted != null && --counted.references == 0) {
                    TIERS.remove(key);
                    toClose = counted.value;
                }
            }
            if (toClose != null) {
                toClose.close();
            }
        }
    }

    /** How many leases hold the metadata cache of that bound (0 when none exists); for tests. */
    static int references(long metadataMaxBytes) {
        synchronized (LOCK) {
            Counted<MetadataCache> counted = METADATA.get(metadataMaxBytes);
            return counted == null ? 0 : counted.references;
        }
    }

    private static <T> void release(Map<Long, Counted<T>> map, long key, String what) {
        Counted<T> counted = map.get(key);
        if (counted != null && --counted.references == 0) {
            map.remove(key);
            LOG.info("Released shared {} cache of {} bytes", what, key);
        }
    }

    /** A reference to the shared caches; closing it releases the reference, once. */
    public static final class Lease implements AutoCloseable {
        private final long metadataKey;
        private final MetadataCache metadataCache;
        private final long pageKey;
        @Nullable private final PageCache pageCache;
        private boolean closed;

        private Lease(
                long metadataKey,
                MetadataCache metadataCache,
                long pageKey,
                @Nullable PageCache pageCache) {
            this.metadataKey = metadataKey;
            this.metadataCache = metadataCache;
            this.pageKey = pageKey;
            this.pageCache = pageCache;
        }

        public MetadataCache metadataCache() {
            return metadataCache;
        }

        @Nullable
        public PageCache pageCache() {
            return pageCache;
        }

        @Override
        public void close() {
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                release(METADATA, metadataKey, "metadata");
                if (pageCache != null) {
                    release(PAGES, pageKey, "page");
                }
            }
        }
    }

    private record StoreKey(Map<String, String> hadoopOptions, boolean mapLocalFiles) {}

    /**
     * A reference to a shared file store. {@link #store()} is a view whose {@code close()} does
     * nothing (tables close the store they are given); closing the lease releases the reference,
     * once, and the last release closes the file systems.
     */
    public static final class StoreLease implements java.io.Closeable {
        private final StoreKey key;
        private final HadoopFileStore shared;
        private final FileStore view;
        private boolean closed;

        private StoreLease(StoreKey key, HadoopFileStore shared) {
            this.key = key;
            this.shared = shared;
            this.view =
                    new ForwardingFileStore(shared) {
                        @Override
                        public void close() {}
                    };
        }

        public FileStore store() {
            return view;
        }

        /** The shared store itself; for tests. */
        HadoopFileStore shared() {
            return shared;
        }

        @Override
        public void close() throws IOException {
            HadoopFileStore toClose = null;
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                Counted<HadoopFileStore> counted = STORES.get(key);
                if (counted != null && --counted.references == 0) {
                    if (counted.value.hasRemoteFileSystem()) {
                        lingerThenClose(key, counted);
                    } else {
                        STORES.remove(key);
                        toClose = counted.value;
                    }
                }
            }
            if (toClose != null) {
                toClose.close(); // outside the lock: closing S3A waits for its pools
            }
        }
    }

    /** Under LOCK: closes the store if no lease took it again within the linger time. */
    private static void lingerThenClose(StoreKey key, Counted<HadoopFileStore> counted) {
        long generation = ++counted.idleGeneration;
        if (lingerCloser == null) {
            lingerCloser =
                    new ScheduledThreadPoolExecutor(
                            1,
                            r -> {
                                Thread t = new Thread(r, "parquet-lookup-store-closer");
                                t.setDaemon(true);
                                return t;
                            });
            lingerCloser.setKeepAliveTime(STORE_LINGER_MILLIS * 2, TimeUnit.MILLISECONDS);
            lingerCloser.allowCoreThreadTimeOut(true);
            lingerCloser.setRemoveOnCancelPolicy(true);
        }
        lingerCloser.schedule(
                () -> {
                    synchronized (LOCK) {
                        if (STORES.get(key) != counted
                                || counted.references != 0
                                || counted.idleGeneration != generation) {
                            return;
                        }
                        STORES.remove(key);
                    }
                    try {
                        counted.value.close();
                    } catch (IOException | RuntimeException e) {
                        LOG.debug("Ignoring failure to close an idle file store", e);
                    }
                },
                STORE_LINGER_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private static final class Counted<T> {
        final T value;
        int references;

        /** Counts the times the references fell to 0; a lingering close checks it is the last. */
        long idleGeneration;

        Counted(T value) {
            this.value = value;
        }

        T retain() {
            references++;
            return value;
        }
    }
}
