package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.RowDataConverter;
import dev.parquetlookup.flink.lookup.SharedCaches;

import org.apache.flink.api.common.io.DefaultInputSplitAssigner;
import org.apache.flink.api.common.io.RichInputFormat;
import org.apache.flink.api.common.io.statistics.BaseStatistics;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.GenericInputSplit;
import org.apache.flink.core.io.InputSplit;
import org.apache.flink.core.io.InputSplitAssigner;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Bounded scan of every row of the table, in key order, projected: serves batch {@code SELECT}s and
 * loads {@code 'lookup.cache' = 'FULL'}.
 *
 * <p>The engine's {@link DimensionTable#scan} pushes rows to a consumer, while an {@code
 * InputFormat} is pulled; a reader thread runs the scan into a small bounded queue, so memory stays
 * bounded however large the table. One split: the engine scans all files in one call.
 */
public final class ParquetScanInputFormat extends RichInputFormat<RowData, InputSplit> {

    private static final long serialVersionUID = 1L;

    private static final int QUEUE_CAPACITY = 1024;
    private static final Object END = new Object();

    private final ParquetLookupConfig config;
    private final List<String> projectedNames;
    private final List<LogicalType> projectedTypes;

    private transient SharedCaches.Lease caches;
    private transient RefreshingTable table;
    private transient Thread reader;
    private transient BlockingQueue<Object> queue;
    @Nullable private transient Object next;

    public ParquetScanInputFormat(
            ParquetLookupConfig config,
            List<String> projectedNames,
            List<LogicalType> projectedTypes) {
        this.config = config;
        this.projectedNames = List.copyOf(projectedNames);
        this.projectedTypes = List.copyOf(projectedTypes);
    }

    @Override
    public void configure(Configuration parameters) {}

    @Override
    public BaseStatistics getStatistics(BaseStatistics cachedStatistics) {
        return cachedStatistics;
    }

    @Override
    public InputSplit[] createInputSplits(int minNumSplits) {
        return new InputSplit[] {new GenericInputSplit(0, 1)};
    }

    @Override
    public InputSplitAssigner getInputSplitAssigner(InputSplit[] inputSplits) {
        return new DefaultInputSplitAssigner(inputSplits);
    }

    @Override
    public void open(InputSplit split) throws IOException {
        caches =
                SharedCaches.acquire(
                        config.metadataCacheMaxBytes(), config.resolvedPageCacheMaxBytes());
        LookupPlan plan;
        try {
            // One snapshot (the latest complete one in 'latest-success' mode); Flink's full-cache
            // reload scans again.
            table =
                    RefreshingTable.open(
                            config.toTableConfig(caches.metadataCache(), caches.pageCache()),
                            config.refreshOptions().withInterval(null));
            plan = table.plan(table.sortKey().subList(0, 1), projectedNames);
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        RowDataConverter converter = new RowDataConverter(projectedTypes);
        queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
        next = null;
        reader =
                new Thread(
                        () -> {
                            Object last = END;
                            try {
                                table.scan(
                                        plan,
                                        row -> {
                                            try {
                                                queue.put(converter.toRowData(row));
                                            } catch (InterruptedException e) {
                                                Thread.currentThread().interrupt();
                                                throw new InterruptedIOException("scan cancelled");
                                            }
                                        });
                            } catch (Throwable t) {
                                last = t;
                            }
                            try {
                                queue.put(last);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "parquet-lookup-scan-" + config.tableName());
        reader.setDaemon(true);
        reader.start();
    }

    @Override
    public boolean reachedEnd() throws IOException {
        if (next == null) {
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while scanning " + config.path());
            }
        }
        if (next instanceof Throwable t) {
            throw new IOException(
                    String.format(
                            "Scan of table '%s' (%s) failed: %s",
                            config.tableName(), config.path(), t.getMessage()),
                    t);
        }
        return next == END;
    }

    @Override
    public RowData nextRecord(RowData reuse) throws IOException {
        if (reachedEnd()) {
            return null;
        }
        RowData row = (RowData) next;
        next = null;
        return row;
    }

    @Override
    public void close() throws IOException {
        try {
            if (reader != null) {
                reader.interrupt();
                // Unblock a reader waiting for space, then wait for it to leave the engine.
                queue.clear();
                reader.join(10_000);
                reader = null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                if (table != null) {
                    table.close();
                    table = null;
                }
            } finally {
                if (caches != null) {
                    caches.close();
                    caches = null;
                }
            }
        }
    }
}
