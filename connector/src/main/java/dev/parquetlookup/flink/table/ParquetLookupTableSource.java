package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.lookup.LookupSpec;
import dev.parquetlookup.flink.lookup.ParquetAsyncLookupFunction;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupFunction;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.flink.lookup.TableFiles;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.InputFormatProvider;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.lookup.AsyncLookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.FullCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.connector.source.lookup.LookupOptions.LookupCacheType;
import org.apache.flink.table.connector.source.lookup.PartialCachingAsyncLookupProvider;
import org.apache.flink.table.connector.source.lookup.PartialCachingLookupProvider;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code 'parquet-lookup'} table: point lookups for lookup joins (sync, async, with Flink's
 * PARTIAL or FULL row cache), a bounded scan for batch queries and the FULL cache, projection
 * push-down (only projected columns are read) and key-range routing of lookup keys for the LOOKUP
 * hint {@code 'shuffle' = 'true'}.
 *
 * <p>The planner does not tell the factory which columns a join uses; {@link
 * #getLookupRuntimeProvider} checks them against the files' sort key: keys with its first column
 * are searched by the files' order, others (a secondary key) through a key index per file on them,
 * or refused with a {@link ValidationException} when {@code 'secondary-keys' = 'refuse'}. With
 * {@code 'lookup.cache' = 'FULL'} any join key works: Flink indexes the scanned table by the join's
 * keys.
 */
public final class ParquetLookupTableSource
        implements LookupTableSource,
                ScanTableSource,
                SupportsProjectionPushDown,
                KeyRangeShuffle.Ability {

    private static final Logger LOG = LoggerFactory.getLogger(ParquetLookupTableSource.class);

    private final ParquetLookupConfig config;
    private final TableFiles files;

    /**
     * Whether an async function is offered besides the sync one (resolved {@code lookup.async}).
     */
    private final boolean offerAsync;

    private final LookupCacheType cacheType;
    @Nullable private final LookupCache partialCache;
    @Nullable private final CacheReloadTrigger fullCacheReloadTrigger;
    private DataType producedType;

    /** The key-range shuffle ({@code 'shuffle' = 'true'}); a no-op on the Flink 1.20 line. */
    private KeyRangeShuffle shuffle;

    public ParquetLookupTableSource(
            ParquetLookupConfig config,
            TableFiles files,
            boolean offerAsync,
            DataType producedType,
            LookupCacheType cacheType,
            @Nullable LookupCache partialCache,
            @Nullable CacheReloadTrigger fullCacheReloadTrigger) {
        this.config = config;
        this.files = files;
        this.offerAsync = offerAsync;
        this.producedType = producedType;
        this.cacheType = cacheType;
        this.partialCache = partialCache;
        this.fullCacheReloadTrigger = fullCacheReloadTrigger;
        this.shuffle = new KeyRangeShuffle(config.tableName());
    }

    // ------------------------------------------------------------------ lookups

    @Override
    public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext context) {
        List<String> names = fieldNames();
        List<String> keyNames = new ArrayList<>();
        for (int[] path : context.getKeys()) {
            if (path.length != 1) {
                throw new ValidationException(
                        "Table '" + config.tableName() + "' supports only top-level lookup keys");
            }
            keyNames.add(names.get(path[0]));
        }
        if (cacheType == LookupCacheType.FULL) {
            // Flink's FULL cache loads the whole table by a scan and indexes it by the join's own
            // keys: any key works, a sort-key prefix is not needed.
            List<String> sortKey = files.sortKey();
            if (!sortKey.isEmpty() && keyNames.contains(sortKey.get(0))) {
                shuffle.prepare(
                        context,
                        config,
                        LookupSpec.of(names, fieldTypes(), keyNames, engineKey(keyNames)));
            }
            return FullCachingLookupProvider.of(
                    InputFormatProvider.of(scanFormat(), 1), fullCacheReloadTrigger);
        }
        List<String> engineKey = engineKey(keyNames);
        LookupSpec spec = LookupSpec.of(names, fieldTypes(), keyNames, engineKey);
        if (LookupSpec.isSortKeyPrefix(engineKey, files.sortKey())) {
            shuffle.prepare(context, config, spec);
        } else {
            // A secondary key: its values say nothing about the files' key ranges, no shuffle.
            LOG.info(
                    "Table '{}': lookup join on {}, not a prefix of the sort key {}: served through"
                            + " a key index per file on {}",
                    config.tableName(),
                    keyNames,
                    files.sortKey(),
                    engineKey);
        }

        LookupFunction sync = new ParquetLookupFunction(config, spec);
        if (!offerAsync) {
            return partialCache != null
                    ? PartialCachingLookupProvider.of(sync, partialCache)
                    : LookupFunctionProvider.of(sync);
        }
        // Offer both: the planner takes the async one unless the LOOKUP hint says 'async' =
        // 'false' or the join needs a synchronous function (upsert materialisation).
        AsyncLookupFunction async = new ParquetAsyncLookupFunction(config, spec);
        return partialCache != null
                ? new PartialCachingBothProvider(sync, async, partialCache)
                : new BothProvider(sync, async);
    }

    /** The engine's key of a join on {@code keyNames}: see {@link LookupSpec#engineKey}. */
    private List<String> engineKey(List<String> keyNames) {
        return LookupSpec.engineKey(
                config.tableName(),
                files.description(),
                keyNames,
                files.sortKey(),
                files.columns(),
                config.get(ParquetLookupOptions.SECONDARY_KEYS));
    }

    @Override
    public KeyRangeShuffle keyRangeShuffle() {
        return shuffle;
    }

    // ------------------------------------------------------------------ scans

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        return InputFormatProvider.of(scanFormat(), 1);
    }

    private ParquetScanInputFormat scanFormat() {
        return new ParquetScanInputFormat(config, fieldNames(), fieldTypes());
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    // ------------------------------------------------------------------ projection

    @Override
    public boolean supportsNestedProjection() {
        return false;
    }

    @Override
    public void applyProjection(int[][] projectedFields, DataType producedDataType) {
        this.producedType = producedDataType;
    }

    // ------------------------------------------------------------------ misc

    @Override
    public DynamicTableSource copy() {
        ParquetLookupTableSource copy =
                new ParquetLookupTableSource(
                        config,
                        files,
                        offerAsync,
                        producedType,
                        cacheType,
                        partialCache,
                        fullCacheReloadTrigger);
        copy.shuffle = shuffle.copy();
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "ParquetLookup(" + config.path() + ")";
    }

    private List<String> fieldNames() {
        return ((RowType) producedType.getLogicalType()).getFieldNames();
    }

    private List<LogicalType> fieldTypes() {
        return ((RowType) producedType.getLogicalType()).getChildren();
    }

    /** Both a sync and an async function; the planner picks one. */
    private record BothProvider(LookupFunction sync, AsyncLookupFunction async)
            implements LookupFunctionProvider, AsyncLookupFunctionProvider {
        @Override
        public LookupFunction createLookupFunction() {
            return sync;
        }

        @Override
        public AsyncLookupFunction createAsyncLookupFunction() {
            return async;
        }
    }

    /** Both a sync and an async function over one PARTIAL row cache; the planner picks one. */
    private record PartialCachingBothProvider(
            LookupFunction sync, AsyncLookupFunction async, LookupCache cache)
            implements PartialCachingLookupProvider, PartialCachingAsyncLookupProvider {
        @Override
        public LookupFunction createLookupFunction() {
            return sync;
        }

        @Override
        public AsyncLookupFunction createAsyncLookupFunction() {
            return async;
        }

        @Override
        public LookupCache getCache() {
            return cache;
        }
    }
}
