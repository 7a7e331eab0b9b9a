package dev.parquetlookup.engine.local;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The local form's page-size check ({@link PageSizeRule}) on S3: from the footer a table's open
 * cached, it sends one request (a page header) where reading the file sent the footer's too, and it
 * says the same thing. GETs are counted by S3A's audit log ({@link S3RequestLog}).
 */
class LocalFormCheckS3ITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "local-form-check";
    private static final String DIR = "s3a://" + BUCKET + "/big/";

    @TempDir static Path local;

    private static Map<String, String> hadoop;

    @BeforeAll
    static void uploadDuckDbFile() throws Exception {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        // S3A's streams read the file, so that its audit log sees every GET.
        hadoop.put("parquet-lookup.s3.async-reads", "false");
        Path file = local.resolve("duck.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            // DuckDB's defaults: 122,880-row row groups, one page per column chunk, no page index.
            st.execute(
                    "COPY (SELECT i AS id, 'name-' || i AS name FROM range(200000) t(i) ORDER BY"
                            + " i) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
            fs.copyFromLocalFile(
                    new org.apache.hadoop.fs.Path(file.toUri()),
                    new org.apache.hadoop.fs.Path(DIR + "part-0.parquet"));
        }
    }

    @Test
    void theCheckReadsTheFooterTheOpenCachedInsteadOfTheFile() throws Exception {
        MetadataCache cache = new MetadataCache(64L << 20);
        try (HadoopFileStore store = HadoopFileStore.create(hadoop)) {
            FileId id = store.stat(DIR + "part-0.parquet");

            S3RequestLog.clear();
            PageSizeRule.Verdict fromFile =
                    LocalFormBuilder.DEFAULT.plan(id, store, List.of()).verdict();
            long fileGets = S3RequestLog.count("GET", "/big/part-0");

            try (DimensionTable table =
                    DimensionTable.open(
                            TableConfig.builder(DIR)
                                    .sortKey(List.of("id"))
                                    .hadoopOptions(hadoop)
                                    .metadataCache(cache)
                                    .build())) {
                assertThat(table.files()).hasSize(1);
            }
            S3RequestLog.clear();
            PageSizeRule.Verdict fromCache =
                    LocalFormBuilder.DEFAULT.plan(id, store, List.of(cache)).verdict();
            long cachedGets = S3RequestLog.count("GET", "/big/part-0");

            System.out.printf(
                    "Local form check on S3: %d GETs reading the file, %d from the cached"
                            + " footer (%s)%n",
                    fileGets, cachedGets, fromCache.reason());
            assertThat(fromCache).isEqualTo(fromFile);
            assertThat(fromCache.localForm()).isTrue();
            assertThat(cachedGets).as("GETs from the cached footer: one page header").isEqualTo(1);
            assertThat(fileGets).as("GETs reading the file").isGreaterThan(cachedGets);
        }
    }
}
