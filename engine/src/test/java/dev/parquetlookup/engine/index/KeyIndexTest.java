package dev.parquetlookup.engine.index;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key index file on its own: entries sorted in bounded memory (runs spilled and merged give the
 * same file as one chunk), found by code with rows in file order, and every kind of damage detected
 * when the file is opened.
 */
class KeyIndexTest {

    @TempDir Path tmp;

    static final IndexHeader HEADER =
            new IndexHeader(
                    "file:/t/a.parquet",
                    1234,
                    99,
                    "",
                    List.of("k"),
                    List.of("optional int64 k"),
                    50_000);

    /**
     * Writes an index of {@code codes[row]} (one entry per row), sorting in chunks of {@code
     * chunk}.
     */
    private Path write(long[] codes, int chunk, String name) throws IOException {
        return write(codes, 1, HEADER, chunk, name);
    }

    /** The same, the row of code {@code i} at position {@code i * stride}. */
    private Path write(long[] codes, long stride, IndexHeader header, int chunk, String name)
            throws IOException {
        Path file = tmp.resolve(name);
        try (CodeSorter sorter = new CodeSorter(chunk, tmp)) {
            for (int row = 0; row < codes.length; row++) {
                sorter.add(codes[row], row * stride);
            }
            try (KeyIndexWriter writer = new KeyIndexWriter(file, header, sorter.size())) {
                CodeSorter.emit(List.of(sorter), writer, KeyIndexBuilder.Parallel.SERIAL);
                writer.finish();
            }
        }
        return file;
    }

    private static long[] randomCodes(long seed) {
        Random random = new Random(seed);
        long[] codes = new long[50_000];
        for (int i = 0; i < codes.length; i++) {
            // Negative, positive and extreme codes, many repeated.
            codes[i] =
                    switch (i % 4) {
                        case 0 -> random.nextLong();
                        case 1 -> random.nextInt(2000) - 1000;
                        case 2 -> i % 8 == 2 ? Long.MIN_VALUE : Long.MAX_VALUE;
                        default -> random.nextInt(100) * 1_000_000_007L;
                    };
        }
        return codes;
    }

    @Test
    void spilledRunsMergeIntoTheSameIndexAsOneChunkAndFindEveryRowInOrder() throws IOException {
        long seed = 20261205L;
        long[] codes = randomCodes(seed);
        Path whole = write(codes, 1 << 20, "whole.pli");
        Path spilled = write(codes, 3000, "spilled.pli");
        assertThat(Files.readAllBytes(spilled)).isEqualTo(Files.readAllBytes(whole));
        try (var left = Files.list(tmp)) {
            assertThat(left.filter(p -> p.toString().endsWith(".tmp")))
                    .as("runs deleted")
                    .isEmpty();
        }
        TreeMap<Long, List<Long>> expected = new TreeMap<>();
        for (int row = 0; row < codes.length; row++) {
            expected.computeIfAbsent(codes[row], c -> new ArrayList<>()).add((long) row);
        }
        KeyIndex index = KeyIndex.open(spilled, HEADER);
        assertThat(index.entries()).isEqualTo(codes.length);
        // 8 bytes of code and 4 of position per row, plus the header and trailer.
        assertThat(index.bytes()).isLessThan(12L * codes.length + 200);
        for (var e : expected.entrySet()) {
            assertThat(index.rows(e.getKey()))
                    .as("code %d, seed %d", e.getKey(), seed)
                    .containsExactly(e.getValue().stream().mapToLong(Long::longValue).toArray());
        }
        assertThat(index.rows(12345678901L)).isEmpty();
    }

    /**
     * Sorters fed consecutive row ranges (as a build's ranges on their own threads: some spilled,
     * one empty, one in memory only) emit what one sorter fed every row emits, merged on one thread
     * or in ranges of codes on several (many codes repeated across the cuts).
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 5})
    void sortersOfConsecutiveRowRangesMergeIntoTheIndexOfOneSorter(int threads) throws IOException {
        long seed = 20261206L;
        long[] codes = randomCodes(seed);
        Path whole = write(codes, 1 << 20, "whole.pli");
        int[] cuts = {0, 20_000, 20_000, 21_000, codes.length};
        List<CodeSorter> sorters = new ArrayList<>();
        Path ranged = tmp.resolve("ranged.pli");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            long entries = 0;
            for (int r = 0; r + 1 < cuts.length; r++) {
                CodeSorter sorter = new CodeSorter(3000, tmp);
                sorters.add(sorter);
                for (int row = cuts[r]; row < cuts[r + 1]; row++) {
                    sorter.add(codes[row], row);
                }
                if (r % 2 == 0) {
                    sorter.finish(); // as a range's thread does; emit finishes the others
                }
                entries += sorter.size();
            }
            try (KeyIndexWriter writer = new KeyIndexWriter(ranged, HEADER, entries)) {
                CodeSorter.emit(sorters, writer, new KeyIndexBuilder.Parallel(threads, 1, pool));
                writer.finish();
            }
        } finally {
            pool.shutdownNow();
            for (CodeSorter sorter : sorters) {
                sorter.close();
            }
        }
        assertThat(Files.readAllBytes(ranged))
                .as("seed %d, %d threads", seed, threads)
                .isEqualTo(Files.readAllBytes(whole));
        try (var left = Files.list(tmp)) {
            assertThat(left.filter(p -> p.toString().endsWith(".tmp")))
                    .as("runs deleted")
                    .isEmpty();
        }
    }

    /**
     * The directory over the codes' range finds every code and nothing else, whatever the codes'
     * spread: dense integers, a few far outliers (most codes in one slice), the extremes of the
     * long range, hashed codes, one repeated code, and indexes smaller than a slice.
     */
    @Test
    void everyCodeIsFoundAndItsNeighboursAreNotWhateverTheCodesSpread() throws IOException {
        Random random = new Random(20261206L);
        List<long[]> shapes = new ArrayList<>();
        long[] dense = new long[40_000];
        for (int i = 0; i < dense.length; i++) {
            dense[i] = 3 * (long) ((i * 7919) % dense.length) + 5; // every third integer, shuffled
        }
        shapes.add(dense);
        long[] outliers = dense.clone();
        outliers[17] = Long.MAX_VALUE - 1;
        outliers[18] = -4_000_000_000_000L;
        shapes.add(outliers);
        long[] hashed = new long[30_000];
        for (int i = 0; i < hashed.length; i++) {
            hashed[i] = random.nextLong();
        }
        hashed[0] = Long.MIN_VALUE;
        hashed[1] = Long.MAX_VALUE;
        shapes.add(hashed);
        shapes.add(new long[] {42, 42, 42, 42});
        shapes.add(new long[] {-1});
        shapes.add(new long[] {9, -3, 9, Long.MIN_VALUE + 1});
        int n = 0;
        for (long[] codes : shapes) {
            Path file = write(codes, 1 << 20, "shape" + n++ + ".pli");
            KeyIndex index = KeyIndex.open(file, HEADER);
            TreeMap<Long, List<Long>> expected = new TreeMap<>();
            for (int row = 0; row < codes.length; row++) {
                expected.computeIfAbsent(codes[row], c -> new ArrayList<>()).add((long) row);
            }
            for (var e : expected.entrySet()) {
                long code = e.getKey();
                assertThat(index.rows(code))
                        .as("code %d", code)
                        .containsExactly(
                                e.getValue().stream().mapToLong(Long::longValue).toArray());
                for (long near : new long[] {code - 1, code + 1}) {
                    if (!expected.containsKey(near)) {
                        assertThat(index.rows(near)).as("absent code %d", near).isEmpty();
                    }
                }
            }
            for (long absent : new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, 1, 2, 4}) {
                if (!expected.containsKey(absent)) {
                    assertThat(index.rows(absent)).as("absent code %d", absent).isEmpty();
                }
            }
        }
    }

    @Test
    void positionsBeyondFourBytesAreKeptWholeThroughSpilledRuns() throws IOException {
        // A file of more than 2^32 rows: positions take 8 bytes.
        IndexHeader huge =
                new IndexHeader(
                        HEADER.path(),
                        HEADER.length(),
                        HEADER.modificationTime(),
                        "",
                        HEADER.keyColumns(),
                        HEADER.keyTypes(),
                        50_000L * 100_003L);
        long seed = 20261206L;
        long[] codes = randomCodes(seed);
        Path whole = write(codes, 100_003L, huge, 1 << 20, "wide-whole.pli");
        Path spilled = write(codes, 100_003L, huge, 7000, "wide-spilled.pli");
        assertThat(Files.readAllBytes(spilled)).isEqualTo(Files.readAllBytes(whole));
        KeyIndex index = KeyIndex.open(spilled, huge);
        assertThat(index.bytes()).isGreaterThan(16L * codes.length);
        TreeMap<Long, List<Long>> expected = new TreeMap<>();
        for (int row = 0; row < codes.length; row++) {
            expected.computeIfAbsent(codes[row], c -> new ArrayList<>()).add(row * 100_003L);
        }
        for (var e : expected.entrySet()) {
            assertThat(index.rows(e.getKey()))
                    .as("code %d, seed %d", e.getKey(), seed)
                    .containsExactly(e.getValue().stream().mapToLong(Long::longValue).toArray());
        }
    }

    @Test
    void damageOfAnyKindIsDetectedAtOpen() throws IOException {
        Path file = write(randomCodes(1), 1 << 20, "index.pli");
        byte[] good = Files.readAllBytes(file);
        // A byte flipped in the header, in the codes, in the positions, in the checksum.
        for (int at : new int[] {20, good.length / 3, good.length - 100, good.length - 6}) {
            byte[] bad = good.clone();
            bad[at] ^= 0x01;
            Files.write(file, bad);
            assertThatThrownBy(() -> KeyIndex.open(file, HEADER))
                    .as("byte %d", at)
                    .isInstanceOf(KeyIndex.Damaged.class);
        }
        for (int length : new int[] {0, 7, 40, good.length - 8, good.length - 1}) {
            Files.write(file, java.util.Arrays.copyOf(good, length));
            assertThatThrownBy(() -> KeyIndex.open(file, HEADER))
                    .as("truncated to %d", length)
                    .isInstanceOf(KeyIndex.Damaged.class);
        }
        Files.write(file, good);
        IndexHeader otherVersion =
                new IndexHeader(
                        HEADER.path(),
                        HEADER.length(),
                        HEADER.modificationTime() + 1,
                        "",
                        HEADER.keyColumns(),
                        HEADER.keyTypes(),
                        HEADER.rowCount());
        assertThatThrownBy(() -> KeyIndex.open(file, otherVersion))
                .isInstanceOf(KeyIndex.Damaged.class)
                .hasMessageContaining("written for");
        assertThat(KeyIndex.open(file, HEADER).entries()).isEqualTo(50_000);
    }

    @Test
    void integerKeysAreTheirOwnCodesAndOtherKeysHashStably() {
        var bigint =
                dev.parquetlookup.metadata.KeyType.of(
                        org.apache.parquet.schema.Types.required(
                                        org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
                                                .INT64)
                                .named("k"));
        var string =
                dev.parquetlookup.metadata.KeyType.of(
                        org.apache.parquet.schema.Types.required(
                                        org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
                                                .BINARY)
                                .named("s"));
        assertThat(KeyCodes.code(List.of(bigint), new Object[] {-42L})).isEqualTo(-42L);
        // Fixed values: the codes are written to disk and must not change between versions.
        assertThat(KeyCodes.code(List.of(string), new Object[] {"eu".getBytes()}))
                .isEqualTo(-8737039741335345925L)
                .isNotEqualTo(KeyCodes.code(List.of(string), new Object[] {"us".getBytes()}));
        assertThat(KeyCodes.code(List.of(string, bigint), new Object[] {"eu".getBytes(), 7L}))
                .isEqualTo(7853015337635950880L)
                .isNotEqualTo(
                        KeyCodes.code(List.of(string, bigint), new Object[] {"eu".getBytes(), 8L}));
    }

    @Test
    void aBuildThroughAClosedTableIsRetriedThroughTheNewestOne() throws Exception {
        // A refresh: the old table's source closes while its build is pending or failed; the new
        // table's handle gets the index through its own source.
        Path file = tmp.resolve("refresh.parquet");
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 5000; i++) {
            rows.add(new Object[] {(i * 7919) % 5000});
        }
        var k =
                new dev.parquetlookup.testing.ColumnSpec(
                        "k",
                        dev.parquetlookup.types.ValueType.of(
                                dev.parquetlookup.types.ValueType.Kind.BIGINT),
                        dev.parquetlookup.testing.ColumnSpec.Storage.PLAIN,
                        false);
        dev.parquetlookup.testing.ParquetJavaFiles.write(
                file,
                List.of(k),
                dev.parquetlookup.testing.WriterOptions.defaults().withRowsPerRowGroup(1000),
                rows);
        try (var store = dev.parquetlookup.io.HadoopFileStore.create(java.util.Map.of())) {
            var id = store.list(file.toString()).get(0);
            var good = store.open(id);
            var meta =
                    dev.parquetlookup.metadata.MetadataReader.readForIndex(
                            good,
                            schema -> List.of("k"),
                            dev.parquetlookup.metadata.PageIndexOptions.OWN);
            var closed = store.open(id);
            closed.close();
            KeyIndexes indexes = new KeyIndexes(1000, KeyIndexBuilder.Parallel.SERIAL);
            java.util.function.Function<dev.parquetlookup.io.RangeSource, KeyIndexes.Request>
                    request =
                            source ->
                                    new KeyIndexes.Request(
                                            id,
                                            List.of("k"),
                                            meta.keyTypes(),
                                            List.of(meta.schema().getColumns().get(0)),
                                            meta.rowCount(),
                                            tmp.resolve("retry"),
                                            source);
            try (KeyIndexes.Handle old = indexes.acquire(request.apply(closed));
                    KeyIndexes.Handle fresh = indexes.acquire(request.apply(good))) {
                KeyIndex index = fresh.index();
                assertThat(index.rows(7)).hasSize(1);
                assertThat(index.entries()).isEqualTo(5000);
                assertThat(old.index()).isSameAs(index);
            }
            assertThat(indexes.statistics().filesIndexed()).isEqualTo(1);
            good.close();
        }
    }
}
