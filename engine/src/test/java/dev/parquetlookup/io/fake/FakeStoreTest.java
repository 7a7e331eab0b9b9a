package dev.parquetlookup.io.fake;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.io.disk.DiskTier;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The storage seam shown with a store the engine does not know: {@code fake://} is one test package
 * ({@link FakeFileSystem} lists, {@link FakeRangeReader} reads) and one services line, and a real
 * table on it answers lookups, synchronous and asynchronous, through its client only (its streams
 * refuse to open), through the disk tier too, and a file rewritten under the table fails as {@link
 * FileChangedException}, as the store's client maps it.
 */
class FakeStoreTest {

    private static final int ROWS = 20_000;
    private static final long SEED = 17;

    private static final Map<String, String> HADOOP =
            Map.of(
                    "fs.fake.impl",
                    FakeFileSystem.class.getName(),
                    "fs.fake.impl.disable.cache",
                    "true");

    @TempDir Path dir;

    private String table() throws IOException {
        Path dim = Files.createDirectories(dir.resolve("dim"));
        for (int f = 0; f < 2; f++) {
            write(dim.resolve("part-" + f + ".parquet"), f, "v");
        }
        return "fake:" + dim;
    }

    private static void write(Path file, int f, String prefix) throws IOException {
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.defaults())) {
            for (long i = 0; i < ROWS; i++) {
                long k = 2 * (f * (long) ROWS + i);
                w.write(new Object[] {k, prefix + "-" + k});
            }
        }
    }

    private static TableConfig config(String path) {
        return TableConfig.builder(path)
                .hadoopOptions(HADOOP)
                .metadataCache(new MetadataCache(16L << 20))
                .pageCache(null)
                .build();
    }

    private static void check(List<Object[]> rows, long k) {
        if (k % 2 == 1 || k >= 4L * ROWS) {
            assertThat(rows).as("key %d (seed %d)", k, SEED).isEmpty();
            return;
        }
        assertThat(rows).as("key %d (seed %d)", k, SEED).hasSize(1);
        assertThat(rows.get(0)[0]).isEqualTo(k);
        assertThat(new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8)).isEqualTo("v-" + k);
    }

    @Test
    void aTableOnAStoreOfItsOwnAnswersThroughItsClientOnly() throws Exception {
        String path = table();
        long before = FakeRangeReaderFactory.RANGES_READ.get();
        try (HadoopFileStore store = HadoopFileStore.create(HADOOP);
                DimensionTable table = DimensionTable.open(config(path), store)) {
            assertThat(table.files()).hasSize(2);
            assertThat(store.asyncReadsStarted()).as("footers read through the client").isTrue();
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            Random random = new Random(SEED);
            RequestLimiter limiter = new RequestLimiter(8);
            for (int i = 0; i < 200; i++) {
                long k = random.nextLong(4L * ROWS + 10);
                check(table.lookup(plan, new Object[] {k}), k);
                check(
                        table.lookupAsync(plan, new Object[] {k}, limiter)
                                .get(30, TimeUnit.SECONDS),
                        k);
            }
        }
        assertThat(FakeRangeReaderFactory.RANGES_READ.get() - before)
                .as("ranges read by the fake store's client")
                .isPositive();
    }

    @Test
    void theDiskTierHoldsWhatTheStoresClientRead() throws Exception {
        String path = table();
        try (DiskTier tier = DiskTier.create(dir.resolve("tier"), 64L << 20);
                DimensionTable table =
                        DimensionTable.open(
                                config(path), tier.wrap(HadoopFileStore.create(HADOOP)))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            long[] keys = new Random(SEED).longs(100, 0, 4L * ROWS).toArray();
            for (long k : keys) {
                check(table.lookup(plan, new Object[] {k}), k);
            }
            tier.flush().get(30, TimeUnit.SECONDS);
            long read = FakeRangeReaderFactory.RANGES_READ.get();
            for (long k : keys) {
                check(table.lookup(plan, new Object[] {k}), k);
            }
            assertThat(FakeRangeReaderFactory.RANGES_READ.get())
                    .as("ranges read again once the tier holds them")
                    .isEqualTo(read);
        }
    }

    @Test
    void aFileRewrittenUnderTheTableFailsAsChanged() throws Exception {
        String path = table();
        try (DimensionTable table =
                DimensionTable.open(config(path), HadoopFileStore.create(HADOOP))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            Files.delete(dir.resolve("dim/part-0.parquet"));
            write(dir.resolve("dim/part-0.parquet"), 0, "rewritten-value");
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {8L}))
                    .satisfies(
                            e -> {
                                Throwable t = e;
                                while (t != null && !(t instanceof FileChangedException)) {
                                    t = t.getCause();
                                }
                                assertThat(t)
                                        .as("a FileChangedException in the chain of %s", e)
                                        .isNotNull()
                                        .hasMessageContaining(
                                                "part-0.parquet changed after it was opened");
                            });
        }
    }
}
