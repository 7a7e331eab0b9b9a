package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.flink.lookup.ParquetLookupConfig;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.flink.lookup.TableFiles;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Option handling of the factory; nothing here opens files. */
class ParquetLookupDynamicTableFactoryTest {

    private static final ResolvedSchema SCHEMA =
            ResolvedSchema.physical(
                    List.of("id", "name"), List.of(DataTypes.BIGINT(), DataTypes.STRING()));

    @Test
    void isDiscoveredByItsIdentifier() {
        assertThat(
                        FactoryUtil.discoverFactory(
                                getClass().getClassLoader(),
                                DynamicTableSourceFactory.class,
                                "parquet-lookup"))
                .isInstanceOf(ParquetLookupDynamicTableFactory.class);
    }

    @Test
    void defaults() {
        ParquetLookupConfig config = config(Map.of("path", "/data/c"));
        assertThat(config.path()).isEqualTo("/data/c");
        assertThat(config.tableName()).isEqualTo("default_catalog.default_database.customers");
        assertThat(config.sortKey()).isEmpty();
        assertThat(config.hadoopOptions()).isEmpty();
        assertThat(config.async()).isTrue();
        assertThat(config.metadataCacheMaxBytes()).isEqualTo(256L << 20);
        // On by default: a share of the TaskManager's heap, resolved where the lookups run.
        assertThat(config.pageCacheMaxBytes()).isEqualTo(ParquetLookupConfig.PAGE_CACHE_AUTO);
        assertThat(config.resolvedPageCacheMaxBytes())
                .isPositive()
                .isLessThanOrEqualTo(Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 8));
        assertThat(config.get(ParquetLookupOptions.MAX_RETRIES)).isEqualTo(3);
        assertThat(config.get(ParquetLookupOptions.LOCAL_FILES_MMAP)).isTrue();
        assertThat(config.toTableConfig(new MetadataCache(1 << 20), null).mapLocalFiles()).isTrue();
        assertThat(config.get(ParquetLookupOptions.LOOKUP_MAX_IN_FLIGHT_REQUESTS)).isEqualTo(64);
        assertThat(config.get(ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE)).isTrue();
        assertThat(config.toTableConfig(new MetadataCache(1 << 20), null).synthesizePageIndex())
                .isTrue();
        // The builder the DataStream API uses has the same defaults as the SQL options.
        assertThat(ParquetLookupConfig.builder(config.tableName(), config.path()).build())
                .isEqualTo(config);
    }

    @Test
    void everyOptionIsRead() {
        ParquetLookupConfig config =
                config(
                        Map.of(
                                "path", "s3a://b/c/",
                                "sort-key", "g, name",
                                "lookup.async", "false",
                                "metadata-cache.max-bytes", "8mb",
                                "page-cache.max-bytes", "1kb",
                                "lookup.max-retries", "0",
                                "local-files.mmap", "false",
                                "hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000",
                                "hadoop.fs.s3a.path.style.access", "true"));
        assertThat(config.sortKey()).containsExactly("g", "name");
        assertThat(config.async()).isFalse();
        assertThat(config.metadataCacheMaxBytes()).isEqualTo(8L << 20);
        assertThat(config.pageCacheMaxBytes()).isEqualTo(1024);
        assertThat(config.get(ParquetLookupOptions.MAX_RETRIES)).isZero();
        assertThat(config.get(ParquetLookupOptions.LOCAL_FILES_MMAP)).isFalse();
        assertThat(config.toTableConfig(new MetadataCache(1 << 20), null).mapLocalFiles())
                .isFalse();
        assertThat(config.hadoopOptions())
                .containsOnly(
                        Map.entry("fs.s3a.endpoint", "http://127.0.0.1:9000"),
                        Map.entry("fs.s3a.path.style.access", "true"));
    }

    @Test
    void asyncIsOfferedForRemoteFilesUnlessSetEitherWay() {
        TableFiles local = new TableFiles(List.of(), List.of(), "file:/d", true);
        TableFiles remote = new TableFiles(List.of(), List.of(), "s3a://b/d", false);
        // Unset: auto, by where the files are.
        assertThat(offerAsync(Map.of("path", "/d"), local)).isFalse();
        assertThat(offerAsync(Map.of("path", "s3a://b/d"), remote)).isTrue();
        // Set: as set, whatever the files.
        assertThat(offerAsync(Map.of("path", "/d", "lookup.async", "true"), local)).isTrue();
        assertThat(offerAsync(Map.of("path", "s3a://b/d", "lookup.async", "false"), remote))
                .isFalse();
    }

    private static boolean offerAsync(Map<String, String> options, TableFiles files) {
        return ParquetLookupDynamicTableFactory.offerAsync(
                config(options), Configuration.fromMap(options), files);
    }

    @Test
    void pageIndexSynthesisCanBeTurnedOff() {
        ParquetLookupConfig config =
                config(Map.of("path", "/data/c", "page-index.synthesize", "false"));
        assertThat(config.get(ParquetLookupOptions.PAGE_INDEX_SYNTHESIZE)).isFalse();
        assertThat(config.toTableConfig(new MetadataCache(1 << 20), null).synthesizePageIndex())
                .isFalse();
    }

    @Test
    void unknownOptionIsRejectedBeforeFilesAreOpened() {
        assertThatThrownBy(() -> createSource(Map.of("path", "/nowhere", "lookup.asyncc", "true")))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining("Unsupported options")
                .hasMessageContaining("lookup.asyncc");
    }

    @Test
    void missingPathIsRejected() {
        assertThatThrownBy(() -> createSource(Map.of()))
                .isInstanceOf(ValidationException.class)
                .rootCause()
                .hasMessageContaining("Missing required options")
                .hasMessageContaining("path");
    }

    @Test
    void badValuesAreRejectedWithTheOptionName() {
        assertThatThrownBy(() -> config(Map.of("path", "/p", "lookup.max-in-flight-requests", "0")))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Table 'default_catalog.default_database.customers':"
                                + " 'lookup.max-in-flight-requests' must be at least 1, got 0.");
        assertThatThrownBy(() -> config(Map.of("path", "/p", "metadata-cache.max-bytes", "lots")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Invalid value 'lots' for option 'metadata-cache.max-bytes'");
        assertThatThrownBy(() -> config(Map.of("path", "/p", "lookup.max-retries", "-1")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'lookup.max-retries' must not be negative");
        assertThatThrownBy(() -> createSource(Map.of("path", "/p", "lookup.cache", "SOMETIMES")))
                .isInstanceOf(ValidationException.class)
                .hasStackTraceContaining("lookup.cache");
    }

    @Test
    void sortKeyIsCommaSeparated() {
        assertThat(config(Map.of("path", "/p", "sort-key", "id")).sortKey()).containsExactly("id");
        assertThatThrownBy(() -> config(Map.of("path", "/p", "sort-key", "g,,name")))
                .isInstanceOf(ValidationException.class)
                .hasMessage(
                        "Table 'default_catalog.default_database.customers': 'sort-key' ="
                                + " 'g,,name' has an empty column name; write column names"
                                + " separated by commas, e.g. 'g,name'.");
    }

    @Test
    void flinkLookupOptionsAreAccepted() {
        ParquetLookupDynamicTableFactory factory = new ParquetLookupDynamicTableFactory();
        assertThat(factory.optionalOptions())
                .extracting(o -> o.key())
                .contains(
                        "lookup.cache",
                        "lookup.partial-cache.max-rows",
                        "lookup.partial-cache.expire-after-write",
                        "lookup.partial-cache.expire-after-access",
                        "lookup.partial-cache.cache-missing-key",
                        "lookup.full-cache.reload-strategy",
                        "lookup.full-cache.periodic-reload.interval",
                        "lookup.max-retries");
        assertThat(factory.requiredOptions()).extracting(o -> o.key()).containsExactly("path");
    }

    @Test
    void refreshOptions() {
        ParquetLookupConfig none = config(Map.of("path", "/p"));
        assertThat(none.refreshInterval()).isNull();
        assertThat(none.get(ParquetLookupOptions.PATH_SNAPSHOT_MODE))
                .isEqualTo(SnapshotMode.ALL_FILES);
        assertThat(none.refreshOptions().refreshes()).isFalse();

        ParquetLookupConfig refreshed =
                config(
                        Map.of(
                                "path", "/p",
                                "refresh.interval", "5 min",
                                "path.snapshot-mode", "latest-success"));
        assertThat(refreshed.refreshInterval()).isEqualTo(Duration.ofMinutes(5));
        assertThat(refreshed.get(ParquetLookupOptions.PATH_SNAPSHOT_MODE))
                .isEqualTo(SnapshotMode.LATEST_SUCCESS);
        assertThat(refreshed.refreshOptions().interval()).isEqualTo(Duration.ofMinutes(5));

        assertThatThrownBy(() -> config(Map.of("path", "/p", "refresh.interval", "0 s")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'refresh.interval' must be positive");
        assertThatThrownBy(() -> config(Map.of("path", "/p", "path.snapshot-mode", "newest")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Unknown path.snapshot-mode 'newest'")
                .hasMessageContaining("'latest-success'");
    }

    @Test
    void formatOptionsAreDeclaredByTheFormatAndTravelWithTheHadoopEntries() {
        // A format of the tests declares the prefix 'options-only.'; the real ones are not on
        // every Flink line's class path. The connector knows no format's keys.
        ParquetLookupConfig config =
                config(
                        Map.of(
                                "path", "/p",
                                "format", "Options-Only",
                                "options-only.catalog.type", "jdbc",
                                "scan.version", "3",
                                "hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000"));
        assertThat(config.get(ParquetLookupOptions.FORMAT)).isEqualTo("options-only");
        assertThat(config.hadoopOptions())
                .containsOnly(
                        Map.entry("options-only.catalog.type", "jdbc"),
                        Map.entry("scan.version", "3"),
                        Map.entry("fs.s3a.endpoint", "http://127.0.0.1:9000"));
        assertThat(ParquetLookupDynamicTableFactory.passThroughPrefixes())
                .contains("hadoop.", "options-only.");
        // Another format's options do not reach this one.
        assertThat(config(Map.of("path", "/p", "options-only.x", "1")).hadoopOptions()).isEmpty();
        assertThatThrownBy(() -> config(Map.of("path", "/p", "scan.version", "3")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'scan.version' applies to 'format' = 'delta' or 'iceberg'");
        assertThatThrownBy(() -> config(Map.of("path", "/p", "format", "hudi")))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Unknown table format 'hudi'")
                .hasMessageContaining("options-only");
    }

    @Test
    void aRemovedOptionIsAcceptedAndNotCarried() {
        Map<String, String> options = Map.of("path", "/p", "lookup.async.threads", "0");
        assertThat(new ParquetLookupDynamicTableFactory().optionalOptions())
                .extracting(o -> o.key())
                .contains("lookup.async.threads");
        assertThat(ParquetLookupOptions.DEPRECATED)
                .containsKey(ParquetLookupOptions.LOOKUP_ASYNC_THREADS);
        assertThat(config(options)).isEqualTo(config(Map.of("path", "/p")));
    }

    private static ParquetLookupConfig config(Map<String, String> options) {
        return ParquetLookupDynamicTableFactory.toConfig(
                "default_catalog.default_database.customers", options);
    }

    private static void createSource(Map<String, String> options) {
        Map<String, String> all = new HashMap<>(options);
        all.put("connector", "parquet-lookup");
        CatalogTable table =
                CatalogTable.newBuilder()
                        .schema(Schema.newBuilder().fromResolvedSchema(SCHEMA).build())
                        .options(all)
                        .build();
        FactoryUtil.createDynamicTableSource(
                null,
                ObjectIdentifier.of("default_catalog", "default_database", "customers"),
                new ResolvedCatalogTable(table, SCHEMA),
                Map.of(),
                new Configuration(),
                ParquetLookupDynamicTableFactoryTest.class.getClassLoader(),
                false);
    }
}
