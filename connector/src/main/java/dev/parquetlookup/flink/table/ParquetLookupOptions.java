package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.flink.lookup.DiskTierConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.connector.source.lookup.LookupOptions;

import java.time.Duration;

/**
 * Options of the {@code 'parquet-lookup'} SQL connector.
 *
 * <p>Flink's own {@link LookupOptions} ({@code lookup.cache}, {@code lookup.partial-cache.*},
 * {@code lookup.full-cache.*}, {@code lookup.max-retries}) are accepted as they are; {@code
 * hadoop.*} keys are passed to the Hadoop configuration with the prefix removed. Example:
 *
 * <pre>{@code
 * CREATE TABLE customers (id BIGINT, name STRING) WITH (
 *   'connector' = 'parquet-lookup',
 *   'path' = 's3a://bucket/customers/',
 *   'lookup.async.threads' = '32',
 *   'hadoop.fs.s3a.endpoint' = 'http://127.0.0.1:9000'
 * );
 * }</pre>
 */
public final class ParquetLookupOptions {

    private ParquetLookupOptions() {}

    // ------------------------------------------------------------------ where the files are

    public static final ConfigOption<String> PATH =
            ConfigOptions.key("path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A Parquet file or a directory of Parquet files sorted by the lookup"
                                    + " key, as a Hadoop URI (file://, hdfs://, s3a://, ...) or a"
                                    + " plain local path. Hidden ('.') and '_'-prefixed files are"
                                    + " skipped.");

    // A plain string split on commas: Flink's list options separate items with ';'.
    public static final ConfigOption<String> SORT_KEY =
            ConfigOptions.key("sort-key")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The columns the files are sorted by, comma-separated (e.g."
                                    + " 'g,name'), for files that do not declare their order in"
                                    + " Parquet's sorting_columns (DuckDB, Spark, ...). When the"
                                    + " files declare an order, this option must agree with it."
                                    + " The order is verified from the files' statistics.");

    public static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format")
                    .stringType()
                    .defaultValue("files")
                    .withDescription(
                            "What 'path' names. 'files' (default): a Parquet file or a directory"
                                    + " of them (see 'path.snapshot-mode'). 'iceberg': the root"
                                    + " (location) of an Iceberg table kept by location (a Hadoop"
                                    + " table); its current snapshot is served and, with"
                                    + " 'refresh.interval', each newer snapshot as one swap."
                                    + " 'delta': the root of a Delta Lake table; its latest"
                                    + " version is served the same way. Both need the"
                                    + " parquet-lookup-formats jar and its dependencies beside"
                                    + " the connector; deleted rows (position deletes, deletion"
                                    + " vectors) are applied, versions with equality deletes,"
                                    + " schema changes or (Delta) partitions are refused. See"
                                    + " docs/formats.md.");

    public static final ConfigOption<String> PATH_SNAPSHOT_MODE =
            ConfigOptions.key("path.snapshot-mode")
                    .stringType()
                    .defaultValue(SnapshotMode.ALL_FILES.optionValue())
                    .withDescription(
                            "What 'path' holds. 'all-files' (default): the table's files; publish"
                                    + " a new version of a file by writing it under a hidden"
                                    + " ('.' or '_') name and renaming it into place."
                                    + " 'latest-success': versioned snapshot directories (e.g."
                                    + " v=0007/); the newest one (digit runs compared as numbers)"
                                    + " holding a _SUCCESS file is served, so write the marker"
                                    + " last. See docs/refresh.md.");

    // ------------------------------------------------------------------ changing files

    public static final ConfigOption<Duration> REFRESH_INTERVAL =
            ConfigOptions.key("refresh.interval")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "How often each lookup function lists 'path' again in the background"
                                    + " (e.g. '1 min'). A new, rewritten or removed file, or a"
                                    + " newer complete snapshot directory, is served from the"
                                    + " next lookup on; lookups in flight finish on the files"
                                    + " they started with. A failed refresh (half-written file,"
                                    + " listing error) keeps the last good files and is retried"
                                    + " at the next interval. Unset (the default): the files"
                                    + " found at start are served for the job's lifetime. Not"
                                    + " used with 'lookup.cache' = 'FULL' (use"
                                    + " 'lookup.full-cache.*' reloads); with 'PARTIAL', cached"
                                    + " rows change only when they expire.");

    /** Prefix of options passed to the Hadoop configuration, without the prefix. */
    public static final String HADOOP_PREFIX = "hadoop.";

    /**
     * Prefix of options passed to the Iceberg format as they are: {@code iceberg.catalog.*} are the
     * properties of the Iceberg catalog the table is loaded from (docs/formats.md).
     */
    public static final String ICEBERG_PREFIX = "iceberg.";

    public static final ConfigOption<String> SCAN_VERSION =
            ConfigOptions.key("scan.version")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "With 'format' = 'delta' or 'iceberg': serve this version for the"
                                    + " job's lifetime (a Delta version number, an Iceberg"
                                    + " snapshot id) instead of following the newest one (time"
                                    + " travel). Unset (the default): the newest version.");

    // ------------------------------------------------------------------ lookups

    public static final ConfigOption<Boolean> LOOKUP_ASYNC =
            ConfigOptions.key("lookup.async")
                    .booleanType()
                    .noDefaultValue()
                    .withDescription(
                            "Whether lookups are offered asynchronously (many in flight per"
                                    + " subtask, no thread held while reads are out). Unset"
                                    + " (auto): only the synchronous function when every file of"
                                    + " the table is local (file:// or a plain path), where a"
                                    + " lookup is CPU work and Flink's async operator only adds"
                                    + " cost per event; both otherwise, and the planner takes the"
                                    + " async one. 'true': both, whatever the files. 'false':"
                                    + " only the synchronous one. When both are offered, the"
                                    + " LOOKUP hint's 'async' option chooses. Ignored with"
                                    + " 'lookup.cache' = 'FULL', which is synchronous.");

    public static final ConfigOption<Integer> LOOKUP_ASYNC_THREADS =
            ConfigOptions.key("lookup.async.threads")
                    .intType()
                    .defaultValue(ParquetLookupConfig.DEFAULT_ASYNC_THREADS)
                    .withDescription(
                            "No longer used by asynchronous lookups, which hold no thread while"
                                    + " their reads are out (see"
                                    + " 'lookup.max-in-flight-requests'); accepted for"
                                    + " compatibility.");

    public static final ConfigOption<Integer> LOOKUP_MAX_IN_FLIGHT_REQUESTS =
            ConfigOptions.key("lookup.max-in-flight-requests")
                    .intType()
                    .defaultValue(ParquetLookupConfig.DEFAULT_MAX_IN_FLIGHT_REQUESTS)
                    .withDescription(
                            "Read requests (one per page) an asynchronous lookup function keeps in"
                                    + " flight per subtask at most. Asynchronous lookups on object"
                                    + " stores hold no thread while their requests are out, so"
                                    + " this, with 'table.exec.async-lookup.buffer-capacity', is"
                                    + " what bounds their concurrency: at a request latency L a"
                                    + " subtask serves up to about this / (2 x L) cold lookups per"
                                    + " second, each sending its key and value page requests"
                                    + " together (64 / (2 x 20 ms) = 1,600). Local and cached pages take no"
                                    + " request.");

    // ------------------------------------------------------------------ caches below the rows

    public static final ConfigOption<MemorySize> METADATA_CACHE_MAX_BYTES =
            ConfigOptions.key("metadata-cache.max-bytes")
                    .memoryType()
                    .defaultValue(new MemorySize(ParquetLookupConfig.DEFAULT_METADATA_CACHE_BYTES))
                    .withDescription(
                            "Bound of the metadata cache (parsed footers, page indexes and decoded"
                                    + " dictionaries). One cache is shared by every lookup function"
                                    + " of the job in a TaskManager; footers and page indexes take"
                                    + " about 1% of the file size, dictionaries their decoded size.");

    public static final ConfigOption<MemorySize> PAGE_CACHE_MAX_BYTES =
            ConfigOptions.key("page-cache.max-bytes")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "Bound of the cache of decompressed pages, shared like the metadata"
                                    + " cache. Not set (the default): an eighth of the"
                                    + " TaskManager's max heap, at most 1 GiB, so small tables end"
                                    + " up decoded in memory. A page is cached on its second use;"
                                    + " 0 disables the cache.");

    // ------------------------------------------------------------------ reading

    public static final ConfigOption<Boolean> PAGE_INDEX_SYNTHESIZE =
            ConfigOptions.key("page-index.synthesize")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Files without a page index (DuckDB, pyarrow by default) get one built"
                                    + " from their page headers, row group by row group on the"
                                    + " first lookup into each, so lookups read single pages"
                                    + " instead of whole column chunks. Opening reads the footer"
                                    + " only; the first lookup into a row group reads its page"
                                    + " headers (on object stores: its column chunks, once). Set"
                                    + " to false to read the key column chunk of a row group per"
                                    + " lookup.");

    public static final ConfigOption<Boolean> LOCAL_FILES_MMAP =
            ConfigOptions.key("local-files.mmap")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Read local files (file://) through a memory mapping: no system call"
                                    + " per read, about 40% less CPU per lookup. Mapped files must"
                                    + " be replaced by rename, never rewritten or truncated in"
                                    + " place (a lookup touching a lost page fails)."
                                    + " Set to false for such files and for NFS mounts: they are"
                                    + " then read with positioned reads.");

    // ------------------------------------------------------------------ remote files on local disk

    public static final ConfigOption<String> LOCAL_CACHE_DIR =
            ConfigOptions.key("local-cache.dir")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Directory below which the TaskManager keeps the local disk tier of"
                                    + " remote files (s3a://, hdfs://, ...; local files are never"
                                    + " copied). Unset: the first of Flink's 'io.tmp.dirs'. Each"
                                    + " TaskManager process uses a fresh subdirectory and deletes"
                                    + " it when the last table closes; subdirectories of ended"
                                    + " processes are removed at start.");

    public static final ConfigOption<MemorySize> LOCAL_CACHE_MAX_BYTES =
            ConfigOptions.key("local-cache.max-bytes")
                    .memoryType()
                    .defaultValue(new MemorySize(DiskTierConfig.DEFAULT_MAX_BYTES))
                    .withDescription(
                            "Bound of the local disk tier of remote files: byte ranges (pages,"
                                    + " column chunks, footers) fetched from the store are kept on"
                                    + " the TaskManager's disk, checksummed, and served from a"
                                    + " memory mapping, so a warm lookup sends no request. One"
                                    + " tier per TaskManager, shared by every table and job with"
                                    + " the same 'local-cache.dir' and bound; least recently used"
                                    + " ranges are evicted. 0 disables it.");

    public static final ConfigOption<String> WARMUP =
            ConfigOptions.key("warmup")
                    .stringType()
                    .defaultValue(DiskTierConfig.DEFAULT_WARMUP.optionValue())
                    .withDescription(
                            "What the disk tier fetches in the background after a table on"
                                    + " remote files opens, while lookups are already served:"
                                    + " 'all' (default) every column chunk, sort-key columns"
                                    + " first, so that once warm a lookup sends no request;"
                                    + " 'key-columns' only the sort-key columns (a cold lookup"
                                    + " then fetches only value pages); 'none'. At most 90% of"
                                    + " 'local-cache.max-bytes' is warmed. Ignored when"
                                    + " 'local-cache.max-bytes' is 0.");
}
