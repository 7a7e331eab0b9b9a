package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.metadata.MetadataCache;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The connector options of one table, resolved and immutable; shipped to the task managers with the
 * lookup functions.
 *
 * <p>Built with every default in one place, the {@link Builder} (SQL options and the DataStream
 * builder both go through it). Example: {@code ParquetLookupConfig.builder("customers",
 * "file:///data/customers/").sortKey(List.of("id")).pageCacheMaxBytes(64 << 20).build()}.
 *
 * @param tableName the table's name in the catalog, for messages
 * @param path a Parquet file or directory, as a Hadoop URI or plain path
 * @param sortKey the declared sort key ({@code sort-key}), or empty to take the files'
 * @param hadoopOptions Hadoop configuration entries, without the {@code hadoop.} prefix
 * @param async whether to offer an asynchronous lookup function
 * @param asyncThreads threads per subtask for asynchronous lookups
 * @param metadataCacheMaxBytes bound of the shared metadata cache
 * @param pageCacheMaxBytes bound of the shared page cache, 0 for none, {@link #PAGE_CACHE_AUTO}
 *     (the default) for a share of the TaskManager's heap ({@link #resolvedPageCacheMaxBytes()})
 * @param maxRetries retries of a lookup that failed with an I/O error
 * @param refreshInterval how often the path is listed again for new files ({@code
 *     refresh.interval}), or {@code null} to serve the files found at start for the job's lifetime
 * @param snapshotMode what the path holds ({@code path.snapshot-mode})
 * @param mapLocalFiles whether local files are memory-mapped ({@code local-files.mmap})
 * @param maxInFlightRequests read requests an asynchronous lookup function (one subtask) keeps in
 *     flight at most ({@code lookup.max-in-flight-requests})
 * @param diskTier the local disk tier of remote files and its warm-up ({@code local-cache.*},
 *     {@code warmup})
 * @param format what {@code path} is ({@code format}): {@code files} (a directory) or a table
 *     format such as {@code iceberg} (the table's root); see {@link TableFormat}
 * @param synthesizePageIndex whether files without a page index get one built from their page
 *     headers at open ({@code page-index.synthesize})
 */
public record ParquetLookupConfig(
        String tableName,
        String path,
        List<String> sortKey,
        Map<String, String> hadoopOptions,
        boolean async,
        int asyncThreads,
        long metadataCacheMaxBytes,
        long pageCacheMaxBytes,
        int maxRetries,
        @Nullable Duration refreshInterval,
        SnapshotMode snapshotMode,
        boolean mapLocalFiles,
        int maxInFlightRequests,
        DiskTierConfig diskTier,
        String format,
        boolean synthesizePageIndex)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Default of {@code lookup.max-in-flight-requests}. */
    public static final int DEFAULT_MAX_IN_FLIGHT_REQUESTS = 64;

    /** Default of {@code lookup.async.threads}. */
    public static final int DEFAULT_ASYNC_THREADS = 16;

    /** Default of {@code metadata-cache.max-bytes}: 256 MiB. */
    public static final long DEFAULT_METADATA_CACHE_BYTES = 256L << 20;

    /**
     * {@code page-cache.max-bytes} not set: the page cache takes {@link
     * #AUTO_PAGE_CACHE_HEAP_SHARE} of the heap of the JVM that runs the lookups (the TaskManager's,
     * resolved there), at most {@link #AUTO_PAGE_CACHE_MAX_BYTES}.
     */
    public static final long PAGE_CACHE_AUTO = -1;

    /** Share of the TaskManager's max heap the page cache takes by default: one eighth. */
    public static final int AUTO_PAGE_CACHE_HEAP_SHARE = 8;

    /** Cap of the default page cache: 1 GiB. */
    public static final long AUTO_PAGE_CACHE_MAX_BYTES = 1L << 30;

    /** Default of {@code lookup.max-retries}. */
    public static final int DEFAULT_MAX_RETRIES = 3;

    public ParquetLookupConfig {
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(path, "path");
        sortKey = List.copyOf(sortKey);
        // Sorted so equal configurations print and compare the same way.
        hadoopOptions = new TreeMap<>(hadoopOptions);
        if (asyncThreads < 1) {
            throw new IllegalArgumentException(
                    "'lookup.async.threads' must be at least 1, got " + asyncThreads + ".");
        }
        if (metadataCacheMaxBytes <= 0) {
            throw new IllegalArgumentException(
                    "'metadata-cache.max-bytes' must be positive, got "
                            + metadataCacheMaxBytes
                            + " (footers and page indexes must be kept to serve lookups).");
        }
        if (pageCacheMaxBytes < 0 && pageCacheMaxBytes != PAGE_CACHE_AUTO) {
            throw new IllegalArgumentException(
                    "'page-cache.max-bytes' must not be negative, got " + pageCacheMaxBytes + ".");
        }
        Objects.requireNonNull(snapshotMode, "snapshotMode");
        format = format.trim().toLowerCase(Locale.ROOT);
        if (!format.equals(TableFormat.FILES) && snapshotMode != SnapshotMode.ALL_FILES) {
            throw new IllegalArgumentException(
                    "'path.snapshot-mode' applies to 'format' = 'files' only; the '"
                            + format
                            + "' format serves the table's current version itself. Remove"
                            + " 'path.snapshot-mode'.");
        }
        if (refreshInterval != null && (refreshInterval.isNegative() || refreshInterval.isZero())) {
            throw new IllegalArgumentException(
                    "'refresh.interval' must be positive, got "
                            + refreshInterval
                            + "; leave it unset to never refresh.");
        }
        if (maxInFlightRequests < 1) {
            throw new IllegalArgumentException(
                    "'lookup.max-in-flight-requests' must be at least 1, got "
                            + maxInFlightRequests
                            + ".");
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "'lookup.max-retries' must not be negative, got " + maxRetries + ".");
        }
        Objects.requireNonNull(diskTier, "diskTier");
    }

    /** The same configuration with another disk tier setting. */
    public ParquetLookupConfig withDiskTier(DiskTierConfig tier) {
        return toBuilder().diskTier(tier).build();
    }

    /** A builder with every default: a directory of files, never refreshed. */
    public static Builder builder(String tableName, String path) {
        return new Builder(tableName, path);
    }

    /** A builder holding this configuration. */
    public Builder toBuilder() {
        return new Builder(tableName, path)
                .sortKey(sortKey)
                .hadoopOptions(hadoopOptions)
                .async(async)
                .asyncThreads(asyncThreads)
                .metadataCacheMaxBytes(metadataCacheMaxBytes)
                .pageCacheMaxBytes(pageCacheMaxBytes)
                .maxRetries(maxRetries)
                .refreshInterval(refreshInterval)
                .snapshotMode(snapshotMode)
                .mapLocalFiles(mapLocalFiles)
                .maxInFlightRequests(maxInFlightRequests)
                .diskTier(diskTier)
                .format(format)
                .synthesizePageIndex(synthesizePageIndex);
    }

    /**
     * How the lookup functions follow the path: interval, snapshot mode, format, default read
     * retries.
     */
    public RefreshOptions refreshOptions() {
        return new RefreshOptions(refreshInterval, snapshotMode, RetryPolicy.defaults(), format);
    }

    /**
     * The page cache's bound in this JVM: the configured one, or by default ({@link
     * #PAGE_CACHE_AUTO}) an eighth of the max heap, at most 1 GiB, rounded down to MiB. Call it
     * where the lookups run (the TaskManager), not where the job is planned.
     */
    public long resolvedPageCacheMaxBytes() {
        return pageCacheMaxBytes == PAGE_CACHE_AUTO
                ? autoPageCacheBytes(Runtime.getRuntime().maxMemory())
                : pageCacheMaxBytes;
    }

    /** The default bound for a JVM of {@code maxHeap} bytes. */
    static long autoPageCacheBytes(long maxHeap) {
        long bytes = Math.min(AUTO_PAGE_CACHE_MAX_BYTES, maxHeap / AUTO_PAGE_CACHE_HEAP_SHARE);
        return Math.max(0, bytes >> 20 << 20);
    }

    /** The engine configuration of this table using the given (shared) caches. */
    public TableConfig toTableConfig(MetadataCache metadataCache, @Nullable PageCache pageCache) {
        return TableConfig.builder(path)
                .sortKey(sortKey)
                .hadoopOptions(hadoopOptions)
                .metadataCache(metadataCache)
                .pageCache(pageCache)
                .mapLocalFiles(mapLocalFiles)
                .synthesizePageIndex(synthesizePageIndex)
                .build();
    }

    /**
     * The one place where a table's defaults live; {@link #build()} checks the values (the record's
     * constructor). Setters name the SQL option they stand for.
     */
    public static final class Builder {
        private String tableName;
        private final String path;
        private List<String> sortKey = List.of();
        private Map<String, String> hadoopOptions = Map.of();
        private boolean async = true;
        private int asyncThreads = DEFAULT_ASYNC_THREADS;
        private long metadataCacheMaxBytes = DEFAULT_METADATA_CACHE_BYTES;
        private long pageCacheMaxBytes = PAGE_CACHE_AUTO;
        private int maxRetries = DEFAULT_MAX_RETRIES;
        @Nullable private Duration refreshInterval;
        private SnapshotMode snapshotMode = SnapshotMode.ALL_FILES;
        private boolean mapLocalFiles = true;
        private int maxInFlightRequests = DEFAULT_MAX_IN_FLIGHT_REQUESTS;
        private DiskTierConfig diskTier = DiskTierConfig.defaults();
        private String format = TableFormat.FILES;
        private boolean synthesizePageIndex = true;

        private Builder(String tableName, String path) {
            this.tableName = tableName;
            this.path = path;
        }

        /** The table's name in messages (default: the one given to the builder). */
        public Builder tableName(String name) {
            this.tableName = name;
            return this;
        }

        /** {@code sort-key}; empty (the default) takes the files' declared order. */
        public Builder sortKey(List<String> columns) {
            this.sortKey = columns;
            return this;
        }

        /** {@code hadoop.*}, without the prefix. */
        public Builder hadoopOptions(Map<String, String> options) {
            this.hadoopOptions = options;
            return this;
        }

        /** {@code lookup.async} (default true). */
        public Builder async(boolean enabled) {
            this.async = enabled;
            return this;
        }

        /** {@code lookup.async.threads} (default {@value #DEFAULT_ASYNC_THREADS}). */
        public Builder asyncThreads(int threads) {
            this.asyncThreads = threads;
            return this;
        }

        /** {@code metadata-cache.max-bytes} (default 256 MiB). */
        public Builder metadataCacheMaxBytes(long bytes) {
            this.metadataCacheMaxBytes = bytes;
            return this;
        }

        /**
         * {@code page-cache.max-bytes}: 0 turns the page cache off; the default ({@link
         * #PAGE_CACHE_AUTO}) is an eighth of the TaskManager's max heap, at most 1 GiB.
         */
        public Builder pageCacheMaxBytes(long bytes) {
            this.pageCacheMaxBytes = bytes;
            return this;
        }

        /** {@code lookup.max-retries} (default {@value #DEFAULT_MAX_RETRIES}). */
        public Builder maxRetries(int retries) {
            this.maxRetries = retries;
            return this;
        }

        /** {@code refresh.interval} (default null: never). */
        public Builder refreshInterval(@Nullable Duration interval) {
            this.refreshInterval = interval;
            return this;
        }

        /** {@code path.snapshot-mode} (default all files). */
        public Builder snapshotMode(SnapshotMode mode) {
            this.snapshotMode = mode;
            return this;
        }

        /** {@code local-files.mmap} (default true). */
        public Builder mapLocalFiles(boolean map) {
            this.mapLocalFiles = map;
            return this;
        }

        /**
         * {@code lookup.max-in-flight-requests} (default {@value #DEFAULT_MAX_IN_FLIGHT_REQUESTS}).
         */
        public Builder maxInFlightRequests(int requests) {
            this.maxInFlightRequests = requests;
            return this;
        }

        /** {@code local-cache.*} and {@code warmup}. */
        public Builder diskTier(DiskTierConfig tier) {
            this.diskTier = tier;
            return this;
        }

        /** {@code format} (default {@code files}). */
        public Builder format(String tableFormat) {
            this.format = tableFormat;
            return this;
        }

        /** {@code page-index.synthesize} (default true). */
        public Builder synthesizePageIndex(boolean synthesize) {
            this.synthesizePageIndex = synthesize;
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException if a value is out of range (the message names the
         *     option)
         */
        public ParquetLookupConfig build() {
            return new ParquetLookupConfig(
                    tableName,
                    path,
                    sortKey,
                    hadoopOptions,
                    async,
                    asyncThreads,
                    metadataCacheMaxBytes,
                    pageCacheMaxBytes,
                    maxRetries,
                    refreshInterval,
                    snapshotMode,
                    mapLocalFiles,
                    maxInFlightRequests,
                    diskTier,
                    format,
                    synthesizePageIndex);
        }
    }
}
