package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.hedge.HedgedRangeReader;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tables of more files than {@link FileOpener#PARALLELISM} open through {@link TailFirstOpener}: on
 * {@code s3a://} (S3Proxy behind a {@link LatencyProxy} that counts requests) with each range
 * client, one GET per file and no HEAD, lookups answer from every file, a cached footer is not read
 * again; a file that is not Parquet fails the open naming the first such file in the listing's
 * order; local files open the same way.
 */
class TailFirstOpenerITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "tail-first";
    private static final String MANY = "s3a://" + BUCKET + "/many/";
    private static final String BROKEN = "s3a://" + BUCKET + "/broken/";
    private static final int FILES = FileOpener.PARALLELISM + 36;
    private static final int ROWS_PER_FILE = 50;

    @TempDir static Path local;

    private static LatencyProxy proxy;
    private static Map<String, String> hadoop;

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        proxy = LatencyProxy.start(S3.port(), Duration.ofMillis(2));
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.endpoint", proxy.endpoint());
        Path many = Files.createDirectories(local.resolve("many"));
        Path broken = Files.createDirectories(local.resolve("broken"));
        for (int f = 0; f < FILES; f++) {
            String name = String.format("part-%04d.parquet", f);
            write(many.resolve(name), f);
            Files.copy(many.resolve(name), broken.resolve(name));
        }
        // Two files in the middle that are not Parquet: the first in order is named.
        byte[] junk = "not parquet at all".repeat(10).getBytes(StandardCharsets.US_ASCII);
        Files.write(broken.resolve("part-0040.parquet"), junk);
        Files.write(broken.resolve("part-0077.parquet"), junk);
        for (String dir : List.of("many", "broken")) {
            S3.putFiles(local.resolve(dir), BUCKET, dir + "/");
        }
    }

    @AfterAll
    static void stopProxy() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
    }

    private static void write(Path file, int f) throws IOException {
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.defaults())) {
            for (int r = 0; r < ROWS_PER_FILE; r++) {
                long k = (long) f * ROWS_PER_FILE + r;
                w.write(new Object[] {k, "v-" + k});
            }
        }
    }

    /**
     * {@code netty}: the S3 store's client; {@code s3a}: the fallback through S3A's streams. Hedged
     * GETs are off: a GET slower than 20 ms, which a loaded machine makes happen at random, is sent
     * again, and these tests count GETs (HedgedReadsS3ITCase tests hedging).
     */
    private static Map<String, String> hadoop(String client) {
        Map<String, String> options = new LinkedHashMap<>(hadoop);
        options.put(HedgedRangeReader.ENABLED, "false");
        if (client.equals("s3a")) {
            options.put("parquet-lookup.s3.async-reads", "false");
        }
        return options;
    }

    private static TableConfig config(String path, MetadataCache cache) {
        return TableConfig.builder(path).metadataCache(cache).pageCache(null).build();
    }

    private static void checkLookups(DimensionTable table) throws IOException {
        LookupPlan plan = table.plan(List.of("k"), List.of("v"));
        for (int f = 0; f < FILES; f += 7) {
            long k = (long) f * ROWS_PER_FILE + 3;
            List<Object[]> rows = table.lookup(plan, new Object[] {k});
            assertThat(rows).as("key %d", k).hasSize(1);
            assertThat(new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8))
                    .isEqualTo("v-" + k);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void manyFilesOpenWithOneGetPerFileAndNoHead(String client) throws Exception {
        MetadataCache cache = new MetadataCache(64L << 20);
        try (HadoopFileStore store = HadoopFileStore.create(hadoop(client))) {
            proxy.resetStats();
            store.list(MANY);
            long listing = proxy.stats().gets(); // S3's LIST is a GET
            long listingHeads = proxy.stats().heads(); // the path's status
            proxy.resetStats();
            try (DimensionTable table = DimensionTable.open(config(MANY, cache), store)) {
                LatencyProxy.Stats opened = proxy.stats();
                assertThat(table.files()).hasSize(FILES);
                assertThat(opened.gets() - listing).as("GETs besides the listing").isEqualTo(FILES);
                assertThat(opened.heads() - listingHeads).as("HEADs besides the listing").isZero();
                checkLookups(table);
            }
            // Footers cached: opening again reads none.
            proxy.resetStats();
            try (DimensionTable table = DimensionTable.open(config(MANY, cache), store)) {
                assertThat(proxy.stats().gets() - listing).as("GETs, footers cached").isZero();
                checkLookups(table);
            }
        }
    }

    @Test
    void aFileThatIsNotParquetFailsTheOpenNamingTheFirstSuchFile() throws Exception {
        try (HadoopFileStore store = HadoopFileStore.create(hadoop("netty"))) {
            assertThatThrownBy(
                            () ->
                                    DimensionTable.open(
                                            config(BROKEN, new MetadataCache(64L << 20)), store))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining("part-0040.parquet")
                    .hasMessageContaining("is not a readable Parquet file")
                    .hasMessageNotContaining("part-0077.parquet");
        }
    }

    @Test
    void manyLocalFilesOpenAndAnswer() throws Exception {
        try (DimensionTable table =
                DimensionTable.open(
                        config(local.resolve("many").toString(), new MetadataCache(64L << 20)))) {
            assertThat(table.files()).hasSize(FILES);
            checkLookups(table);
        }
    }
}
