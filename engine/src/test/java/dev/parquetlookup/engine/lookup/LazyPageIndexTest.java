package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FaultInjectingRangeSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file's own page index is read row group by row group on the first lookup into it: opening reads
 * the footer only; a small metadata cache evicts indexes and lookups stay right; concurrent lookups
 * into a cold row group share one read; a failed read fails the lookup, naming file and row group,
 * and is read again by the next one.
 */
class LazyPageIndexTest {

    @TempDir Path tmp;

    /** Even keys 0, 2, ..., 2 * (rows - 1): odd keys miss. */
    private Path write(String dir, int files, int rowsPerFile, int rowsPerPage, int rowsPerGroup)
            throws IOException {
        Path root = tmp.resolve(dir);
        Files.createDirectories(root);
        WriterOptions options =
                WriterOptions.builder()
                        .codec(WriterOptions.Codec.LZ4_RAW)
                        .dictionary(false)
                        .rowsPerPage(rowsPerPage)
                        .rowsPerRowGroup(rowsPerGroup)
                        .build();
        for (int f = 0; f < files; f++) {
            try (LookupFileWriter writer =
                    LookupFileWriter.open(
                            root.resolve("part-" + f + ".parquet").toString(),
                            List.of(
                                    ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                                    ColumnSpec.required("v", ValueType.of(ValueType.Kind.STRING))),
                            List.of("k"),
                            options)) {
                for (long i = 0; i < rowsPerFile; i++) {
                    long k = 2 * ((long) f * rowsPerFile + i);
                    writer.write(new Object[] {k, value(k)});
                }
            }
        }
        return root;
    }

    private static byte[] value(long k) {
        return ("value-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static void assertAnswer(long k, long keys, List<Object[]> rows) {
        if (k >= 0 && k % 2 == 0 && k < 2 * keys) {
            assertThat(rows).as("key %d", k).hasSize(1);
            assertThat(new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8))
                    .as("key %d", k)
                    .isEqualTo("value-" + k);
        } else {
            assertThat(rows).as("key %d", k).isEmpty();
        }
    }

    private static TableConfig config(Path root, MetadataCache cache) {
        return TableConfig.builder(root.toString()).metadataCache(cache).pageCache(null).build();
    }

    @Test
    void openingReadsTheFooterOnlyAndTheFirstLookupReadsTheRowGroupsIndex() throws Exception {
        // 1-row pages make a page index (~300 KB) far larger than the 64 KiB tail read at open.
        Path root = write("big-index", 1, 20_000, 1, 10_000);
        ReadStatistics stats = new ReadStatistics();
        MetadataCache cache = new MetadataCache(64L << 20);
        HadoopFileStore store = HadoopFileStore.create(java.util.Map.of(), true);
        try (DimensionTable table = DimensionTable.open(config(root, cache), store, stats)) {
            assertThat(stats.readRequests()).as("reads at open: the footer's tail").isEqualTo(1);
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            long before = stats.readRequests();
            assertAnswer(30_000, 20_000, table.lookup(plan, new Object[] {30_000L}));
            RowGroupIndexes rgs = table.fileMetadata().get(0).rowGroupIndexes();
            assertThat(rgs).isNotNull();
            assertThat(rgs.reads()).as("row group 1's index, once").isEqualTo(1);
            long first = stats.readRequests() - before;
            before = stats.readRequests();
            assertAnswer(30_002, 20_000, table.lookup(plan, new Object[] {30_002L}));
            assertThat(stats.readRequests() - before)
                    .as("second lookup: no index read")
                    .isLessThan(first);
            assertThat(rgs.reads()).isEqualTo(1);
        }
    }

    @Test
    void openingManyFilesCostsOneReadEach() throws Exception {
        Path root = write("many", 30, 200, 10, 100);
        ReadStatistics stats = new ReadStatistics();
        HadoopFileStore store = HadoopFileStore.create(java.util.Map.of(), true);
        try (DimensionTable table =
                DimensionTable.open(config(root, new MetadataCache(64L << 20)), store, stats)) {
            assertThat(stats.readRequests()).as("one read per file").isEqualTo(30);
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertAnswer(4_002, 6_000, table.lookup(plan, new Object[] {4_002L}));
        }
    }

    @Test
    void aTinyMetadataCacheEvictsIndexesAndLookupsStayRight() throws Exception {
        long seed = new Random().nextLong();
        Path root = write("tiny", 2, 5_000, 16, 250); // 40 row groups, ~1 KB of index each
        MetadataCache cache = new MetadataCache(4 * 1024);
        HadoopFileStore store = HadoopFileStore.create(java.util.Map.of(), true);
        Random r = new Random(seed);
        try (DimensionTable table = DimensionTable.open(config(root, cache), store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (int i = 0; i < 3_000; i++) {
                long k = r.nextInt(20_100) - 50;
                assertAnswer(k, 10_000, table.lookup(plan, new Object[] {k}));
            }
            MetadataCache.Stats s = cache.stats();
            assertThat(s.evictions()).as("seed %d: evictions", seed).isPositive();
            assertThat(s.bytes()).as("seed %d: bytes held", seed).isLessThanOrEqualTo(4 * 1024);
        }
    }

    @Test
    void aTinyMetadataCacheServesAsynchronousLookupsRight() throws Exception {
        long seed = new Random().nextLong();
        Path root = write("tiny-async", 2, 5_000, 16, 250);
        MetadataCache cache = new MetadataCache(4 * 1024);
        AsyncFileStore store =
                new AsyncFileStore(HadoopFileStore.create(java.util.Map.of(), false));
        Random r = new Random(seed);
        RequestLimiter limiter = new RequestLimiter(8);
        try (DimensionTable table = DimensionTable.open(config(root, cache), store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (int batch = 0; batch < 40; batch++) {
                List<Long> keys = new ArrayList<>();
                List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
                for (int i = 0; i < 25; i++) {
                    long k = r.nextInt(20_100) - 50;
                    keys.add(k);
                    futures.add(table.lookupAsync(plan, new Object[] {k}, limiter));
                }
                for (int i = 0; i < keys.size(); i++) {
                    assertAnswer(keys.get(i), 10_000, futures.get(i).get(60, TimeUnit.SECONDS));
                }
            }
            assertThat(cache.stats().evictions()).as("seed %d", seed).isPositive();
            assertThat(limiter.inFlight()).isZero();
        }
    }

    @Test
    void concurrentLookupsIntoAColdRowGroupShareOneIndexRead() throws Exception {
        Path root = write("single-flight", 1, 2_000, 64, 500);
        AsyncFileStore store =
                new AsyncFileStore(HadoopFileStore.create(java.util.Map.of(), false));
        try (DimensionTable table =
                DimensionTable.open(config(root, new MetadataCache(64L << 20)), store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            store.hold();
            long before = store.requests();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long k = 1_200 + 2 * i; // all in row group 1
                futures.add(table.lookupAsync(plan, new Object[] {k}, RequestLimiter.unbounded()));
            }
            assertThat(store.requests() - before)
                    .as("20 lookups into a cold row group: one index read")
                    .isEqualTo(1);
            assertThat(futures).allMatch(f -> !f.isDone());
            store.release();
            for (int i = 0; i < futures.size(); i++) {
                assertAnswer(1_200 + 2 * i, 2_000, futures.get(i).get(30, TimeUnit.SECONDS));
            }
            RowGroupIndexes rgs = table.fileMetadata().get(0).rowGroupIndexes();
            assertThat(rgs.reads()).isEqualTo(1);
        }
    }

    /** A store whose sources fail the next read after {@link #failNext()}. */
    private static final class FailingStore extends ForwardingFileStore {
        final FaultInjectingRangeSource.Plan plan = FaultInjectingRangeSource.plan();

        FailingStore(FileStore delegate) {
            super(delegate);
        }

        void failNext() {
            plan.failCall(plan.calls() + 1, () -> new IOException("injected: connection reset"));
        }

        @Override
        public RangeSource open(FileId file) throws IOException {
            return new FaultInjectingRangeSource(super.open(file), plan);
        }
    }

    @Test
    void aFailedIndexReadFailsTheLookupNamingFileAndRowGroupAndIsReadAgainNextTime()
            throws Exception {
        Path root = write("failing", 1, 2_000, 64, 500);
        FailingStore store = new FailingStore(HadoopFileStore.create(java.util.Map.of(), false));
        try (DimensionTable table =
                DimensionTable.open(config(root, new MetadataCache(64L << 20)), store)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            store.failNext();
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {2_400L}))
                    .hasStackTraceContaining("page index of row group 2 of file")
                    .hasStackTraceContaining("part-0.parquet")
                    .hasStackTraceContaining("injected: connection reset");
            assertAnswer(2_400, 2_000, table.lookup(plan, new Object[] {2_400L}));

            store.failNext();
            CompletableFuture<List<Object[]>> failed =
                    table.lookupAsync(plan, new Object[] {3_400L}, RequestLimiter.unbounded());
            assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("page index of row group 3 of file")
                    .hasMessageContaining("injected: connection reset");
            assertAnswer(
                    3_400,
                    2_000,
                    table.lookupAsync(plan, new Object[] {3_400L}, RequestLimiter.unbounded())
                            .get(30, TimeUnit.SECONDS));
        }
    }
}
