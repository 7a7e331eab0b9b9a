package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.flink.lookup.TableFiles;

import org.apache.flink.configuration.ConfigOption;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Creates {@link ParquetLookupTableSource}s for {@code 'connector' = 'parquet-lookup'}.
 *
 * <p>Creating a source validates the options ({@link ParquetLookupOptions}; {@code hadoop.*} keys
 * and the table formats' own are passed through, any other unknown key is an error), opens the
 * files once to check that every declared column exists with a compatible type, and reads their
 * sort key.
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
        Set<ConfigOption<?>> options = new HashSet<>(ParquetLookupOptions.OPTIONS);
        options.remove(ParquetLookupOptions.PATH);
        options.addAll(
                List.of(
                        LookupOptions.CACHE_TYPE,
                        LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_ACCESS,
                        LookupOptions.PARTIAL_CACHE_EXPIRE_AFTER_WRITE,
                        LookupOptions.PARTIAL_CACHE_MAX_ROWS,
                        LookupOptions.PARTIAL_CACHE_CACHE_MISSING_KEY,
                        LookupOptions.FULL_CACHE_RELOAD_STRATEGY,
                        LookupOptions.FULL_CACHE_PERIODIC_RELOAD_INTERVAL,
                        LookupOptions.FULL_CACHE_PERIODIC_RELOAD_SCHEDULE_MODE,
                        LookupOptions.FULL_CACHE_TIMED_RELOAD_ISO_TIME,
                        LookupOptions.FULL_CACHE_TIMED_RELOAD_INTERVAL_IN_DAYS));
        return options;
    }

    /**
     * Prefixes of keys passed through rather than declared: {@code hadoop.*} and each table
     * format's own ({@link TableFormat#optionPrefix()}, e.g. {@code iceberg.}).
     */
    static String[] passThroughPrefixes() {
        List<String> prefixes = new ArrayList<>(List.of(ParquetLookupOptions.HADOOP_PREFIX));
        try (TemporaryClassLoaderContext ignored =
                TemporaryClassLoaderContext.of(
                        ParquetLookupDynamicTableFactory.class.getClassLoader())) {
            TableFormat.available().forEach(f -> f.optionPrefix().ifPresent(prefixes::add));
        }
        return prefixes.toArray(new String[0]);
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(passThroughPrefixes());
        ReadableConfig options = helper.getOptions();
        String tableName = context.getObjectIdentifier().asSummaryString();
        ParquetLookupConfig config = toConfig(tableName, context.getCatalogTable().getOptions());

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
     * The options of one table as an immutable configuration ({@link ParquetLookupConfig#of}, as
     * the DataStream builder makes it); its message becomes a {@link ValidationException} naming
     * the table.
     */
    static ParquetLookupConfig toConfig(String tableName, Map<String, String> rawOptions) {
        try {
            return ParquetLookupConfig.of(tableName, rawOptions);
        } catch (IllegalArgumentException e) {
            // Without the cause: the message is the whole story, and Flink shows the root cause.
            throw new ValidationException(
                    String.format("Table '%s': %s", tableName, e.getMessage()));
        }
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
