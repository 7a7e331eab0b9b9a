package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many waves of requests a cold asynchronous lookup takes on a remote file, and how many
 * requests, for the layouts a table meets: the pages are held by the test and answered wave by wave
 * ({@link AsyncFileStore#answerWaves}), so every count is exact. Each lookup's rows are checked
 * against the synchronous lookup of a local table.
 */
class ColdLookupWavesTest {

    @TempDir Path tmp;

    private static final ColumnSpec K =
            new ColumnSpec(
                    "k", ValueType.of(ValueType.Kind.BIGINT), ColumnSpec.Storage.PLAIN, false);
    private static final ColumnSpec K2 =
            new ColumnSpec("k2", ValueType.of(ValueType.Kind.INT), ColumnSpec.Storage.PLAIN, false);
    private static final ColumnSpec V =
            new ColumnSpec(
                    "v", ValueType.of(ValueType.Kind.STRING), ColumnSpec.Storage.PLAIN, true);

    /** One lookup's waves (requests per wave) and its rows. */
    private record Cold(List<Integer> waves, long bytes, List<Object[]> rows) {}

    private static WriterOptions options(int rowsPerPage, int pageBytes, boolean dictionary) {
        return new WriterOptions(
                CompressionCodecName.UNCOMPRESSED,
                dictionary,
                false,
                false,
                rowsPerPage,
                pageBytes,
                1 << 20,
                4096,
                true);
    }

    /** Rows (k, v) for {@code keys}, v a string of {@code width} bytes naming k. */
    private static List<Object[]> rows(long[] keys, int width) {
        List<Object[]> rows = new ArrayList<>();
        for (long k : keys) {
            String v = ("value-" + k + "-").repeat(width / 8 + 1).substring(0, width);
            rows.add(new Object[] {k, v.getBytes(StandardCharsets.UTF_8)});
        }
        return rows;
    }

    private static long[] evens(int n) {
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = 2L * i;
        }
        return keys;
    }

    private Path table(String name) throws IOException {
        Path dir = tmp.resolve(name);
        Files.createDirectories(dir);
        return dir;
    }

    private static TableConfig config(Path dir, String... sortKey) {
        return TableConfig.builder(dir.toString()).sortKey(List.of(sortKey)).build();
    }

    /** One cold lookup of {@code key} through a store answering wave by wave. */
    private static Cold cold(
            TableConfig config, List<String> keyColumns, List<String> columns, Object... key)
            throws Exception {
        try (AsyncFileStore store =
                        new AsyncFileStore(
                                HadoopFileStore.create(
                                        config.hadoopOptions(), config.mapLocalFiles()));
                DimensionTable table = DimensionTable.open(config, store)) {
            for (FileMetadata meta : table.fileMetadata()) {
                RowGroupIndexes rgs = meta.rowGroupIndexes();
                for (int r = 0; rgs != null && r < rgs.size(); r++) {
                    rgs.get(r); // indexes at hand: the first lookup into a row group reads its own
                }
            }
            LookupPlan plan = table.plan(keyColumns, columns);
            store.hold();
            long bytes = store.bytes();
            CompletableFuture<List<Object[]>> future =
                    table.lookupAsync(plan, key, RequestLimiter.unbounded());
            List<Integer> waves = store.answerWaves();
            List<Object[]> rows = future.get(30, TimeUnit.SECONDS);
            return new Cold(waves, store.bytes() - bytes, rows);
        }
    }

    /** The synchronous lookup of a table of local files, the reference. */
    private static List<Object[]> expected(
            TableConfig config, List<String> keyColumns, List<String> columns, Object... key)
            throws Exception {
        try (DimensionTable table = DimensionTable.open(config)) {
            return table.lookup(table.plan(keyColumns, columns), key);
        }
    }

    private static void check(
            Cold cold,
            TableConfig config,
            List<String> keyColumns,
            List<String> columns,
            Object... key)
            throws Exception {
        List<Object[]> want = expected(config, keyColumns, columns, key);
        assertThat(Values.rowListsEqual(want, cold.rows()))
                .as("rows of %s", java.util.Arrays.toString(key))
                .isTrue();
    }

    /** k = 0, 2, 4, ... 3,998 (odd keys are misses inside the pages' bounds). */
    private TableConfig aligned() throws IOException {
        Path dir = table("aligned");
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"),
                List.of(K, V),
                options(64, 1 << 20, false),
                rows(evens(2000), 16));
        return config(dir, "k");
    }

    @Test
    void aColdHitIsOneWaveOfItsKeyPageAndValuePage() throws Exception {
        TableConfig config = aligned();
        Cold hit = cold(config, List.of("k"), List.of("k", "v"), 200L);
        assertThat(hit.waves()).as("key page and value page, one wave").containsExactly(2);
        assertThat(hit.rows()).hasSize(1);
        check(hit, config, List.of("k"), List.of("k", "v"), 200L);
    }

    @Test
    void aMissInsideAKeyPagesBoundsReadsItsValuePageAheadAndOneOutsideReadsNothing()
            throws Exception {
        TableConfig config = aligned();
        // 201 lies within the bounds of the key page holding 200 and 202: the value page is read
        // with the key page, before the key page can say it is a miss.
        Cold inside = cold(config, List.of("k"), List.of("k", "v"), 201L);
        assertThat(inside.waves()).containsExactly(2);
        assertThat(inside.rows()).isEmpty();
        // Beyond the file's keys: the footer's statistics answer, no request.
        Cold outside = cold(config, List.of("k"), List.of("k", "v"), 5000L);
        assertThat(outside.waves()).isEmpty();
        assertThat(outside.rows()).isEmpty();
    }

    @Test
    void valuePagesSmallerThanTheKeyPageComeAsOneRangeInTheSameWave() throws Exception {
        // 256-row key pages over 120-byte strings in 2 KiB pages: about 16 value pages under each
        // key page; before, the first two were read ahead and a hit further on took a second wave.
        Path dir = table("narrow");
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"),
                List.of(K, V),
                options(256, 2048, false),
                rows(evens(2000), 120));
        TableConfig config = config(dir, "k");
        for (long key : new long[] {2, 200, 480, 1000, 1001, 3998}) {
            Cold c = cold(config, List.of("k"), List.of("k", "v"), key);
            assertThat(c.waves())
                    .as("key %d: the key page and one range of value pages", key)
                    .containsExactly(2);
            check(c, config, List.of("k"), List.of("k", "v"), key);
        }
    }

    @Test
    void theRunsReadAheadWithOneKeyPageSpanAtMostOneMebibyteTogether() throws Exception {
        // Two 3,000-byte string columns, one row per value page: about 750 KiB of each under a
        // 256-row key page. v's pages fit the bound and come as one range; w's do not fit what is
        // left, so only its first two pages are read ahead and a hit further on reads its page in a
        // second wave.
        ColumnSpec w =
                new ColumnSpec(
                        "w", ValueType.of(ValueType.Kind.STRING), ColumnSpec.Storage.PLAIN, true);
        Path dir = table("wide");
        List<Object[]> rows = new ArrayList<>();
        for (Object[] row : rows(evens(512), 3000)) {
            rows.add(new Object[] {row[0], row[1], row[1]});
        }
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"), List.of(K, V, w), options(256, 2048, false), rows);
        TableConfig config = config(dir, "k");
        Cold c = cold(config, List.of("k"), List.of("v", "w"), 400L);
        assertThat(c.waves())
                .as("key page, v's run, w's first two pages; then w's page")
                .containsExactly(4, 1);
        assertThat(c.bytes()).as("at most 1 MiB of runs").isLessThan((1 << 20) + 64 * 1024);
        check(c, config, List.of("k"), List.of("v", "w"), 400L);
    }

    @Test
    void aDictionaryEncodedValueColumnsDictionaryComesInTheSameWave() throws Exception {
        Path dir = table("dictionary");
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"),
                List.of(K, V),
                options(64, 1 << 20, true),
                rows(evens(2000), 4));
        TableConfig config = config(dir, "k");
        Cold c = cold(config, List.of("k"), List.of("k", "v"), 300L);
        assertThat(c.waves()).as("key page, value page, its dictionary").containsExactly(3);
        check(c, config, List.of("k"), List.of("k", "v"), 300L);
    }

    @Test
    void aCompositeKeysLaterKeyColumnComesInTheSameWave() throws Exception {
        // (k, k2) sorted, 4 rows per k; k2 is not projected: its pages under the key page's rows
        // are read ahead too (before: a second wave for them).
        Path dir = table("composite");
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 500; k++) {
            for (int j = 0; j < 4; j++) {
                rows.add(new Object[] {k, j, ("v" + k + "/" + j).getBytes(StandardCharsets.UTF_8)});
            }
        }
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"),
                List.of(K, K2, V),
                options(64, 1 << 20, false),
                rows);
        TableConfig config = config(dir, "k", "k2");
        Cold both = cold(config, List.of("k", "k2"), List.of("v"), 100L, 2);
        assertThat(both.waves()).as("k page, k2 page, v page").containsExactly(3);
        assertThat(both.rows()).hasSize(1);
        check(both, config, List.of("k", "k2"), List.of("v"), 100L, 2);
        Cold prefix = cold(config, List.of("k"), List.of("v"), 100L);
        assertThat(prefix.waves()).as("a prefix lookup reads no k2 page").containsExactly(2);
        assertThat(prefix.rows()).hasSize(4);
        check(prefix, config, List.of("k"), List.of("v"), 100L);
    }

    @Test
    void aKeyWhoseRowsCrossKeyPagesIsOneWave() throws Exception {
        // Key 7 has 150 rows: it spans three 64-row key pages.
        Path dir = table("multi");
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 20; k++) {
            int n = k == 7 ? 150 : 10;
            for (int j = 0; j < n; j++) {
                rows.add(new Object[] {k, ("v" + k + "/" + j).getBytes(StandardCharsets.UTF_8)});
            }
        }
        ParquetJavaFiles.write(
                dir.resolve("part-0.parquet"), List.of(K, V), options(64, 1 << 20, false), rows);
        TableConfig config = config(dir, "k");
        Cold c = cold(config, List.of("k"), List.of("v"), 7L);
        assertThat(c.waves()).as("every key page and the value pages under them").hasSize(1);
        assertThat(c.rows()).hasSize(150);
        check(c, config, List.of("k"), List.of("v"), 7L);
    }

    @Test
    void aKeyInSeveralFilesIsOneWave() throws Exception {
        Path dir = table("files");
        for (int f = 0; f < 3; f++) {
            List<Object[]> rows = new ArrayList<>();
            for (long k = 0; k < 500; k++) {
                String v = "file" + f + "-" + k;
                rows.add(new Object[] {k, v.getBytes(StandardCharsets.UTF_8)});
            }
            ParquetJavaFiles.write(
                    dir.resolve("part-" + f + ".parquet"),
                    List.of(K, V),
                    options(64, 1 << 20, false),
                    rows);
        }
        TableConfig config = config(dir, "k");
        Cold c = cold(config, List.of("k"), List.of("k", "v"), 321L);
        assertThat(c.waves()).as("each file's key page and value page").containsExactly(6);
        assertThat(c.rows()).hasSize(3);
        check(c, config, List.of("k"), List.of("k", "v"), 321L);
    }

    @Test
    void aLocalLookupIsCompleteOnReturnWithoutRequests() throws Exception {
        TableConfig config = aligned();
        // Local bytes are read inline, as the synchronous lookup reads them: no request, no wave.
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            CompletableFuture<List<Object[]>> future =
                    table.lookupAsync(plan, new Object[] {200L}, RequestLimiter.unbounded());
            assertThat(future).as("no thread hand-off").isDone();
            assertThat(
                            Values.rowListsEqual(
                                    expected(config, List.of("k"), List.of("k", "v"), 200L),
                                    future.join()))
                    .isTrue();
        }
    }
}
