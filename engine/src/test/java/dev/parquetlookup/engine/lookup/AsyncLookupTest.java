package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asynchronous lookups over sources that answer later (like an object store's): how many requests a
 * cold lookup makes and in how many waves, single flight, and the in-flight bound. Requests are
 * held and released by the test, so every count is deterministic.
 */
class AsyncLookupTest {

    @TempDir Path tmp;

    private static final int ROWS = 2000;

    private TableConfig config;

    /**
     * k BIGINT 0..1999 unique, v STRING, w INT nullable; 64-row pages, 512-row row groups (the
     * writer aligns value pages on the key pages' rows), one file.
     */
    @BeforeEach
    void write() throws Exception {
        Path file = tmp.resolve("t/part-0.parquet");
        java.nio.file.Files.createDirectories(file.getParent());
        WriterOptions options =
                WriterOptions.builder()
                        .codec(WriterOptions.Codec.LZ4_RAW)
                        .dictionary(false)
                        .rowsPerPage(64)
                        .rowsPerRowGroup(512)
                        .build();
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(ValueType.Kind.STRING)),
                                ColumnSpec.optional("w", ValueType.of(ValueType.Kind.INT))),
                        List.of("k"),
                        options)) {
            for (long k = 0; k < ROWS; k++) {
                writer.write(row(k));
            }
        }
        config = TableConfig.builder(file.getParent().toString()).build();
    }

    private static Object[] row(long k) {
        return new Object[] {
            k, ("value-" + k).getBytes(StandardCharsets.UTF_8), k % 7 == 0 ? null : (int) (k * 3)
        };
    }

    private static Object[] randomKey(Random r) {
        return new Object[] {(long) r.nextInt(ROWS)};
    }

    /**
     * The table with every row group's page index already read: a lookup into a cold row group
     * first reads its index, one wave more (see {@link LazyPageIndexTest}).
     */
    private DimensionTable open(AsyncFileStore store) throws Exception {
        DimensionTable table = DimensionTable.open(config, store);
        for (FileMetadata meta : table.fileMetadata()) {
            RowGroupIndexes rgs = meta.rowGroupIndexes();
            for (int r = 0; rgs != null && r < rgs.size(); r++) {
                rgs.get(r);
            }
        }
        return table;
    }

    private AsyncFileStore store() {
        return new AsyncFileStore(
                HadoopFileStore.create(config.hadoopOptions(), config.mapLocalFiles()));
    }

    @Test
    void aColdHitIsOneWaveOfKeyAndValuePages() throws Exception {
        AsyncFileStore store = store();
        try (DimensionTable table = open(store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v", "w"));
            Object[] key = randomKey(new Random(1));
            store.hold();
            long before = store.requests();
            CompletableFuture<List<Object[]>> future =
                    table.lookupAsync(plan, key, RequestLimiter.unbounded());
            assertThat(future).isNotDone();
            // Key page, and the pages of v and w under its rows: all in the first wave.
            assertThat(store.held()).as("requests of the first wave").isGreaterThanOrEqualTo(1);
            long firstWave = store.requests() - before;
            store.release();
            List<Object[]> rows = future.get(30, TimeUnit.SECONDS);
            assertThat(store.requests() - before)
                    .as("requests of the whole lookup: no second wave")
                    .isEqualTo(firstWave);
            assertThat(firstWave).as("key page + one page per value column").isEqualTo(3);
            assertThat(Values.rowListsEqual(expected(table, key), rows)).isTrue();
        }
    }

    @Test
    void concurrentLookupsOfOnePageShareItsRequests() throws Exception {
        AsyncFileStore store = store();
        try (DimensionTable table = open(store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            Object[] key = randomKey(new Random(2));
            store.hold();
            long before = store.requests();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                futures.add(table.lookupAsync(plan, key, RequestLimiter.unbounded()));
            }
            long requested = store.requests() - before;
            store.release();
            for (CompletableFuture<List<Object[]>> f : futures) {
                assertThat(
                                Values.rowListsEqual(
                                        expected(table, key, "v"), f.get(30, TimeUnit.SECONDS)))
                        .isTrue();
            }
            assertThat(requested).as("one request per page for 20 lookups").isEqualTo(2);
            assertThat(store.requests() - before).isEqualTo(2);
        }
    }

    @Test
    void requestsInFlightNeverExceedTheBound() throws Exception {
        AsyncFileStore store = store();
        RequestLimiter limiter = new RequestLimiter(5);
        try (DimensionTable table = open(store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v", "w"));
            Random r = new Random(3);
            List<Object[]> keys = new ArrayList<>();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                Object[] key = randomKey(r);
                keys.add(key);
                futures.add(table.lookupAsync(plan, key, limiter));
            }
            for (int i = 0; i < futures.size(); i++) {
                assertThat(
                                Values.rowListsEqual(
                                        expected(table, keys.get(i)),
                                        futures.get(i).get(60, TimeUnit.SECONDS)))
                        .isTrue();
            }
            assertThat(store.peakInFlight())
                    .as("requests out at once at the store")
                    .isLessThanOrEqualTo(5);
            assertThat(limiter.peakInFlight()).isLessThanOrEqualTo(5);
            assertThat(limiter.inFlight()).isZero();
        }
    }

    private static List<Object[]> expected(DimensionTable table, Object[] key, String... columns) {
        List<String> names = columns.length == 0 ? List.of("k", "v", "w") : List.of(columns);
        Object[] full = row((Long) key[0]);
        Object[] projected = new Object[names.size()];
        for (int i = 0; i < projected.length; i++) {
            projected[i] = full[List.of("k", "v", "w").indexOf(names.get(i))];
        }
        List<Object[]> rows = new ArrayList<>();
        rows.add(projected);
        return rows;
    }
}
