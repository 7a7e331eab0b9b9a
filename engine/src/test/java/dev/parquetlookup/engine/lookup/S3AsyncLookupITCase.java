package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Asynchronous lookups on {@code s3a://} files through each of the two read paths ({@code netty}:
 * the S3 store's client, {@code NettyS3RangeReader}; {@code s3a}: the fallback through S3A's
 * streams, asynchronous reads on a bounded pool), against S3Proxy on loopback behind a {@link
 * LatencyProxy} (5 ms per response) that counts the requests in flight at the server side: results
 * equal the synchronous path's, a cold lookup costs at most one GET per page it needs (key page and
 * value page: 2), the in-flight bound holds at the server, an object overwritten in place fails
 * with {@link FileChangedException}, and closing with lookups out completes them all.
 */
class S3AsyncLookupITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "async-bucket";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";
    private static final int ROWS = 50_000;

    @TempDir static Path local;

    private static LatencyProxy proxy;
    private static Map<String, String> hadoop;

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        proxy = LatencyProxy.start(S3.port(), Duration.ofMillis(5));
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.endpoint", proxy.endpoint());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        Path file = local.resolve("part-0.parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.defaults())) {
            for (long k = 0; k < ROWS; k++) {
                w.write(new Object[] {2 * k, value(2 * k)});
            }
        }
        upload(file, DIM + "part-0.parquet");
    }

    @AfterAll
    static void stopProxy() throws IOException {
        if (proxy != null) {
            proxy.close();
        }
    }

    private static void upload(Path file, String target) throws IOException {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create(target), conf)) {
            fs.copyFromLocalFile(
                    new org.apache.hadoop.fs.Path(file.toUri()),
                    new org.apache.hadoop.fs.Path(target));
        }
    }

    private static String value(long k) {
        return "value-" + k + "-" + "y".repeat((int) (k % 29));
    }

    private static TableConfig config(String path, String client) {
        return TableConfig.builder(path)
                .hadoopOptions(hadoop(client))
                .metadataCache(new MetadataCache(32L << 20))
                .build();
    }

    /**
     * The S3 options with {@code client}: {@code netty}, the S3 store's client, or {@code s3a}, the
     * fallback through S3A's streams. Hedged GETs are off: they are extra requests on top of the
     * GETs a lookup needs and of the in-flight bound (at most the hedge budget, 5% of GETs;
     * docs/objectstore.md), sent when a GET is slower than 20 ms, which a loaded machine makes
     * happen at random; these tests count GETs. HedgedReadsS3ITCase tests hedging.
     */
    private static Map<String, String> hadoop(String client) {
        Map<String, String> options = new LinkedHashMap<>(hadoop);
        options.put("parquet-lookup.hedge.enabled", "false");
        if (client.equals("s3a")) {
            options.put("parquet-lookup.s3.async-reads", "false");
        }
        return options;
    }

    /** Clears the GET count of {@link #gets}. */
    private static void clearGets() {
        S3RequestLog.clear();
        proxy.resetStats();
    }

    /**
     * GETs since {@link #clearGets}, counted at the proxy, which sees every client's (the tests run
     * one at a time, and only they use the proxy).
     */
    private static long gets() {
        return proxy.stats().gets();
    }

    private static void checkRow(List<Object[]> rows, long k) {
        if (k % 2 == 1 || k >= 2L * ROWS) {
            assertThat(rows).as("key %d", k).isEmpty();
            return;
        }
        assertThat(rows).as("key %d", k).hasSize(1);
        assertThat(rows.get(0)[0]).isEqualTo(k);
        assertThat(new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8)).isEqualTo(value(k));
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void aColdLookupCostsAtMostTwoGetsAndAnswersLikeTheSynchronousPath(String client)
            throws Exception {
        try (DimensionTable table = DimensionTable.open(config(DIM, client))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            // The first lookup into a row group also reads its page index (one GET more, see
            // LazyPageIndexTest): read them first so the lookups below are cold in pages only.
            clearGets();
            for (FileMetadata meta : table.fileMetadata()) {
                RowGroupIndexes rgs = meta.rowGroupIndexes();
                for (int r = 0; rgs != null && r < rgs.size(); r++) {
                    rgs.get(r);
                }
            }
            assertThat(gets())
                    .as("one GET per row group's page index")
                    .isLessThanOrEqualTo(table.fileMetadata().get(0).rowGroups().size());
            Random random = new Random(11);
            RequestLimiter limiter = new RequestLimiter(64);
            long maxGets = 0;
            long gets = 0;
            int lookups = 200;
            for (int i = 0; i < lookups; i++) {
                long k = random.nextLong(2L * ROWS + 10);
                clearGets();
                List<Object[]> rows =
                        table.lookupAsync(plan, new Object[] {k}, limiter)
                                .get(30, TimeUnit.SECONDS);
                long lookupGets = gets();
                checkRow(rows, k);
                checkRow(table.lookup(plan, new Object[] {k}), k);
                maxGets = Math.max(maxGets, lookupGets);
                gets += lookupGets;
            }
            assertThat(maxGets)
                    .as("GETs of one cold lookup (key page + value page)")
                    .isLessThanOrEqualTo(2);
            System.out.printf(
                    "S3 async (%s): %d cold lookups, %d GETs (max %d per lookup)%n",
                    client, lookups, gets, maxGets);
        }
    }

    /**
     * One table, one HTTP stack: with the S3 store's client, the footers read at open, blocking
     * lookups and asynchronous ones are all its GETs, none S3A's (its audit log sees its own
     * requests only); with the fallback every read is S3A's and no client starts.
     */
    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void everyReadOfATableGoesThroughOneClient(String client) throws Exception {
        HadoopFileStore store = HadoopFileStore.create(hadoop(client));
        S3RequestLog.clear();
        try (DimensionTable table = DimensionTable.open(config(DIM, client), store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            checkRow(table.lookup(plan, new Object[] {4L}), 4L);
            checkRow(
                    table.lookupAsync(plan, new Object[] {6L}, RequestLimiter.unbounded())
                            .get(30, TimeUnit.SECONDS),
                    6L);
            long s3aGets = S3RequestLog.count("GET", "/dim/part-0.parquet");
            if (client.equals("netty")) {
                assertThat(store.asyncReadsStarted()).isTrue();
                assertThat(s3aGets).as("GETs by S3A's own client").isZero();
            } else {
                assertThat(store.asyncReadsStarted()).isFalse();
                assertThat(s3aGets).as("GETs by S3A's own client").isPositive();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void requestsInFlightAtTheServerNeverExceedTheBound(String client) throws Exception {
        int bound = 6;
        try (DimensionTable table = DimensionTable.open(config(DIM, client))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            RequestLimiter limiter = new RequestLimiter(bound);
            Random random = new Random(12);
            proxy.resetStats();
            List<Long> keys = new ArrayList<>();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                long k = 2L * random.nextInt(ROWS);
                keys.add(k);
                futures.add(table.lookupAsync(plan, new Object[] {k}, limiter));
            }
            for (int i = 0; i < futures.size(); i++) {
                checkRow(futures.get(i).get(60, TimeUnit.SECONDS), keys.get(i));
            }
            LatencyProxy.Stats stats = proxy.stats();
            System.out.printf(
                    "S3 async (%s), bound %d: %d GETs, at most %d in flight at the server (mean"
                            + " %.1f)%n",
                    client, bound, stats.gets(), stats.maxInFlight(), stats.meanInFlight());
            assertThat(stats.gets()).as("GETs").isGreaterThan(bound);
            assertThat(stats.maxInFlight())
                    .as("requests in flight at the server")
                    .isLessThanOrEqualTo(bound);
            assertThat(limiter.peakInFlight()).isLessThanOrEqualTo(bound);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void closingWithAThousandLookupsOutCompletesEveryOne(String client) throws Exception {
        List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
        RequestLimiter limiter = new RequestLimiter(32);
        try (DimensionTable table = DimensionTable.open(config(DIM, client))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            Random random = new Random(13);
            for (int i = 0; i < 1000; i++) {
                futures.add(
                        table.lookupAsync(plan, new Object[] {2L * random.nextInt(ROWS)}, limiter));
            }
            limiter.close();
        }
        int failed = 0;
        for (CompletableFuture<List<Object[]>> future : futures) {
            try {
                future.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failed++;
            }
        }
        assertThat(futures).allSatisfy(f -> assertThat(f).isDone());
        System.out.printf(
                "S3 async close (%s): %d of 1000 lookups failed at close%n", client, failed);
        assertThat(failed).as("lookups still queued when the table closed").isPositive();
    }

    @ParameterizedTest
    @ValueSource(strings = {"netty", "s3a"})
    void anObjectOverwrittenInPlaceFailsAsyncLookupsAsChanged(String client) throws Exception {
        String dir = "s3a://" + BUCKET + "/overwritten-" + client + "/";
        Path first = local.resolve("first-" + client + ".parquet");
        Path second = local.resolve("second-" + client + ".parquet");
        for (Path file : List.of(first, second)) {
            try (LookupFileWriter w =
                    LookupFileWriter.open(
                            file.toString(),
                            List.of(
                                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                    ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                            List.of("k"),
                            WriterOptions.defaults())) {
                for (long k = 0; k < 1000; k++) {
                    w.write(new Object[] {k, file.getFileName() + "-" + k});
                }
            }
        }
        upload(first, dir + "part-0.parquet");
        try (DimensionTable table =
                DimensionTable.open(config(dir, client), HadoopFileStore.create(hadoop(client)))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            RequestLimiter limiter = new RequestLimiter(8);
            assertThat(
                            table.lookupAsync(plan, new Object[] {7L}, limiter)
                                    .get(30, TimeUnit.SECONDS))
                    .hasSize(1);
            upload(second, dir + "part-0.parquet");
            assertThatThrownBy(
                            () ->
                                    table.lookupAsync(plan, new Object[] {500L}, limiter)
                                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(FileChangedException.class)
                    .hasMessageContaining(dir + "part-0.parquet")
                    .hasMessageContaining("changed after it was opened");
        }
    }
}
