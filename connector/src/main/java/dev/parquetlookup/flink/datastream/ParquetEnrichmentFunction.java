package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.flink.lookup.LookupRuntime;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.types.ValueType;

import org.apache.flink.api.common.functions.InvalidTypesException;
import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.MissingTypeInfo;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.api.java.typeutils.TypeExtractor;
import org.apache.flink.runtime.metrics.groups.InternalCacheMetricGroup;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.apache.flink.streaming.api.functions.async.RichAsyncFunction;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.RowUtils;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The asynchronous enrichment function built by {@link ParquetEnrichment}: for each event, looks up
 * the rows of its key with the SQL connector's asynchronous lookup ({@link
 * LookupRuntime#lookupAsync}: no thread of its own; local or cached pages complete in the calling
 * thread) and completes the event's future with the join function's outputs. A thin shell around
 * the SQL connector's {@link LookupRuntime} (engine, shared caches, retries, metrics in the group
 * {@code parquetLookup}), plus an optional row cache (Flink's {@code cache.*} metrics).
 *
 * <p>Every future completes: with the outputs, with the failure of the lookup or of a user
 * function, with a {@link TimeoutException} when {@code AsyncDataStream}'s timeout fires first, or
 * with a {@link RejectedExecutionException} when the function closes before the lookup completed.
 *
 * @param <IN> the event type
 * @param <OUT> the output type
 */
public final class ParquetEnrichmentFunction<IN, OUT> extends RichAsyncFunction<IN, OUT>
        implements ResultTypeQueryable<OUT> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ParquetEnrichmentFunction.class);

    /** Flink's name of the row cache's metric group (SQL's {@code LookupFunction} uses it too). */
    static final String CACHE_METRIC_GROUP = "cache";

    private final ParquetLookupConfig config;
    private final EnrichmentPlan plan;
    private final KeyExtractor<IN>[] extractors;
    private final boolean inner;
    @Nullable private final LookupCache rowCache;
    @Nullable private final JoinFunction<IN, Row, OUT> join;
    @Nullable private final JoinFunction<IN, List<Row>, OUT> joinAll;
    @Nullable private final TypeInformation<OUT> outputType;

    private transient volatile LookupRuntime runtime;
    private transient LogicalType[] types;
    private transient LinkedHashMap<String, Integer> positionByName;
    private transient List<ValueType> keyTypes;

    ParquetEnrichmentFunction(
            ParquetLookupConfig config,
            EnrichmentPlan plan,
            KeyExtractor<IN>[] extractors,
            boolean inner,
            @Nullable LookupCache rowCache,
            @Nullable JoinFunction<IN, Row, OUT> join,
            @Nullable JoinFunction<IN, List<Row>, OUT> joinAll,
            @Nullable TypeInformation<OUT> outputType) {
        this.config = config;
        this.plan = plan;
        this.extractors = extractors.clone();
        this.inner = inner;
        this.rowCache = rowCache;
        this.join = join;
        this.joinAll = joinAll;
        this.outputType = outputType;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        types = plan.spec().projectedTypes().toArray(new LogicalType[0]);
        keyTypes = plan.keyFields().stream().map(KeyField::type).toList();
        positionByName = new LinkedHashMap<>();
        for (int i = 0; i < plan.outputColumns(); i++) {
            positionByName.put(plan.spec().projectedNames().get(i), i);
        }
        runtime = LookupRuntime.open(config, plan.spec(), getRuntimeContext().getMetricGroup());
        if (rowCache != null) {
            rowCache.open(
                    new InternalCacheMetricGroup(
                            getRuntimeContext().getMetricGroup(), CACHE_METRIC_GROUP));
        }
    }

    @Override
    public void asyncInvoke(IN event, ResultFuture<OUT> resultFuture) {
        try {
            Object[] values = keyValues(event);
            if (values == null) {
                complete(event, runtime.lookup(null, null), resultFuture);
                return;
            }
            RowData cacheKey = null;
            if (rowCache != null) {
                cacheKey = GenericRowData.of(values);
                Collection<RowData> cached = rowCache.getIfPresent(cacheKey);
                if (cached != null) {
                    complete(event, cached, resultFuture);
                    return;
                }
            }
            RowData key = cacheKey;
            lookup(values)
                    .whenComplete(
                            (rows, failure) -> {
                                if (failure != null) {
                                    resultFuture.completeExceptionally(failure);
                                    return;
                                }
                                try {
                                    if (key != null) {
                                        rowCache.put(key, rows);
                                    }
                                    complete(event, rows, resultFuture);
                                } catch (Throwable t) {
                                    resultFuture.completeExceptionally(t);
                                }
                            });
        } catch (Throwable t) {
            resultFuture.completeExceptionally(t);
        }
    }

    /** The event's key values in engine form, in key order, or null if they can match nothing. */
    @Nullable
    private Object[] keyValues(IN event) throws Exception {
        Object[] values = new Object[extractors.length];
        for (int i = 0; i < values.length; i++) {
            Object value = extractors[i].extract(event);
            if (value == null) {
                return null;
            }
            Object engine =
                    ExternalValues.toEngineKey(
                            value, keyTypes.get(i), plan.keyFields().get(i).name());
            if (engine == ExternalValues.NO_MATCH) {
                return null;
            }
            values[i] = engine;
        }
        return values;
    }

    /** The shared asynchronous lookup of the SQL connector ({@link LookupRuntime#lookupAsync}). */
    private CompletableFuture<List<RowData>> lookup(Object[] values) {
        LookupRuntime current = runtime;
        if (current == null) {
            return CompletableFuture.failedFuture(
                    new RejectedExecutionException(
                            "enrichment function of table '" + config.tableName() + "' is closed"));
        }
        return current.lookupAsync(
                pick(values, plan.enginePositions()),
                pick(values, plan.spec().residualKeyPositions()));
    }

    private static Object[] pick(Object[] values, int[] positions) {
        Object[] picked = new Object[positions.length];
        for (int i = 0; i < picked.length; i++) {
            picked[i] = values[positions[i]];
        }
        return picked;
    }

    private void complete(IN event, Collection<RowData> rows, ResultFuture<OUT> resultFuture)
            throws Exception {
        List<OUT> out;
        if (joinAll != null) {
            if (rows.isEmpty() && inner) {
                out = Collections.emptyList();
            } else {
                List<Row> all = new ArrayList<>(rows.size());
                for (RowData row : rows) {
                    all.add(toRow(row));
                }
                out = singletonOrEmpty(joinAll.join(event, all));
            }
        } else if (rows.isEmpty()) {
            out = inner ? Collections.emptyList() : singletonOrEmpty(join.join(event, null));
        } else {
            out = new ArrayList<>(rows.size());
            for (RowData row : rows) {
                OUT o = join.join(event, toRow(row));
                if (o != null) {
                    out.add(o);
                }
            }
        }
        resultFuture.complete(out);
    }

    private static <T> List<T> singletonOrEmpty(@Nullable T value) {
        return value == null ? Collections.emptyList() : Collections.singletonList(value);
    }

    /** A fresh external row of the requested columns, readable by name and position. */
    private Row toRow(RowData row) {
        Object[] fields = new Object[plan.outputColumns()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = ExternalValues.toExternal(row, i, types[i]);
        }
        return RowUtils.createRowWithNamedPositions(RowKind.INSERT, fields, positionByName);
    }

    @Override
    public void timeout(IN event, ResultFuture<OUT> resultFuture) {
        String key;
        try {
            Object[] values = new Object[extractors.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = extractors[i].extract(event);
            }
            key = keyNames() + " = " + Arrays.deepToString(values);
        } catch (Exception e) {
            key = keyNames().toString();
        }
        resultFuture.completeExceptionally(
                new TimeoutException(
                        String.format(
                                "Lookup in table '%s' (%s) for %s did not finish within the"
                                        + " AsyncDataStream timeout. Raise the timeout, allow more"
                                        + " reads in flight (maxInFlightRequests, now %d) or fewer"
                                        + " events (AsyncDataStream's capacity), or check the"
                                        + " storage's latency.",
                                config.tableName(),
                                config.path(),
                                key,
                                config.get(ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS))));
    }

    private List<String> keyNames() {
        return plan.keyFields().stream().map(KeyField::name).toList();
    }

    @Override
    public void close() throws Exception {
        try {
            if (rowCache != null) {
                rowCache.close();
            }
        } finally {
            LookupRuntime current = runtime;
            runtime = null;
            if (current != null) {
                current.close(); // fails the lookups still running
            }
        }
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public TypeInformation<OUT> getProducedType() {
        if (outputType != null) {
            return outputType;
        }
        String name = "ParquetEnrichment." + (join != null ? "join" : "joinAll");
        try {
            // The output type argument of the JoinFunction (index 2); lambdas work when the
            // output is not generic.
            return TypeExtractor.getBinaryOperatorReturnType(
                    join != null ? join : joinAll,
                    JoinFunction.class,
                    0,
                    1,
                    2,
                    TypeExtractor.NO_INDEX,
                    null,
                    null,
                    name,
                    false);
        } catch (InvalidTypesException e) {
            return (TypeInformation) new MissingTypeInfo(name, e);
        } catch (RuntimeException e) {
            return (TypeInformation)
                    new MissingTypeInfo(
                            name,
                            new InvalidTypesException(
                                    "Cannot determine the output type of the join function; give"
                                            + " it with .returns(...) before build().",
                                    e));
        }
    }
}
