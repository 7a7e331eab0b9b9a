package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FaultInjectingRangeSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.LazySynthesis;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file without a page index, opened by a table: its footer only is read at open, and each row
 * group's index is synthesized from its page headers on the first lookup into it (single flight,
 * synchronous and asynchronous), kept in the metadata cache with the weight of an own index, built
 * again after an eviction; a failed read or a damaged page fails the lookups into that row group
 * only, naming file, column, row group and offset. Page cache off: the tests count reads.
 */
class LazySynthesisTest {

    private static final int ROWS = 4_000;
    private static final int ROWS_PER_GROUP = 1_000;
    private static final int ROWS_PER_PAGE = 50;

    @TempDir Path tmp;

    /**
     * Writes {@code ROWS} rows, keys 0, 2, 4, ... (odd keys miss), with a page index, and a copy
     * without it (the pages byte for byte, no header statistics: key pages are decoded).
     *
     * @return the directories of the own-index file and of the stripped one
     */
    private Path[] write(boolean headerStatistics) throws IOException {
        Path own = Files.createDirectories(tmp.resolve("own"));
        Path stripped = Files.createDirectories(tmp.resolve("stripped"));
        WriterOptions options =
                WriterOptions.builder()
                        .codec(WriterOptions.Codec.LZ4_RAW)
                        .dictionary(false)
                        .rowsPerPage(ROWS_PER_PAGE)
                        .rowsPerRowGroup(ROWS_PER_GROUP)
                        .build();
        Path file = own.resolve("part-0.parquet");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(ValueType.Kind.STRING))),
                        List.of("k"),
                        options)) {
            for (long i = 0; i < ROWS; i++) {
                writer.write(new Object[] {2 * i, value(2 * i)});
            }
        }
        PageIndexRewriter.rewrite(file, stripped.resolve("part-0.parquet"), headerStatistics);
        return new Path[] {own, stripped};
    }

    private static byte[] value(long k) {
        return ("value-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static void assertAnswer(long k, List<Object[]> rows) {
        if (k >= 0 && k % 2 == 0 && k < 2L * ROWS) {
            assertThat(rows).as("key %d", k).hasSize(1);
            assertThat(new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8))
                    .as("key %d", k)
                    .isEqualTo("value-" + k);
        } else {
            assertThat(rows).as("key %d", k).isEmpty();
        }
    }

    /** The first key of row group {@code r}. */
    private static long keyIn(int r) {
        return 2L * r * ROWS_PER_GROUP;
    }

    private static TableConfig config(Path root, MetadataCache cache) {
        return TableConfig.builder(root.toString()).metadataCache(cache).pageCache(null).build();
    }

    private static LazySynthesis plan(DimensionTable table) {
        RowGroupIndexes rgs = table.fileMetadata().get(0).rowGroupIndexes();
        assertThat(rgs).as("row groups read lazily").isNotNull();
        assertThat(rgs.index()).isInstanceOf(LazySynthesis.class);
        return (LazySynthesis) rgs.index();
    }

    @ParameterizedTest(name = "headerStatistics={0}")
    @ValueSource(booleans = {false, true})
    void openingReadsTheFooterOnlyAndTheFirstLookupBuildsItsRowGroupOnly(boolean headerStatistics)
            throws Exception {
        Path stripped = write(headerStatistics)[1];
        ReadStatistics stats = new ReadStatistics();
        HadoopFileStore store = HadoopFileStore.create(Map.of(), true);
        try (DimensionTable table =
                DimensionTable.open(config(stripped, new MetadataCache(64L << 20)), store, stats)) {
            assertThat(stats.readRequests()).as("reads at open: the footer's tail").isEqualTo(1);
            FileMetadata meta = table.fileMetadata().get(0);
            assertThat(meta.pageIndex().kind()).isEqualTo(PageIndexOrigin.Kind.SYNTHESIZED);
            assertThat(meta.pageIndex().onFirstUse()).isTrue();
            LazySynthesis plan = plan(table);
            assertThat(plan.rowGroupsBuilt()).isZero();

            LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
            long before = stats.readRequests();
            assertAnswer(keyIn(2) + 10, table.lookup(lookup, new Object[] {keyIn(2) + 10}));
            long first = stats.readRequests() - before;
            assertThat(plan.rowGroupsBuilt()).as("row group 2 built, only").isEqualTo(1);
            RowGroupIndexes rgs = meta.rowGroupIndexes();
            assertThat(rgs.cached(2)).isNotNull();
            assertThat(rgs.cached(1)).isNull();
            PageIndexOrigin cost = plan.cost();
            assertThat(cost.onFirstUse()).isTrue();
            assertThat(cost.chunks()).as("k and v of row group 2").isEqualTo(2);
            assertThat(cost.pages())
                    .isEqualTo(
                            rgs.cached(2).columns()[0].pages().pageCount()
                                    + rgs.cached(2).columns()[1].pages().pageCount());
            assertThat(cost.bytesRead()).isPositive();

            before = stats.readRequests();
            assertAnswer(keyIn(2) + 500, table.lookup(lookup, new Object[] {keyIn(2) + 500}));
            assertThat(stats.readRequests() - before)
                    .as("second lookup into row group 2: its pages only")
                    .isLessThan(first)
                    .isEqualTo(2);
            assertThat(plan.rowGroupsBuilt()).isEqualTo(1);
            assertThat(rgs.reads()).isEqualTo(1);
        }
    }

    @Test
    void synthesisAtOpenIsStillAnOption() throws Exception {
        Path stripped = write(false)[1].resolve("part-0.parquet");
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source = store.open(store.stat(stripped.toString()))) {
            FileMetadata meta =
                    MetadataReader.read(
                            source,
                            List.of("k"),
                            PageIndexOptions.synthesized(KeyPageBounds.INSTANCE).lazily().atOpen());
            assertThat(meta.rowGroupIndexes()).isNull();
            assertThat(meta.pageIndex().onFirstUse()).isFalse();
            assertThat(meta.pageIndex().chunks()).isEqualTo(8);
            assertThat(meta.pageIndex().describe()).contains("at open");
        }
    }

    @Test
    void synthesizedRowGroupsWeighInTheCacheWhatTheFilesOwnIndexWeighs() throws Exception {
        Path[] dirs = write(false);
        long[] rowGroupBytes = new long[2];
        for (int i = 0; i < 2; i++) {
            MetadataCache cache = new MetadataCache(64L << 20);
            try (DimensionTable table = DimensionTable.open(config(dirs[i], cache))) {
                LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
                for (int r = 0; r < ROWS / ROWS_PER_GROUP; r++) {
                    assertAnswer(keyIn(r), table.lookup(lookup, new Object[] {keyIn(r)}));
                }
                rowGroupBytes[i] =
                        cache.stats().bytes() - table.fileMetadata().get(0).retainedBytes();
            }
        }
        assertThat(rowGroupBytes[0]).isPositive();
        assertThat(rowGroupBytes[1]).as("synthesized vs own").isEqualTo(rowGroupBytes[0]);
    }

    @Test
    void concurrentAsynchronousLookupsIntoAColdRowGroupShareOneBuild() throws Exception {
        Path stripped = write(false)[1];
        AsyncFileStore store = new AsyncFileStore(HadoopFileStore.create(Map.of(), false));
        try (DimensionTable table =
                DimensionTable.open(config(stripped, new MetadataCache(64L << 20)), store)) {
            LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
            store.hold();
            long before = store.requests();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                long k = keyIn(1) + 2 * i;
                futures.add(
                        table.lookupAsync(lookup, new Object[] {k}, RequestLimiter.unbounded()));
            }
            assertThat(store.requests() - before)
                    .as("20 lookups into a cold row group: its two chunks fetched once")
                    .isEqualTo(2);
            assertThat(futures).allMatch(f -> !f.isDone());
            store.release();
            for (int i = 0; i < futures.size(); i++) {
                assertAnswer(keyIn(1) + 2 * i, futures.get(i).get(30, TimeUnit.SECONDS));
            }
            assertThat(plan(table).rowGroupsBuilt()).isEqualTo(1);
        }
    }

    @Test
    void aTinyMetadataCacheEvictsSynthesizedRowGroupsAndLookupsStayRight() throws Exception {
        long seed = new Random().nextLong();
        Path stripped = write(false)[1];
        MetadataCache cache = new MetadataCache(6 * 1024);
        Random r = new Random(seed);
        try (DimensionTable table =
                        DimensionTable.open(
                                config(stripped, cache), HadoopFileStore.create(Map.of(), true));
                AsyncFileStore async = new AsyncFileStore(HadoopFileStore.create(Map.of(), false));
                DimensionTable asyncTable = DimensionTable.open(config(stripped, cache), async)) {
            LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
            LookupPlan asyncLookup = asyncTable.plan(List.of("k"), List.of("v"));
            RequestLimiter limiter = new RequestLimiter(8);
            for (int i = 0; i < 600; i++) {
                long k = r.nextInt(2 * ROWS + 100) - 50;
                assertAnswer(k, table.lookup(lookup, new Object[] {k}));
                long k2 = r.nextInt(2 * ROWS + 100) - 50;
                assertAnswer(
                        k2,
                        asyncTable
                                .lookupAsync(asyncLookup, new Object[] {k2}, limiter)
                                .get(30, TimeUnit.SECONDS));
            }
            MetadataCache.Stats s = cache.stats();
            assertThat(s.evictions()).as("seed %d: evictions", seed).isPositive();
            assertThat(s.bytes()).as("seed %d: bytes held", seed).isLessThanOrEqualTo(6 * 1024);
            assertThat(limiter.inFlight()).isZero();
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
    void aFailedReadFailsTheLookupNamingFileAndRowGroupAndTheNextLookupBuildsIt() throws Exception {
        Path stripped = write(false)[1];
        FailingStore store = new FailingStore(HadoopFileStore.create(Map.of(), false));
        try (DimensionTable table =
                DimensionTable.open(config(stripped, new MetadataCache(64L << 20)), store)) {
            LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
            store.failNext();
            assertThatThrownBy(() -> table.lookup(lookup, new Object[] {keyIn(2)}))
                    .hasStackTraceContaining(
                            "Building the page index from page headers of row group 2 of file")
                    .hasStackTraceContaining("part-0.parquet")
                    .hasStackTraceContaining("injected: connection reset");
            assertAnswer(keyIn(2), table.lookup(lookup, new Object[] {keyIn(2)}));
        }
    }

    @Test
    void aDamagedPageHeaderFailsLookupsIntoItsRowGroupOnlyNamingFileColumnRowGroupAndOffset()
            throws Exception {
        Path[] dirs = write(false);
        Path file = dirs[1].resolve("part-0.parquet");
        long offset;
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source =
                        store.open(store.stat(dirs[0].resolve("part-0.parquet").toString()))) {
            PageLocations v =
                    MetadataReader.read(source, List.of("k"))
                            .rowGroups()
                            .get(1)
                            .columns()[1]
                            .pages();
            offset = v.offsets()[4];
        }
        byte[] garbage = new byte[12];
        Arrays.fill(garbage, (byte) 0xff);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            f.write(garbage);
        }
        try (DimensionTable table =
                DimensionTable.open(config(dirs[1], new MetadataCache(64L << 20)))) {
            LookupPlan lookup = table.plan(List.of("k"), List.of("v"));
            assertAnswer(keyIn(0) + 6, table.lookup(lookup, new Object[] {keyIn(0) + 6}));
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(() -> table.lookup(lookup, new Object[] {keyIn(1) + 4}))
                        .isInstanceOf(LookupFileException.class)
                        .hasMessageContaining("part-0.parquet")
                        .hasMessageContaining("column 'v'")
                        .hasMessageContaining("row group 1")
                        .hasMessageContaining("offset " + offset);
            }
            assertAnswer(keyIn(3) + 8, table.lookup(lookup, new Object[] {keyIn(3) + 8}));
            CompletableFuture<List<Object[]>> failed =
                    table.lookupAsync(
                            lookup, new Object[] {keyIn(1) + 4}, RequestLimiter.unbounded());
            assertThatThrownBy(() -> failed.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasMessageContaining("row group 1")
                    .hasMessageContaining("offset " + offset);
        }
    }
}
