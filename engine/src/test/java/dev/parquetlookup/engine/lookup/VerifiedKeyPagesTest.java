package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Key pages are checked sorted in full the first time a lookup decodes them; later lookups decode a
 * verified page only as far as their key ({@code VerifiedKeyPages}, {@code KeyStop}). Checked here
 * through whole tables, page cache off: an unsorted page is an error at every lookup into it (it is
 * never marked verified, so never read as a prefix), and lookups served by verified pages give the
 * rows the first, checking lookups gave, for single and composite keys, null keys, keys at page
 * starts, middles and ends, and misses between and beyond the keys.
 */
class VerifiedKeyPagesTest {

    @TempDir Path tmp;

    private final MetadataCache metadata = new MetadataCache(16 << 20);

    private TableConfig config(Path path, String... sortKey) {
        return TableConfig.builder(path.toString())
                .sortKey(List.of(sortKey))
                .metadataCache(metadata)
                .pageCache(null)
                .unsortedFiles(UnsortedFiles.REFUSE) // the refusal; served: UnsortedFilesTest
                .build();
    }

    private static WriterOptions lz4(int rowsPerPage) {
        WriterOptions d = WriterOptions.defaults();
        return new WriterOptions(
                CompressionCodecName.LZ4_RAW,
                false,
                false,
                false,
                rowsPerPage,
                d.pageBytes(),
                d.dictionaryPageBytes(),
                1000,
                true);
    }

    @Test
    void anUnsortedPageIsAnErrorAtEveryLookupAndNeverVerified() throws IOException {
        // Pages of 100 rows: page 1 holds keys 100..199 shuffled, pages 0 and 2 are sorted.
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < 300; k++) {
            keys.add(k);
        }
        Collections.shuffle(keys.subList(100, 200), new Random(5));
        Path file = tmp.resolve("unsorted-page.parquet");
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        List<Object[]> rows = new ArrayList<>();
        for (long key : keys) {
            rows.add(new Object[] {key, key * 10});
        }
        ParquetJavaFiles.write(file, List.of(k, v), lz4(100), rows);
        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            for (int round = 0; round < 3; round++) {
                for (long key : new long[] {0, 50, 99, 200, 250, 299}) {
                    assertThat(table.lookup(plan, new Object[] {key}))
                            .as("round %d key %d", round, key)
                            .singleElement()
                            .satisfies(r -> assertThat(r).containsExactly(key, key * 10));
                }
                assertThat(table.verifiedKeyPages()).isEqualTo(2); // pages 0 and 2
                for (long key : new long[] {100, 150, 199, keys.get(100), keys.get(199)}) {
                    Object[] lookup = {key};
                    assertThatThrownBy(() -> table.lookup(plan, lookup))
                            .as("round %d key %d", round, key)
                            .isInstanceOf(LookupFileException.class)
                            .hasMessageContaining("is not sorted by 'k': in row group 0, page 1");
                }
                assertThat(table.verifiedKeyPages()).isEqualTo(2);
            }
        }
    }

    @Test
    void verifiedPagesGiveTheRowsOfTheCheckingLookups() throws IOException {
        // Composite key (a, b): a BIGINT with runs of equal keys across page ends, b a string.
        ColumnSpec a = new ColumnSpec("a", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        ColumnSpec b = new ColumnSpec("b", ValueType.of(Kind.STRING), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        Random r = new Random(11);
        List<Object[]> rows = new ArrayList<>();
        long key = 1;
        for (int i = 0; i < 3000; i++) {
            key += r.nextInt(4) == 0 ? 0 : 2; // gaps (misses) and runs of equal keys
            rows.add(new Object[] {key, bytes("b" + (i % 7)), (long) i});
        }
        rows.sort(
                (x, y) ->
                        x[0].equals(y[0])
                                ? Arrays.compareUnsigned((byte[]) x[1], (byte[]) y[1])
                                : Long.compare((Long) x[0], (Long) y[0]));
        Path file = tmp.resolve("composite.parquet");
        ParquetJavaFiles.write(file, List.of(a, b, v), lz4(128), rows);
        try (DimensionTable table = DimensionTable.open(config(file, "a", "b"))) {
            LookupPlan one = table.plan(List.of("a"), List.of("a", "b", "v"));
            LookupPlan two = table.plan(List.of("a", "b"), List.of("a", "b", "v"));
            List<Object[]> probes = new ArrayList<>();
            for (long p = -2; p <= key + 3; p++) {
                probes.add(new Object[] {p});
                probes.add(new Object[] {p, bytes("b" + (p % 7))});
            }
            List<List<Object[]>> first = new ArrayList<>();
            for (Object[] probe : probes) {
                List<Object[]> found = table.lookup(probe.length == 1 ? one : two, probe);
                assertThat(Values.rowListsEqual(expected(rows, probe), found))
                        .as("first lookup of %s: %s", Values.describe(probe), found.size())
                        .isTrue();
                first.add(found);
            }
            int pages = (3000 + 127) / 128;
            assertThat(table.verifiedKeyPages()).isEqualTo(pages);
            for (int i = 0; i < probes.size(); i++) {
                Object[] probe = probes.get(i);
                List<Object[]> found = table.lookup(probe.length == 1 ? one : two, probe);
                assertThat(Values.rowListsEqual(first.get(i), found))
                        .as("verified lookup of %s", Values.describe(probe))
                        .isTrue();
            }
        }
    }

    @Test
    void nullKeysAreSkippedOnVerifiedPages() throws IOException {
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.STRING), Storage.PLAIN, true);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 700; i++) {
            // Null keys first (a nulls-first sort), then keys with runs of two.
            rows.add(new Object[] {i < 150 ? null : bytes(String.format("k%05d", i / 2)), i});
        }
        Path file = tmp.resolve("null-keys.parquet");
        ParquetJavaFiles.write(file, List.of(k, v), lz4(64), rows);
        try (DimensionTable table = DimensionTable.open(config(file, "k"))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            for (int round = 0; round < 2; round++) {
                for (long i = 60; i < 360; i++) {
                    Object[] probe = {bytes(String.format("k%05d", i))};
                    List<Object[]> found = table.lookup(plan, probe);
                    assertThat(Values.rowListsEqual(expected(rows, probe), found))
                            .as("round %d lookup of k%05d: %s", round, i, found.size())
                            .isTrue();
                }
            }
            assertThat(table.verifiedKeyPages()).isPositive();
        }
    }

    /** The rows whose leading columns equal {@code key}, in file order. */
    private static List<Object[]> expected(List<Object[]> rows, Object[] key) {
        List<Object[]> out = new ArrayList<>();
        for (Object[] row : rows) {
            boolean match = true;
            for (int c = 0; c < key.length && match; c++) {
                match = row[c] != null && equal(row[c], key[c]);
            }
            if (match) {
                out.add(row);
            }
        }
        return out;
    }

    private static boolean equal(Object x, Object y) {
        return x instanceof byte[] bx && y instanceof byte[] by
                ? Arrays.equals(bx, by)
                : Objects.equals(x, y);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
