package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.ColumnSchema;
import dev.parquetlookup.engine.LookupFileException;
import dev.parquetlookup.engine.LookupPlan;
import dev.parquetlookup.engine.RefreshingTable;
import dev.parquetlookup.flink.lookup.KeyOrder;
import dev.parquetlookup.flink.lookup.KeySampler;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.SharedCaches;
import dev.parquetlookup.io.FileId;

import org.apache.flink.table.api.ValidationException;

import java.io.IOException;
import java.util.List;

/**
 * What planning needs to know about a table's files, read once when the table source is created:
 * their columns, their verified sort key, and a short description for messages.
 *
 * <p>Example: {@code TableFiles.inspect(config)} on a directory of two files sorted by {@code id}
 * gives {@code sortKey() = [id]} and {@code description() = "file:/d (2 files, first
 * file:/d/a.parquet)"}.
 *
 * @param columns the files' top-level columns
 * @param sortKey the sort key the files are verified to be sorted by
 * @param description the path, for messages
 */
public record TableFiles(List<ColumnSchema> columns, List<String> sortKey, String description) {

    public TableFiles {
        columns = List.copyOf(columns);
        sortKey = List.copyOf(sortKey);
    }

    /**
     * Opens the table as the lookup functions will, reads what planning needs and closes it.
     *
     * @throws ValidationException if the path holds no usable Parquet file; the message says why
     */
    public static TableFiles inspect(ParquetLookupConfig config) {
        try (SharedCaches.Lease caches =
                        SharedCaches.acquire(
                                config.metadataCacheMaxBytes(), config.pageCacheMaxBytes());
                RefreshingTable table =
                        RefreshingTable.open(
                                config.toTableConfig(caches.metadataCache(), caches.pageCache()),
                                config.refreshOptions().withInterval(null))) {
            return new TableFiles(table.columns(), table.sortKey(), describe(config, table));
        } catch (IOException | LookupFileException e) {
            throw new ValidationException(
                    String.format(
                            "Table '%s' cannot serve lookups from 'path' = '%s': %s",
                            config.tableName(), config.path(), e.getMessage()),
                    e);
        }
    }

    /**
     * Samples the keys of the files' {@code keyColumns} (a leading prefix of the sort key) in
     * sortable form ({@link KeyOrder}), about {@code target} of them evenly spread by row: the
     * range boundaries of {@code 'shuffle' = 'true'}. Reads those key columns once, at planning
     * (about 8 bytes per row for a BIGINT key: a 10M-row table reads ~80 MB once).
     */
    public static List<Object[]> sampleKeys(
            ParquetLookupConfig config, List<String> keyColumns, int target) {
        KeySampler sampler = new KeySampler(target);
        try (SharedCaches.Lease caches =
                        SharedCaches.acquire(
                                config.metadataCacheMaxBytes(), config.pageCacheMaxBytes());
                RefreshingTable table =
                        RefreshingTable.open(
                                config.toTableConfig(caches.metadataCache(), caches.pageCache()),
                                config.refreshOptions().withInterval(null))) {
            LookupPlan plan = table.plan(keyColumns, keyColumns);
            table.scan(
                    plan,
                    row -> {
                        for (Object value : row) {
                            if (value == null) {
                                return; // a null key is never looked up
                            }
                        }
                        sampler.offer(KeyOrder.sortable(row));
                    });
        } catch (IOException | LookupFileException e) {
            throw new ValidationException(
                    String.format(
                            "Table '%s': cannot sample the keys of '%s' for 'shuffle' = 'true': %s",
                            config.tableName(), config.path(), e.getMessage()),
                    e);
        }
        // The scan goes file by file in path order, not in global key order: the sampler keeps
        // a systematic sample of rows, sorted here into quantiles.
        List<Object[]> samples = sampler.samples();
        samples.sort(KeyOrder::compare);
        return samples;
    }

    private static String describe(ParquetLookupConfig config, RefreshingTable table) {
        List<FileId> files = table.files();
        if (files.size() == 1) {
            return files.get(0).path();
        }
        return String.format(
                "%s, %d files, first %s",
                config.path(), files.size(), files.isEmpty() ? "-" : files.get(0).path());
    }
}
