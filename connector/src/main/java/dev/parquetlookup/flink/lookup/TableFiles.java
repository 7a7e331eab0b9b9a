package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RetryingFileStore;
import dev.parquetlookup.io.disk.TieredFileStore;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.util.TemporaryClassLoaderContext;

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
 * @param local whether the path and every file found are local ({@code file:} or a plain path)
 */
public record TableFiles(
        List<ColumnSchema> columns, List<String> sortKey, String description, boolean local) {

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
        try (RefreshingTable table = openForPlanning(config)) {
            return new TableFiles(
                    table.columns(),
                    table.sortKey(),
                    describe(config, table),
                    TieredFileStore.isLocal(config.path())
                            && table.files().stream()
                                    .allMatch(f -> TieredFileStore.isLocal(f.path())));
        } catch (IOException | LookupFileException e) {
            throw new ValidationException(
                    String.format(
                            "Table '%s' cannot serve lookups from 'path' = '%s': %s",
                            config.tableName(), config.path(), e.getMessage()),
                    e);
        }
    }

    /**
     * Samples the leading sort-key column in sortable form ({@link KeyOrder}), about {@code target}
     * values evenly spread over the files' pages: the range boundaries of {@code 'shuffle' =
     * 'true'}. The samples are the page minimums already held by the metadata cache, so planning
     * reads no data. A key with more columns ranks by its leading column, so all rows of one
     * leading key go to one subtask.
     */
    public static List<Object[]> sampleKeys(ParquetLookupConfig config, int target) {
        KeySampler sampler = new KeySampler(target);
        try (RefreshingTable table = openForPlanning(config)) {
            try (RefreshingTable.Lease snapshot = table.acquire()) {
                for (Object value : snapshot.table().leadingKeySamples()) {
                    sampler.offer(KeyOrder.sortable(new Object[] {value}));
                }
            }
        } catch (IOException | LookupFileException e) {
            throw new ValidationException(
                    String.format(
                            "Table '%s': cannot sample the keys of '%s' for 'shuffle' = 'true': %s",
                            config.tableName(), config.path(), e.getMessage()),
                    e);
        }
        // Samples arrive file by file; sorted here into quantiles.
        List<Object[]> samples = sampler.samples();
        samples.sort(KeyOrder::compare);
        return samples;
    }

    /**
     * Opens the newest snapshot (for {@code latest-success}: the newest complete directory) on the
     * planning-time metadata cache, without a page cache and without background refresh.
     *
     * <p>Opened with the connector's class loader as the thread's context class loader: Hadoop's
     * {@code Configuration} finds {@code core-default.xml} (which maps {@code s3a} to {@code
     * S3AFileSystem}) and file system classes through it, and the SQL Gateway or client plans with
     * its own class loader there, which does not see jars added with {@code ADD JAR} (the
     * connector's and hadoop-aws). On TaskManagers Flink already sets the job's class loader.
     */
    private static RefreshingTable openForPlanning(ParquetLookupConfig config) throws IOException {
        try (TemporaryClassLoaderContext ignored =
                TemporaryClassLoaderContext.of(TableFiles.class.getClassLoader())) {
            RefreshOptions refresh = config.refreshOptions().withInterval(null);
            return RefreshingTable.open(
                    config.toTableConfig(
                            SharedCaches.forPlanning(config.metadataCacheMaxBytes()), null),
                    refresh,
                    new RetryingFileStore(
                            SharedCaches.planningStore(
                                    config.hadoopOptions(),
                                    config.get(ParquetLookupOptions.LOCAL_FILES_MMAP)),
                            refresh.retryPolicy()));
        }
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
