package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TemporaryClassLoaderContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.FORMAT;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.HADOOP_PREFIX;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOCAL_CACHE_DIR;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOCAL_CACHE_MAX_BYTES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOCAL_FILES_MMAP;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOOKUP_ASYNC;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.MAX_RETRIES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.METADATA_CACHE_MAX_BYTES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.PAGE_CACHE_MAX_BYTES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.PATH;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.PATH_SNAPSHOT_MODE;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.REFRESH_INTERVAL;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.REPAGE;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.REPAGE_MAX_BYTES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.SCAN_VERSION;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.SORT_KEY;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.UNSORTED_FILES;
import static dev.parquetlookup.flink.lookup.ParquetLookupOptions.WARMUP;

/**
 * The options of one table, read from their declarations ({@link ParquetLookupOptions}), checked
 * and immutable; shipped to the task managers with the lookup functions.
 *
 * <p>SQL ({@code WITH}) and the DataStream builder both make it with {@link #of} from the same kind
 * of string map, so every default lives in one place, the declaration. An option is read where it
 * is used, {@code config.get(ParquetLookupOptions.X)}; the accessors below are the ones that derive
 * something. Example: {@code ParquetLookupConfig.builder("customers", "file:///data/customers/")
 * .set(ParquetLookupOptions.SORT_KEY, "id").build()}.
 */
public final class ParquetLookupConfig implements Serializable {

    private static final long serialVersionUID = 2L;

    private static final Logger LOG = LoggerFactory.getLogger(ParquetLookupConfig.class);

    /**
     * {@link #pageCacheMaxBytes()} when {@code page-cache.max-bytes} is not set: the page cache
     * takes {@link #AUTO_PAGE_CACHE_HEAP_SHARE} of the heap of the JVM that runs the lookups (the
     * TaskManager's, resolved there), at most {@link #AUTO_PAGE_CACHE_MAX_BYTES}.
     */
    public static final long PAGE_CACHE_AUTO = -1;

    /** Share of the TaskManager's max heap the page cache takes by default: one eighth. */
    public static final int AUTO_PAGE_CACHE_HEAP_SHARE = 8;

    /** Cap of the default page cache: 1 GiB. */
    public static final long AUTO_PAGE_CACHE_MAX_BYTES = 1L << 30;

    private final String tableName;

    /** The declared options that were set, with their typed values; the rest take defaults. */
    private final Configuration options;

    /** {@code hadoop.*} without the prefix, and the chosen format's own options as they are. */
    private final Map<String, String> hadoopOptions;

    private ParquetLookupConfig(
            String tableName, Configuration options, Map<String, String> hadoopOptions) {
        this.tableName = tableName;
        this.options = options;
        this.hadoopOptions = hadoopOptions;
    }

    /**
     * The configuration of the table {@code tableName} from its options as strings, as written in
     * SQL's {@code WITH} (other keys are ignored: the SQL factory refuses unknown ones first).
     *
     * @throws IllegalArgumentException if a value is malformed or out of range; the message names
     *     the option and says what to write
     */
    public static ParquetLookupConfig of(String tableName, Map<String, String> raw) {
        Configuration given = Configuration.fromMap(raw);
        Configuration options = new Configuration();
        for (ConfigOption<?> option : ParquetLookupOptions.OPTIONS) {
            String advice = ParquetLookupOptions.DEPRECATED.get(option);
            if (advice == null) {
                copy(given, options, option, raw.get(option.key()));
            } else if (given.contains(option)) { // accepted, never carried
                LOG.warn(
                        "Table '{}': option '{}' has no effect and will be removed: {}",
                        tableName,
                        option.key(),
                        advice);
            }
        }
        if (!options.contains(PATH)) {
            throw new IllegalArgumentException("Missing required option 'path'.");
        }
        TableFormat format = tableFormat(options.get(FORMAT));
        options.set(FORMAT, format == null ? TableFormat.FILES : format.name());

        Map<String, String> hadoop = new TreeMap<>(); // sorted: equal configs print alike
        Optional<String> formatPrefix = format == null ? Optional.empty() : format.optionPrefix();
        raw.forEach(
                (key, value) -> {
                    if (key.startsWith(HADOOP_PREFIX)) {
                        hadoop.put(key.substring(HADOOP_PREFIX.length()), value);
                    } else if (formatPrefix.map(key::startsWith).orElse(false)) {
                        hadoop.put(key, value); // the format's own, as they are
                    }
                });
        options.getOptional(SCAN_VERSION).ifPresent(v -> hadoop.put(SCAN_VERSION.key(), v));

        ParquetLookupConfig config =
                new ParquetLookupConfig(tableName, options, Collections.unmodifiableMap(hadoop));
        config.check();
        return config;
    }

    /** Copies a set option with its typed value; a malformed one is refused naming the option. */
    private static <T> void copy(
            Configuration from, Configuration to, ConfigOption<T> option, @Nullable String raw) {
        Optional<T> value;
        try {
            value = from.getOptional(option);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(malformed(option, raw, e));
        }
        value.ifPresent(v -> to.set(option, v));
    }

    private static String malformed(ConfigOption<?> option, @Nullable String raw, Exception e) {
        Object[] choices =
                option.hasDefaultValue() && option.defaultValue() instanceof Enum<?> d
                        ? d.getDeclaringClass().getEnumConstants()
                        : null;
        if (choices == null) {
            return String.format(
                    "Invalid value '%s' for option '%s': %s", raw, option.key(), e.getMessage());
        }
        List<String> quoted = new ArrayList<>();
        Arrays.stream(choices).forEach(c -> quoted.add("'" + c + "'"));
        return String.format(
                "Unknown %s '%s': use %s or %s.",
                option.key(),
                raw,
                String.join(", ", quoted.subList(0, quoted.size() - 1)),
                quoted.get(quoted.size() - 1));
    }

    /** The format named by {@code format}, or null for the built-in {@code files}. */
    @Nullable
    private static TableFormat tableFormat(String name) {
        String format = name.trim().toLowerCase(Locale.ROOT);
        if (format.equals(TableFormat.FILES)) {
            return null;
        }
        // The connector's loader: user jars' formats are found through the context loader too.
        try (TemporaryClassLoaderContext ignored =
                TemporaryClassLoaderContext.of(ParquetLookupConfig.class.getClassLoader())) {
            return TableFormat.find(format);
        } catch (LookupFileException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }

    /** Ranges and combinations; each message names the option. */
    private void check() {
        if (get(METADATA_CACHE_MAX_BYTES).getBytes() <= 0) {
            throw new IllegalArgumentException(
                    "'metadata-cache.max-bytes' must be positive, got "
                            + metadataCacheMaxBytes()
                            + " (footers and page indexes must be kept to serve lookups).");
        }
        if (sortKey().stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(
                    "'sort-key' = '"
                            + get(SORT_KEY)
                            + "' has an empty column name; write column names separated by"
                            + " commas, e.g. 'g,name'.");
        }
        boolean files = get(FORMAT).equals(TableFormat.FILES);
        if (!files && get(PATH_SNAPSHOT_MODE) != SnapshotMode.ALL_FILES) {
            throw new IllegalArgumentException(
                    "'path.snapshot-mode' applies to 'format' = 'files' only; the '"
                            + get(FORMAT)
                            + "' format serves the table's current version itself. Remove"
                            + " 'path.snapshot-mode'.");
        }
        if (files && options.contains(SCAN_VERSION)) {
            throw new IllegalArgumentException(
                    "'scan.version' applies to 'format' = 'delta' or 'iceberg' only. Remove it, or"
                            + " point 'path' at a snapshot directory.");
        }
        Duration interval = refreshInterval();
        if (interval != null && (interval.isNegative() || interval.isZero())) {
            throw new IllegalArgumentException(
                    "'refresh.interval' must be positive, got "
                            + interval
                            + "; leave it unset to never refresh.");
        }
        if (get(LOOKUP_MAX_IN_FLIGHT_REQUESTS) < 1) {
            throw new IllegalArgumentException(
                    "'lookup.max-in-flight-requests' must be at least 1, got "
                            + get(LOOKUP_MAX_IN_FLIGHT_REQUESTS)
                            + ".");
        }
        if (get(MAX_RETRIES) < 0) {
            throw new IllegalArgumentException(
                    "'lookup.max-retries' must not be negative, got " + get(MAX_RETRIES) + ".");
        }
        diskTier(); // checks local-cache.max-bytes
        if (get(REPAGE_MAX_BYTES).getBytes() <= 0) {
            throw new IllegalArgumentException(
                    "'repage.max-bytes' must be positive, got "
                            + get(REPAGE_MAX_BYTES)
                            + "; set 'repage' = 'off' to build no local form.");
        }
    }

    /** The value of a declared option: as set, else its default. */
    public <T> T get(ConfigOption<T> option) {
        return options.get(option);
    }

    /** The value of a declared option without a default, if set. */
    public <T> Optional<T> getOptional(ConfigOption<T> option) {
        return options.getOptional(option);
    }

    /** The table's name in the catalog, for messages. */
    public String tableName() {
        return tableName;
    }

    /** {@code path}: a Parquet file or directory (or a table format's root). */
    public String path() {
        return get(PATH);
    }

    /** {@code sort-key} split on commas, or empty to take the files' declared order. */
    public List<String> sortKey() {
        return getOptional(SORT_KEY)
                .map(v -> Arrays.stream(v.split(",", -1)).map(String::trim).toList())
                .orElse(List.of());
    }

    /** Hadoop configuration entries, and the table format's own options as they are. */
    public Map<String, String> hadoopOptions() {
        return hadoopOptions;
    }

    /** {@code lookup.async}; unset (auto) allows it, the SQL factory decides by the files. */
    public boolean async() {
        return getOptional(LOOKUP_ASYNC).orElse(true);
    }

    /** {@code metadata-cache.max-bytes} in bytes. */
    public long metadataCacheMaxBytes() {
        return get(METADATA_CACHE_MAX_BYTES).getBytes();
    }

    /** {@code page-cache.max-bytes} in bytes, or {@link #PAGE_CACHE_AUTO} when unset. */
    public long pageCacheMaxBytes() {
        return getOptional(PAGE_CACHE_MAX_BYTES).map(MemorySize::getBytes).orElse(PAGE_CACHE_AUTO);
    }

    /** {@code refresh.interval}, or null to serve the files found at start for the job's life. */
    @Nullable
    public Duration refreshInterval() {
        return getOptional(REFRESH_INTERVAL).orElse(null);
    }

    /**
     * The local disk tier of remote files and its warm-up ({@code local-cache.*}, {@code warmup}).
     */
    public DiskTierConfig diskTier() {
        return new DiskTierConfig(
                getOptional(LOCAL_CACHE_DIR).orElse(null),
                get(LOCAL_CACHE_MAX_BYTES).getBytes(),
                get(WARMUP));
    }

    /**
     * How the lookup functions follow the path: interval, snapshot mode, format, default read
     * retries.
     */
    public RefreshOptions refreshOptions() {
        return new RefreshOptions(
                refreshInterval(), get(PATH_SNAPSHOT_MODE), RetryPolicy.defaults(), get(FORMAT));
    }

    /**
     * The page cache's bound in this JVM: the configured one, or by default ({@link
     * #PAGE_CACHE_AUTO}) an eighth of the max heap, at most 1 GiB, rounded down to MiB. Call it
     * where the lookups run (the TaskManager), not where the job is planned.
     */
    public long resolvedPageCacheMaxBytes() {
        long bytes = pageCacheMaxBytes();
        return bytes == PAGE_CACHE_AUTO
                ? autoPageCacheBytes(Runtime.getRuntime().maxMemory())
                : bytes;
    }

    /** The default bound for a JVM of {@code maxHeap} bytes. */
    static long autoPageCacheBytes(long maxHeap) {
        long bytes = Math.min(AUTO_PAGE_CACHE_MAX_BYTES, maxHeap / AUTO_PAGE_CACHE_HEAP_SHARE);
        return Math.max(0, bytes >> 20 << 20);
    }

    /** The engine configuration of this table using the given (shared) caches. */
    public TableConfig toTableConfig(MetadataCache metadataCache, @Nullable PageCache pageCache) {
        return TableConfig.builder(path())
                .sortKey(sortKey())
                .hadoopOptions(hadoopOptions)
                .metadataCache(metadataCache)
                .pageCache(pageCache)
                .mapLocalFiles(get(LOCAL_FILES_MMAP))
                .synthesizePageIndex(get(PAGE_INDEX_SYNTHESIZE))
                .unsortedFiles(get(UNSORTED_FILES))
                .indexDirectory(diskTier().resolveDirectory().resolve("parquet-lookup-index"))
                .build();
    }

    /**
     * Like {@link #toTableConfig(MetadataCache, PageCache)} for the lookup functions, whose files
     * get local forms ({@code repage}); planning builds none.
     */
    public TableConfig toTableConfig(
            MetadataCache metadataCache,
            @Nullable PageCache pageCache,
            @Nullable LocalForms forms) {
        TableConfig config = toTableConfig(metadataCache, pageCache);
        return forms == null ? config : config.withLocalForms(forms);
    }

    /**
     * The TaskManager's local forms ({@code repage}): {@value LocalForms#DEFAULT_DIRECTORY_NAME}
     * below {@code local-cache.dir} (else Flink's first {@code io.tmp.dirs}), bounded by {@code
     * repage.max-bytes}; null with {@code repage} = {@code off}.
     */
    @Nullable
    public LocalForms localForms() throws IOException {
        if (get(REPAGE) == LocalForms.Mode.OFF) {
            return null;
        }
        return LocalForms.shared(
                diskTier().resolveDirectory().resolve(LocalForms.DEFAULT_DIRECTORY_NAME),
                get(REPAGE_MAX_BYTES).getBytes());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParquetLookupConfig that
                && tableName.equals(that.tableName)
                && options.toMap().equals(that.options.toMap())
                && hadoopOptions.equals(that.hadoopOptions);
    }

    @Override
    public int hashCode() {
        return tableName.hashCode() * 31 + options.toMap().hashCode();
    }

    @Override
    public String toString() {
        return "ParquetLookupConfig("
                + tableName
                + ", "
                + options.toMap()
                + ", hadoop "
                + hadoopOptions
                + ")";
    }

    /** A builder of the table at {@code path} with every option at its default. */
    public static Builder builder(String tableName, String path) {
        return new Builder(tableName).set(PATH, path);
    }

    /** Sets options by their declarations, then builds with {@link #of}, as SQL does. */
    public static final class Builder {
        private String tableName;
        private final Map<String, String> raw = new HashMap<>();

        private Builder(String tableName) {
            this.tableName = tableName;
        }

        /** The table's name in messages. */
        public Builder tableName(String name) {
            this.tableName = name;
            return this;
        }

        /** A declared option, e.g. {@code set(ParquetLookupOptions.WARMUP, Mode.NONE)}. */
        public <T> Builder set(ConfigOption<T> option, T value) {
            Configuration one = new Configuration();
            one.set(option, value);
            raw.putAll(one.toMap());
            return this;
        }

        /** An option by its key as SQL writes it: {@code hadoop.*}, a format's own options. */
        public Builder option(String key, String value) {
            raw.put(key, value);
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException if a value is out of range (the message names the
         *     option)
         */
        public ParquetLookupConfig build() {
            return of(tableName, raw);
        }
    }
}
