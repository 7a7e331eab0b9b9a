package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.flink.lookup.DiskTierConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.TableFiles;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.lookup.LookupOptions;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.PeriodicCacheReloadTrigger;
import org.apache.flink.table.connector.source.lookup.cache.trigger.TimedCacheReloadTrigger;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.TemporaryClassLoaderContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Creates {@link ParquetLookupTableSource}s for {@code 'connector' = 'parquet-lookup'}.
 *
 * <p>Creating a source validates the options ({@code hadoop.*} keys are passed through, any other
 * unknown key is an error), opens the files once to check that every declared column exists with a
 * compatible type, and reads their sort key.
 */
public final class ParquetLookupDynamicTableFactory implements DynamicTableSourceFactory {

    private static final Logger LOG =
            LoggerFactory.getLogger(ParquetLookupDynamicTableFactory.class);

    public static final String IDENTIFIER = "parquet-lookup";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(ParquetLookupOptions.PATH);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return Set.of(
                ParquetLookupOptions.SORT_KEY,
                ParquetLookupOptions.PATH_SNAPSHOT_MODE,
                ParquetLookupOptions.FORMAT,
                ParquetLookupOptions.SCAN_VERSION,
                ParquetLookupOptions.REFRESH_INTERVAL,
                ParquetLookupOptions.LOOKUP_ASYNC,
                ParquetLookupOptions.LOOKUP_ASYNC_THREADS,
                ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS,
                ParquetLookupOptions.METADATA_CACHE_MAX_BYTES,
                ParquetLookupOptions.PAGE_CACHE_MAX_BYTES,
                ParquetLookupOptions.LOCAL_CACHE_DIR,
                ParquetLookupOptions.LOCAL_CACHE_MAX_BYTES,
                ParquetLookupOptions.WARMUP,
                ParquetLookupOptions.LOCAL_FILES_MMAP,
                ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE,
                LookupOptions.CACHE_TYPE,
                LookupOptions.MAX_RETRIES,
                LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
                LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
                LookupOptions.PARTIAL_CACHE_MAX_ROWS,
                LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY,
                LookupOptions.FULL_CACHE_RELOAD_STRATEGY,
                LookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL,
                LookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE,
                LookupOptions.FULL_CACHE_TIMED_RELOAD_ISO_TIME,
                LookupOptions.FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(
                ParquetLookupOptions.HADOOP_PREFIX, ParquetLookupOptions.ICEBERG_PREFIX);
        ReadableConfig options = helper.getOptions();
        String tableName = context.getObjectIdentifier().asSummaryString();
        ParquetLookupConfig config =
                toConfig(tableName, options, context.getCatalogTable().getOptions());

        DataType physical = context.getPhysicalRowDataType();
        RowType rowType = (RowType) physical.getLogicalType();
        TableFiles files = TableFiles.inspect(config);
        SchemaValidator.validateColumns(
                tableName,
                files.description(),
                files.columns(),
                rowType.getFieldNames(),
                rowType.getChildren());

        LookupCacheType cacheType = options.get(LookupOptions.CACHE_TYPE);
        return new ParquetLookupTableSource(
                config,
                files,
                offerAsync(config, options, files),
                physical,
                cacheType,
                cacheType == LookupCacheType.PARTIAL
                        ? DefaultLookupCache.fromConfig(options)
                        : null,
                cacheType == LookupCacheType.FULL ? reloadTrigger(options) : null);
    }

    /**
     * Whether the table offers an asynchronous lookup function besides the synchronous one: {@code
     * lookup.async} when set; unset, only for tables with a file that is not local. A lookup on a
     * local file is CPU work, completed on the task thread by either function, and Flink's async
     * operator adds its own cost per event (a timeout timer, a mailbox mail, its ordered queue),
     * measured in the {@code flink} benchmark suite; lookups that wait on remote reads gain from
     * having many in flight.
     */
    static boolean offerAsync(
            ParquetLookupConfig config, ReadableConfig options, TableFiles files) {
        if (options.getOptional(ParquetLookupOptions.LOOKUP_ASYNC).isPresent()) {
            return config.async();
        }
        boolean offer = !files.local();
        LOG.info(
                "Table '{}': 'lookup.async' unset and {}: offering {}",
                config.tableName(),
                files.local() ? "every file is local" : "some files are remote",
                offer
                        ? "a synchronous and an asynchronous lookup function (the planner takes"
                                + " the asynchronous one unless the LOOKUP hint says 'async' ="
                                + " 'false')"
                        : "only the synchronous lookup function (set 'lookup.async' = 'true' to"
                                + " offer an asynchronous one)");
        return offer;
    }

    /**
     * The options of one table as an immutable configuration. Ranges are checked once, by {@link
     * ParquetLookupConfig}; its message becomes a {@link ValidationException} naming the table.
     */
    static ParquetLookupConfig toConfig(
            String tableName, ReadableConfig options, Map<String, String> rawOptions) {
        ParquetLookupConfig.Builder builder =
                ParquetLookupConfig.builder(tableName, options.get(ParquetLookupOptions.PATH))
                        .sortKey(
                                options.getOptional(ParquetLookupOptions.SORT_KEY)
                                        .map(ParquetLookupDynamicTableFactory::splitColumns)
                                        .orElse(List.of()))
                        .hadoopOptions(hadoopOptions(rawOptions))
                        // Unset (auto) allows async here; createDynamicTableSource decides whether
                        // to offer it once it knows where the files are.
                        .async(options.getOptional(ParquetLookupOptions.LOOKUP_ASYNC).orElse(true))
                        .asyncThreads(options.get(ParquetLookupOptions.LOOKUP_ASYNC_THREADS))
                        .metadataCacheMaxBytes(
                                options.get(ParquetLookupOptions.METADATA_CACHE_MAX_BYTES)
                                        .getBytes())
                        .pageCacheMaxBytes(
                                options.getOptional(ParquetLookupOptions.PAGE_CACHE_MAX_BYTES)
                                        .map(MemorySize::getBytes)
                                        .orElse(ParquetLookupConfig.PAGE_CACHE_AUTO))
                        .maxRetries(options.get(LookupOptions.MAX_RETRIES))
                        .refreshInterval(
                                options.getOptional(ParquetLookupOptions.REFRESH_INTERVAL)
                                        .orElse(null))
                        .mapLocalFiles(options.get(ParquetLookupOptions.LOCAL_FILES_MMAP))
                        .maxInFlightRequests(
                                options.get(ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS))
                        .diskTier(diskTier(tableName, options))
                        .format(tableFormat(tableName, options))
                        .synthesizePageIndex(
                                options.get(ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE));
        if (TableFormat.FILES.equals(tableFormat(tableName, options))
                && options.getOptional(ParquetLookupOptions.SCAN_VERSION).isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Table '%s': 'scan.version' applies to 'format' = 'delta' or"
                                    + " 'iceberg' only. Remove it, or point 'path' at a"
                                    + " snapshot directory.",
                            tableName));
        }
        try {
            return builder.snapshotMode(
                            SnapshotMode.fromOption(
                                    options.get(ParquetLookupOptions.PATH_SNAPSHOT_MODE)))
                    .build();
        } catch (IllegalArgumentException e) {
            // Without the cause: the message is the whole story, and Flink shows the root cause.
            throw new ValidationException(
                    String.format("Table '%s': %s", tableName, e.getMessage()));
        }
    }

    /**
     * The {@code hadoop.*} options without their prefix, passed to the Hadoop configuration, and
     * the format's own options ({@code iceberg.*}, {@code scan.version}) as they are.
     */
    private static Map<String, String> hadoopOptions(Map<String, String> rawOptions) {
        Map<String, String> hadoop = new HashMap<>();
        rawOptions.forEach(
                (key, value) -> {
                    if (key.startsWith(ParquetLookupOptions.HADOOP_PREFIX)) {
                        hadoop.put(
                                key.substring(ParquetLookupOptions.HADOOP_PREFIX.length()), value);
                    } else if (key.startsWith(ParquetLookupOptions.ICEBERG_PREFIX)
                            || key.equals(ParquetLookupOptions.SCAN_VERSION.key())) {
                        // The format's own options travel with the Hadoop entries, as they are.
                        hadoop.put(key, value);
                    }
                });
        return hadoop;
    }

    private static DiskTierConfig diskTier(String tableName, ReadableConfig options) {
        long maxBytes = options.get(ParquetLookupOptions.LOCAL_CACHE_MAX_BYTES).getBytes();
        TableWarmup.Mode warmup;
        try {
            warmup = TableWarmup.Mode.parse(options.get(ParquetLookupOptions.WARMUP));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    String.format("Table '%s': %s.", tableName, e.getMessage()), e);
        }
        return new DiskTierConfig(
                options.getOptional(ParquetLookupOptions.LOCAL_CACHE_DIR).orElse(null),
                maxBytes,
                warmup);
    }

    /**
     * The {@code format} option, lower case: {@code files}, or a {@link TableFormat} on the
     * connector's class path (an unknown one is refused here, at planning).
     */
    private static String tableFormat(String tableName, ReadableConfig options) {
        String format = options.get(ParquetLookupOptions.FORMAT).trim().toLowerCase(Locale.ROOT);
        if (format.equals(TableFormat.FILES)) {
            return format;
        }
        try (TemporaryClassLoaderContext ignored =
                TemporaryClassLoaderContext.of(
                        ParquetLookupDynamicTableFactory.class.getClassLoader())) {
            return TableFormat.find(format).name();
        } catch (LookupFileException e) {
            // The message is the whole story: no cause, so it is the root cause Flink shows.
            throw new ValidationException(
                    String.format("Table '%s': %s", tableName, e.getMessage()));
        }
    }

    /** {@code "g, name"} -> {@code [g, name]}; empty items are an error. */
    static List<String> splitColumns(String value) {
        List<String> columns = new ArrayList<>();
        for (String item : value.split(",", -1)) {
            String column = item.trim();
            if (column.isEmpty()) {
                throw new ValidationException(
                        "'sort-key' = '"
                                + value
                                + "' has an empty column name; write column names separated by"
                                + " commas, e.g. 'g,name'.");
            }
            columns.add(column);
        }
        return columns;
    }

    @Nullable
    private static CacheReloadTrigger reloadTrigger(ReadableConfig options) {
        return switch (options.get(LookupOptions.FULL_CACHE_RELOAD_STRATEGY)) {
            case PERIODIC ->
                    options.getOptional(LookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL)
                                    .isPresent()
                            ? PeriodicCacheReloadTrigger.fromConfig(options)
                            : new LoadOnceReloadTrigger();
            case TIMED -> TimedCacheReloadTrigger.fromConfig(options);
        };
    }
}
