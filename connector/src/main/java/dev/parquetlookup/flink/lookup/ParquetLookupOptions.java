package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.TableWarmup;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.connector.source.lookup.LookupOptions;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Every option of a {@code parquet-lookup} table, declared once (key, type, default, description):
 * the SQL connector accepts them in {@code WITH}, the DataStream builder sets them ({@code
 * ParquetEnrichment.option(...)}), both turn them into a {@link ParquetLookupConfig}, and the
 * options table of docs/sql-connector.md is checked against them by a test. A new option is a field
 * here, added to {@link #OPTIONS}, read where it is used with {@code config.get(OPTION)}.
 *
 * <p>Flink's own {@link LookupOptions} ({@code lookup.cache}, {@code lookup.partial-cache.*},
 * {@code lookup.full-cache.*}, {@code lookup.max-retries}) are accepted as they are; {@code
 * hadoop.*} keys are passed to the Hadoop configuration with the prefix removed; a table format's
 * own options (its {@link TableFormat#optionPrefix()}, e.g. {@code iceberg.catalog.*}) are passed
 * to it as they are. Example:
 *
 * <pre>{@code
 * CREATE TABLE customers (id BIGINT, name STRING) WITH (
 *   'connector' = 'parquet-lookup',
 *   'path' = 's3a://bucket/customers/',
 *   'lookup.max-in-flight-requests' = '128',
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

    // A string, not an enum: formats are plug-ins found on the class path (TableFormat).
    public static final ConfigOption<String> FORMAT =
            ConfigOptions.key("format")
                    .stringType()
                    .defaultValue(TableFormat.FILES)
                    .withDescription(
                            "What 'path' names. 'files' (default): a Parquet file or a directory"
                                    + " of them (see 'path.snapshot-mode'). 'iceberg': the root"
                                    + " (location) of an Iceberg table kept by location (a Hadoop"
                                    + " table); its current snapshot is served and, with"
                                    + " 'refresh.interval', each newer snapshot as one swap."
                                    + " 'delta': the root of a Delta Lake table; its latest"
                                    + " version is served the same way. The SQL jar includes"
                                    + " both; with Maven, add the parquet-lookup-formats"
                                    + " artifact. Deleted rows (position deletes, deletion"
                                    + " vectors) are applied; versions with equality deletes or"
                                    + " type widening are refused. See docs/formats.md.");

    public static final ConfigOption<SnapshotMode> PATH_SNAPSHOT_MODE =
            ConfigOptions.key("path.snapshot-mode")
                    .enumType(SnapshotMode.class)
                    .defaultValue(SnapshotMode.ALL_FILES)
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

    public static final ConfigOption<String> SCAN_VERSION =
            ConfigOptions.key(TableFormat.SCAN_VERSION)
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

    /**
     * Removed: accepted so that existing tables keep working, logged as having no effect ({@link
     * #DEPRECATED}), never read.
     */
    @Deprecated
    public static final ConfigOption<Integer> LOOKUP_ASYNC_THREADS =
            ConfigOptions.key("lookup.async.threads")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Deprecated, no effect: asynchronous lookups hold no thread while"
                                    + " their reads are out; their concurrency is"
                                    + " 'lookup.max-in-flight-requests'. Accepted with a warning.");

    public static final ConfigOption<Integer> LOOKUP_MAX_IN_FLIGHT_REQUESTS =
            ConfigOptions.key("lookup.max-in-flight-requests")
                    .intType()
                    .defaultValue(64)
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
                    .defaultValue(MemorySize.ofMebiBytes(256))
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

    public static final ConfigOption<UnsortedFiles> UNSORTED_FILES =
            ConfigOptions.key("unsorted-files")
                    .enumType(UnsortedFiles.class)
                    .defaultValue(UnsortedFiles.INDEX)
                    .withDescription(
                            "Files not sorted by the key (Delta/Iceberg maintenance, plain writes):"
                                    + " 'index' (default) serves them through a key index built"
                                    + " once per file in the background, kept on local disk; 'refuse'"
                                    + " refuses them. See docs/architecture.md.");

    /** What a lookup join on columns that are not a prefix of the sort key does. */
    public enum SecondaryKeys {
        /** Served through a key index per file on the join's columns (the default). */
        INDEX,
        /** Refused at planning (unless {@code 'lookup.cache' = 'FULL'}). */
        REFUSE
    }

    public static final ConfigOption<SecondaryKeys> SECONDARY_KEYS =
            ConfigOptions.key("secondary-keys")
                    .enumType(SecondaryKeys.class)
                    .defaultValue(SecondaryKeys.INDEX)
                    .withDescription(
                            "Lookup joins on columns that are not the sort key or a leading prefix"
                                    + " of it (an e-mail address on a table sorted by id): 'index'"
                                    + " (default) serves them through a key index per file on the"
                                    + " join's key columns, built once in the background when the"
                                    + " job starts and kept on local disk; 'refuse' refuses them at"
                                    + " planning (the FULL cache still takes any key). See"
                                    + " docs/sql-connector.md#lookups-on-other-columns.");

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
                                    + " processes are removed at start. The local forms of"
                                    + " 'repage' live below it too, kept across restarts.");

    public static final ConfigOption<MemorySize> LOCAL_CACHE_MAX_BYTES =
            ConfigOptions.key("local-cache.max-bytes")
                    .memoryType()
                    // Holds the 10M-row seed table (about 390 MB: 38.6 MB per 1M rows measured).
                    .defaultValue(MemorySize.ofMebiBytes(1024))
                    .withDescription(
                            "Bound of the local disk tier of remote files: byte ranges (pages,"
                                    + " column chunks, footers) fetched from the store are kept on"
                                    + " the TaskManager's disk, checksummed, and served from a"
                                    + " memory mapping, so a warm lookup sends no request. One"
                                    + " tier per TaskManager, shared by every table and job with"
                                    + " the same 'local-cache.dir' and bound; least recently used"
                                    + " ranges are evicted. 0 disables it.");

    public static final ConfigOption<TableWarmup.Mode> WARMUP =
            ConfigOptions.key("warmup")
                    .enumType(TableWarmup.Mode.class)
                    .defaultValue(TableWarmup.Mode.ALL)
                    .withDescription(
                            "What the disk tier fetches in the background after a table on"
                                    + " remote files opens, while lookups are already served:"
                                    + " 'all' (default) every column chunk, sort-key columns"
                                    + " first, so that once warm a lookup sends no request;"
                                    + " 'key-columns' only the sort-key columns (a cold lookup"
                                    + " then fetches only value pages); 'none'. At most 90% of"
                                    + " 'local-cache.max-bytes' is warmed. Ignored when"
                                    + " 'local-cache.max-bytes' is 0.");

    // ------------------------------------------------------------------ pages too large per lookup

    public static final ConfigOption<LocalForms.Mode> REPAGE =
            ConfigOptions.key("repage")
                    .enumType(LocalForms.Mode.class)
                    .defaultValue(LocalForms.Mode.AUTO)
                    .withDescription(
                            "'auto' (default): a file whose pages hold more than 16,384 rows on"
                                    + " average (DuckDB's default layout: one page per"
                                    + " 122,880-row column chunk) gets a local form, built once"
                                    + " in the background on the TaskManager: the same rows in"
                                    + " the same order, in 256-row pages with a page index."
                                    + " Lookups read the file as it is until the form is ready,"
                                    + " then from it. Forms live in 'parquet-lookup-local-forms'"
                                    + " below 'local-cache.dir', are checked by CRC32C and reused"
                                    + " by every table, job and restart for an unchanged file."
                                    + " 'off': read every file as it is.");

    public static final ConfigOption<MemorySize> REPAGE_MAX_BYTES =
            ConfigOptions.key("repage.max-bytes")
                    .memoryType()
                    .defaultValue(MemorySize.ofMebiBytes(4096))
                    .withDescription(
                            "Bound of the local forms on a TaskManager's disk (shared by its"
                                    + " tables). Forms no table of the process reads are evicted"
                                    + " to make room; a file whose form does not fit is read as"
                                    + " it is, with a warning in the log. Must be positive.");

    // ------------------------------------------------------------------ Flink's, reused

    /** Flink's {@code lookup.max-retries} (default 3): retries of a lookup's failed read. */
    public static final ConfigOption<Integer> MAX_RETRIES = LookupOptions.MAX_RETRIES;

    // ------------------------------------------------------------------ the sets

    /** The options of a table, Flink's {@link LookupOptions} aside; read into every config. */
    @SuppressWarnings("deprecation")
    public static final List<ConfigOption<?>> OPTIONS =
            List.of(
                    PATH,
                    SORT_KEY,
                    FORMAT,
                    PATH_SNAPSHOT_MODE,
                    REFRESH_INTERVAL,
                    SCAN_VERSION,
                    LOOKUP_ASYNC,
                    LOOKUP_ASYNC_THREADS,
                    LOOKUP_MAX_IN_FLIGHT_REQUESTS,
                    METADATA_CACHE_MAX_BYTES,
                    PAGE_CACHE_MAX_BYTES,
                    PAGE_INDEX_SYNTHESIZE,
                    UNSORTED_FILES,
                    SECONDARY_KEYS,
                    LOCAL_FILES_MMAP,
                    LOCAL_CACHE_DIR,
                    LOCAL_CACHE_MAX_BYTES,
                    WARMUP,
                    REPAGE,
                    REPAGE_MAX_BYTES,
                    MAX_RETRIES);

    /**
     * Removed options, still accepted: each is logged once per table as having no effect, with what
     * to do instead (Flink's way of retiring a key without breaking a job's DDL).
     */
    @SuppressWarnings("deprecation")
    public static final Map<ConfigOption<?>, String> DEPRECATED =
            Map.of(
                    LOOKUP_ASYNC_THREADS,
                    "asynchronous lookups hold no thread while their reads are out; their"
                            + " concurrency is 'lookup.max-in-flight-requests'. Remove it.");
}
