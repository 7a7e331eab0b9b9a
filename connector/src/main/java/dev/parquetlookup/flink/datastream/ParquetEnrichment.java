package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.flink.lookup.TableFiles;

import org.apache.flink.api.common.functions.JoinFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.connector.source.lookup.cache.DefaultLookupCache;
import org.apache.flink.table.connector.source.lookup.cache.LookupCache;
import org.apache.flink.types.Row;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds an {@link org.apache.flink.streaming.api.functions.async.AsyncFunction} that enriches each
 * event of a {@code DataStream} with the rows of a sorted Parquet dimension table whose key equals
 * the event's key, for {@code AsyncDataStream.unorderedWait} or {@code orderedWait}. It runs on the
 * same engine, shared metadata and page caches, metrics and options as the {@code parquet-lookup}
 * SQL connector.
 *
 * <pre>{@code
 * DataStream<EnrichedOrder> enriched = AsyncDataStream.unorderedWait(
 *     orders,
 *     ParquetEnrichment.<Order>from("s3a://bucket/customers/")
 *         .key(order -> order.customerId)        // the first sort-key column, e.g. id BIGINT
 *         .columns("name", "country")            // projection; default: every column
 *         .join((order, customer) -> new EnrichedOrder(order, customer))  // customer: Row or null
 *         .build(),
 *     5, TimeUnit.SECONDS, 1000);
 * }</pre>
 *
 * <p><b>Keys.</b> {@link #key(KeyExtractor)} binds key functions to the files' sort-key columns in
 * order (the first call to the first column, and so on): they must give the sort key or a leading
 * prefix of it. {@link #key(String, KeyExtractor)} names the column instead; named keys may also
 * include columns after the prefix, which are compared on the rows found, or be any other columns
 * (a secondary key, e.g. {@code .key("email", order -> order.email)} on a table sorted by id),
 * served through a key index per file on those columns (option {@code secondary-keys}). A null key
 * value matches nothing. Key values use the Java types of Flink's {@code Row}: {@code Long} for
 * BIGINT, {@code Integer} for INT, {@code String}, {@code BigDecimal}, {@code LocalDate}, {@code
 * LocalDateTime} for TIMESTAMP, {@code Instant} for TIMESTAMP_LTZ, {@code byte[]}.
 *
 * <p><b>Rows.</b> The dimension row is a {@link Row} of the projected columns, readable by name
 * ({@code customer.getField("name")}) or position, with the same Java types (DECIMAL as {@code
 * BigDecimal}, TIME as {@code LocalTime} in milliseconds, ...). It is a new object per call.
 *
 * <p><b>Join semantics.</b> Left join by default: an event without a matching row is passed to
 * {@link #join} with {@code null}. {@link #innerJoin()} drops such events. A key with several rows
 * calls {@link #join} once per row (one output per row, like SQL); {@link #joinAll} is called once
 * per event with every row (an empty list for a miss in a left join). A join function returning
 * {@code null} emits nothing for that call.
 *
 * <p><b>Concurrency, timeouts, failures.</b> Lookups hold no thread while their reads are out:
 * {@code AsyncDataStream}'s capacity bounds how many events are in flight, {@link
 * #maxInFlightRequests} how many reads. The join function may run on a thread of the storage
 * client, so it must not rely on the task thread. A failed lookup (after {@link #maxRetries}
 * retries) or a throwing key or join function fails the event's future, and so the job; a lookup
 * that exceeds {@code AsyncDataStream}'s timeout fails it with a {@link
 * java.util.concurrent.TimeoutException} that names the table.
 *
 * <p>{@link EnrichmentJoin#build()} opens the files once on the client to check the key and the
 * columns, as planning does for SQL, so a mistake fails before the job is submitted.
 *
 * @param <IN> the event type
 */
public final class ParquetEnrichment<IN> {

    private static final Logger LOG = LoggerFactory.getLogger(ParquetEnrichment.class);

    private final String path;
    private final List<String> keyColumns = new ArrayList<>();
    private final List<KeyExtractor<IN>> keyExtractors = new ArrayList<>();
    private boolean namedKeys;
    private boolean positionalKeys;
    @Nullable private List<String> columns;
    private boolean inner;

    /** Every table setting, by the SQL options' declarations; DataStream lookups are async. */
    private final ParquetLookupConfig.Builder config;

    @Nullable private LookupCache rowCache;

    private ParquetEnrichment(String path) {
        this.path = Objects.requireNonNull(path, "path");
        this.config =
                ParquetLookupConfig.builder(path, path)
                        .set(ParquetLookupOptions.LOOKUP_ASYNC, true);
    }

    /**
     * Starts a builder over a sorted Parquet file or a directory of them (a Hadoop URI such as
     * {@code s3a://bucket/customers/}, {@code hdfs://...}, {@code file:///...}, or a local path).
     */
    public static <IN> ParquetEnrichment<IN> from(String path) {
        return new ParquetEnrichment<>(path);
    }

    /** The table's name in messages, metrics' thread names and logs; default: the path. */
    public ParquetEnrichment<IN> name(String name) {
        config.tableName(Objects.requireNonNull(name, "name"));
        return this;
    }

    /** The next key value, bound to the next column of the files' sort key. */
    public ParquetEnrichment<IN> key(KeyExtractor<IN> extractor) {
        notMixed(namedKeys);
        positionalKeys = true;
        keyExtractors.add(Objects.requireNonNull(extractor, "extractor"));
        return this;
    }

    /** A key value for the named column of the files. */
    public ParquetEnrichment<IN> key(String column, KeyExtractor<IN> extractor) {
        notMixed(positionalKeys);
        if (keyColumns.contains(column)) {
            throw new IllegalArgumentException("key column '" + column + "' given twice");
        }
        namedKeys = true;
        keyColumns.add(Objects.requireNonNull(column, "column"));
        keyExtractors.add(Objects.requireNonNull(extractor, "extractor"));
        return this;
    }

    private static void notMixed(boolean otherKindGiven) {
        if (otherKindGiven) {
            throw new IllegalStateException(
                    "Mixing key(extractor) and key(column, extractor): name every key column or"
                            + " none.");
        }
    }

    /** The columns of the dimension rows, in this order; default: every readable column. */
    public ParquetEnrichment<IN> columns(String... columns) {
        if (columns.length == 0) {
            throw new IllegalArgumentException("columns() needs at least one column");
        }
        this.columns = List.of(columns);
        return this;
    }

    /**
     * The columns the files are sorted by, for files that do not declare their order (DuckDB,
     * Spark, ...); as the SQL option {@code sort-key}. Verified from the files' statistics.
     */
    public ParquetEnrichment<IN> sortKey(String... columns) {
        return option(ParquetLookupOptions.SORT_KEY, String.join(",", columns));
    }

    /**
     * Any option of the SQL connector by its declaration in {@link ParquetLookupOptions}, e.g.
     * {@code option(ParquetLookupOptions.WARMUP, TableWarmup.Mode.NONE)}; the named setters below
     * are shorthands for the common ones. Values are checked by {@link EnrichmentJoin#build()},
     * with the option's name.
     */
    public <T> ParquetEnrichment<IN> option(ConfigOption<T> option, T value) {
        config.set(
                Objects.requireNonNull(option, "option"), Objects.requireNonNull(value, "value"));
        return this;
    }

    private ParquetEnrichment<IN> bytes(ConfigOption<MemorySize> option, long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException(
                    "'" + option.key() + "' must not be negative, got " + bytes + ".");
        }
        return option(option, new MemorySize(bytes));
    }

    /** A Hadoop configuration entry, e.g. {@code hadoop("fs.s3a.endpoint", "http://...")}. */
    public ParquetEnrichment<IN> hadoop(String key, String value) {
        Objects.requireNonNull(key, "key");
        config.option(ParquetLookupOptions.HADOOP_PREFIX + key, Objects.requireNonNull(value));
        return this;
    }

    /**
     * A table format's own option, as the SQL option of the same name: {@code scan.version} (a
     * fixed Delta version or Iceberg snapshot id) or {@code iceberg.catalog.*} (a catalog), e.g.
     * {@code formatOption("scan.version", "4713")}. Hadoop settings go through {@link #hadoop}.
     */
    public ParquetEnrichment<IN> formatOption(String key, String value) {
        Objects.requireNonNull(key, "key");
        List<String> prefixes = new ArrayList<>();
        TableFormat.available().forEach(f -> f.optionPrefix().ifPresent(prefixes::add));
        if (!key.equals(TableFormat.SCAN_VERSION) && prefixes.stream().noneMatch(key::startsWith)) {
            throw new IllegalArgumentException(
                    "formatOption takes '"
                            + TableFormat.SCAN_VERSION
                            + "' and the options of the table formats on the class path "
                            + prefixes.stream().map(p -> "'" + p + "*'").toList()
                            + ", got '"
                            + key
                            + "'; give Hadoop settings with hadoop(key, value)");
        }
        config.option(key, Objects.requireNonNull(value, "value"));
        return this;
    }

    /** Drops events whose key has no row (default: left join, {@code join} gets null). */
    public ParquetEnrichment<IN> innerJoin() {
        this.inner = true;
        return this;
    }

    /** Keeps events whose key has no row, joined with null (the default). */
    public ParquetEnrichment<IN> leftJoin() {
        this.inner = false;
        return this;
    }

    /**
     * Has no effect: lookups hold no thread while their reads are out, and their concurrency is
     * {@link #maxInFlightRequests}. Logs a warning.
     *
     * @deprecated remove the call; use {@link #maxInFlightRequests} to bound concurrent reads
     */
    @Deprecated
    public ParquetEnrichment<IN> asyncThreads(int threads) {
        LOG.warn(
                "ParquetEnrichment({}).asyncThreads({}) has no effect and will be removed: {}",
                path,
                threads,
                ParquetLookupOptions.DEPRECATED.get(ParquetLookupOptions.LOOKUP_ASYNC_THREADS));
        return this;
    }

    /**
     * Read requests one subtask keeps in flight at most (default 64; SQL: {@code
     * lookup.max-in-flight-requests}). On object stores each is one ranged GET of a few
     * milliseconds, so this bounds throughput per subtask: about {@code n / (2 x latency)}
     * lookups/s when every lookup misses every cache.
     */
    public ParquetEnrichment<IN> maxInFlightRequests(int requests) {
        return option(ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS, requests);
    }

    /** Bound of the TaskManager-wide metadata cache (default 256 MiB). */
    public ParquetEnrichment<IN> metadataCacheMaxBytes(long bytes) {
        return bytes(ParquetLookupOptions.METADATA_CACHE_MAX_BYTES, bytes);
    }

    /**
     * Bound of the TaskManager-wide cache of decompressed pages; 0 turns it off. Default: an eighth
     * of the TaskManager's max heap, at most 1 GiB (pages are cached on their second use, so small
     * tables end up decoded in memory and uniform keys over large tables do not churn it).
     */
    public ParquetEnrichment<IN> pageCacheMaxBytes(long bytes) {
        return bytes(ParquetLookupOptions.PAGE_CACHE_MAX_BYTES, bytes);
    }

    /**
     * Whether local files are read through a memory mapping (default true, like the SQL option
     * {@code local-files.mmap}). Turn it off for files that may be rewritten in place and for NFS
     * mounts.
     */
    public ParquetEnrichment<IN> mapLocalFiles(boolean mapLocalFiles) {
        return option(ParquetLookupOptions.LOCAL_FILES_MMAP, mapLocalFiles);
    }

    /**
     * Whether files without a page index (DuckDB, pyarrow by default) get one built from their page
     * headers, row group by row group on the first lookup into each (default true; SQL: {@code
     * page-index.synthesize}). Off: a lookup reads the key column chunk of a row group.
     */
    public ParquetEnrichment<IN> synthesizePageIndex(boolean synthesize) {
        return option(ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE, synthesize);
    }

    /**
     * Bound of the TaskManager's local disk tier of remote files (the SQL {@code
     * local-cache.max-bytes}, default 1 GiB; 0 turns it off): pages and column chunks fetched from
     * {@code s3a://}, {@code hdfs://}, ... are kept on local disk and served from there. Local
     * files are never copied.
     */
    public ParquetEnrichment<IN> localCacheMaxBytes(long bytes) {
        return bytes(ParquetLookupOptions.LOCAL_CACHE_MAX_BYTES, bytes);
    }

    /**
     * What a key that is not a leading prefix of the sort key does (the SQL {@code
     * secondary-keys}): {@code INDEX} (default) serves it through a key index per file on its
     * columns, {@code REFUSE} refuses it at {@link EnrichmentJoin#build()}.
     */
    public ParquetEnrichment<IN> secondaryKeys(ParquetLookupOptions.SecondaryKeys mode) {
        return option(ParquetLookupOptions.SECONDARY_KEYS, mode);
    }

    /**
     * Directory below which the disk tier lives (the SQL {@code local-cache.dir}); default: the
     * first of Flink's {@code io.tmp.dirs}.
     */
    public ParquetEnrichment<IN> localCacheDir(String directory) {
        return option(ParquetLookupOptions.LOCAL_CACHE_DIR, directory);
    }

    /**
     * What the disk tier fetches in the background once the table opens (the SQL {@code warmup}):
     * {@code ALL} (default), {@code KEY_COLUMNS} or {@code NONE}. Lookups never wait for it.
     */
    public ParquetEnrichment<IN> warmup(TableWarmup.Mode mode) {
        return option(ParquetLookupOptions.WARMUP, mode);
    }

    /** Retries of a lookup that failed with an I/O error (default 3). */
    public ParquetEnrichment<IN> maxRetries(int retries) {
        return option(ParquetLookupOptions.MAX_RETRIES, retries);
    }

    /**
     * Lists the path again every {@code interval} and serves new or rewritten files from then on
     * (the SQL {@code refresh.interval}); by default the files found at start are served for the
     * job's lifetime. See docs/refresh.md for the publishing patterns.
     */
    public ParquetEnrichment<IN> refreshInterval(Duration interval) {
        return option(ParquetLookupOptions.REFRESH_INTERVAL, interval);
    }

    /**
     * What the path holds (the SQL {@code path.snapshot-mode}): the files themselves (default), or
     * versioned snapshot directories of which the newest with a {@code _SUCCESS} file is served.
     */
    public ParquetEnrichment<IN> snapshotMode(SnapshotMode mode) {
        return option(ParquetLookupOptions.PATH_SNAPSHOT_MODE, mode);
    }

    /**
     * What the path names (the SQL {@code format}): {@code "files"} (default, a directory) or
     * {@code "iceberg"} or {@code "delta"} (a table's root, needs the parquet-lookup-formats jar;
     * see docs/formats.md). With {@link #refreshInterval}, each newer table version is served as
     * one swap.
     */
    public ParquetEnrichment<IN> format(String format) {
        if (!format.trim().equalsIgnoreCase(TableFormat.FILES)) {
            TableFormat.find(format); // an unknown format is refused here, on the client
        }
        return option(ParquetLookupOptions.FORMAT, format);
    }

    /**
     * A per-subtask cache of looked-up rows by key, Flink's {@link DefaultLookupCache} (the SQL
     * {@code lookup.cache} = {@code PARTIAL}): at most {@code maxRows} keys, each kept {@code
     * expireAfterWrite} at most; misses are cached too. Its metrics are Flink's {@code cache.*}.
     */
    public ParquetEnrichment<IN> rowCache(long maxRows, Duration expireAfterWrite) {
        return rowCache(
                DefaultLookupCache.newBuilder()
                        .maximumSize(maxRows)
                        .expireAfterWrite(expireAfterWrite)
                        .cacheMissingKey(true)
                        .build());
    }

    /** A row cache configured in full, e.g. {@code DefaultLookupCache.newBuilder()...build()}. */
    public ParquetEnrichment<IN> rowCache(LookupCache cache) {
        this.rowCache = Objects.requireNonNull(cache, "cache");
        return this;
    }

    /** The function that makes one output of an event and one dimension row (null on a miss). */
    public <OUT> EnrichmentJoin<IN, OUT> join(JoinFunction<IN, Row, OUT> join) {
        return new EnrichmentJoin<>(this, Objects.requireNonNull(join, "join"), null);
    }

    /**
     * The function that makes one output of an event and all its dimension rows (empty on a miss),
     * instead of one call per row.
     */
    public <OUT> EnrichmentJoin<IN, OUT> joinAll(JoinFunction<IN, List<Row>, OUT> joinAll) {
        return new EnrichmentJoin<>(this, null, Objects.requireNonNull(joinAll, "joinAll"));
    }

    /** Builds the function; {@link EnrichmentJoin#build()} calls it. */
    <OUT> ParquetEnrichmentFunction<IN, OUT> build(
            @Nullable JoinFunction<IN, Row, OUT> join,
            @Nullable JoinFunction<IN, List<Row>, OUT> joinAll,
            @Nullable TypeInformation<OUT> outputType) {
        if (keyExtractors.isEmpty()) {
            throw new IllegalStateException(
                    "No key: call key(event -> ...) once per sort-key column, e.g."
                            + " .key(order -> order.customerId).");
        }
        ParquetLookupConfig config = this.config.build();
        String tableName = config.tableName();
        EnrichmentPlan plan =
                EnrichmentPlan.resolve(
                        tableName,
                        TableFiles.inspect(config),
                        positionalKeys ? null : keyColumns,
                        keyExtractors.size(),
                        columns,
                        config.get(ParquetLookupOptions.SECONDARY_KEYS));
        @SuppressWarnings("unchecked")
        KeyExtractor<IN>[] extractors = keyExtractors.toArray(new KeyExtractor[0]);
        return new ParquetEnrichmentFunction<>(
                config, plan, extractors, inner, rowCache, join, joinAll, outputType);
    }

    @Override
    public String toString() {
        return "ParquetEnrichment(" + path + ", keys " + keyColumns + ", columns " + columns + ")";
    }
}
