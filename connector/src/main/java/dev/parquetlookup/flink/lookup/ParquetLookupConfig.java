package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.PageCache;
import dev.parquetlookup.engine.RefreshOptions;
import dev.parquetlookup.engine.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.TableConfig;
import dev.parquetlookup.engine.TableFormat;
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
 * <p>Example: {@code new ParquetLookupConfig("customers", "file:///data/customers/", List.of(),
 * Map.of(), true, 16, 256 << 20, 0, 3)}.
 *
 * @param tableName the table's name in the catalog, for messages
 * @param path a Parquet file or directory, as a Hadoop URI or plain path
 * @param sortKey the declared sort key ({@code sort-key}), or empty to take the files'
 * @param hadoopOptions Hadoop configuration entries, without the {@code hadoop.} prefix
 * @param async whether to offer an asynchronous lookup function
 * @param asyncThreads threads per subtask for asynchronous lookups
 * @param metadataCacheMaxBytes bound of the shared metadata cache
 * @param pageCacheMaxBytes bound of the shared page cache, 0 for none
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
        String format)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Default of {@code lookup.max-in-flight-requests}. */
    public static final int DEFAULT_MAX_IN_FLIGHT_REQUESTS = 64;

    /** With the default bound of requests in flight and the default disk tier and warm-up. */
    public ParquetLookupConfig(
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
            boolean mapLocalFiles) {
        this(
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
                DEFAULT_MAX_IN_FLIGHT_REQUESTS,
                DiskTierConfig.defaults(),
                TableFormat.FILES);
    }

    public ParquetLookupConfig {
        Objects.requireNonNull(tableName, "tableName");
        Objects.requireNonNull(path, "path");
        sortKey = List.copyOf(sortKey);
        // Sorted so equal configurations print and compare the same way.
        hadoopOptions = new TreeMap<>(hadoopOptions);
        if (asyncThreads < 1) {
            throw new IllegalArgumentException(
                    "lookup.async.threads must be at least 1, got " + asyncThreads);
        }
        if (metadataCacheMaxBytes <= 0) {
            throw new IllegalArgumentException(
                    "metadata-cache.max-bytes must be positive, got " + metadataCacheMaxBytes);
        }
        if (pageCacheMaxBytes < 0) {
            throw new IllegalArgumentException(
                    "page-cache.max-bytes must not be negative, got " + pageCacheMaxBytes);
        }
        Objects.requireNonNull(snapshotMode, "snapshotMode");
        format = format.trim().toLowerCase(Locale.ROOT);
        if (!format.equals(TableFormat.FILES) && snapshotMode != SnapshotMode.ALL_FILES) {
            throw new IllegalArgumentException(
                    "path.snapshot-mode applies to 'format' = 'files' only; the '"
                            + format
                            + "' format serves the table's current version itself");
        }
        if (refreshInterval != null && (refreshInterval.isNegative() || refreshInterval.isZero())) {
            throw new IllegalArgumentException(
                    "refresh.interval must be positive, got " + refreshInterval);
        }
        if (maxInFlightRequests < 1) {
            throw new IllegalArgumentException(
                    "lookup.max-in-flight-requests must be at least 1, got " + maxInFlightRequests);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException(
                    "lookup.max-retries must not be negative, got " + maxRetries);
        }
        Objects.requireNonNull(diskTier, "diskTier");
    }

    /** The same configuration with another disk tier setting. */
    public ParquetLookupConfig withDiskTier(DiskTierConfig tier) {
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
                tier,
                format);
    }

    /** A table that is never refreshed and whose path holds the files themselves. */
    public ParquetLookupConfig(
            String tableName,
            String path,
            List<String> sortKey,
            Map<String, String> hadoopOptions,
            boolean async,
            int asyncThreads,
            long metadataCacheMaxBytes,
            long pageCacheMaxBytes,
            int maxRetries) {
        this(
                tableName,
                path,
                sortKey,
                hadoopOptions,
                async,
                asyncThreads,
                metadataCacheMaxBytes,
                pageCacheMaxBytes,
                maxRetries,
                null,
                SnapshotMode.ALL_FILES,
                true);
    }

    /**
     * How the lookup functions follow the path: interval, snapshot mode, format, default read
     * retries.
     */
    public RefreshOptions refreshOptions() {
        return new RefreshOptions(refreshInterval, snapshotMode, RetryPolicy.defaults(), format);
    }

    /** The engine configuration of this table using the given (shared) caches. */
    public TableConfig toTableConfig(MetadataCache metadataCache, @Nullable PageCache pageCache) {
        return TableConfig.builder(path)
                .sortKey(sortKey)
                .hadoopOptions(hadoopOptions)
                .metadataCache(metadataCache)
                .pageCache(pageCache)
                .mapLocalFiles(mapLocalFiles)
                .build();
    }
}
