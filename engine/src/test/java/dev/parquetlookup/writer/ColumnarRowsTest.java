package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The columnar sort buffer gives back the prepared rows it was given, in the stable order of {@link
 * RowLayout#compareKeys} (the order the row-based sort gave), and files written through it are byte
 * for byte the files written from rows sorted by that comparator.
 */
class ColumnarRowsTest {

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.optional("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("s", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("i", ValueType.of(Kind.INT)),
                    ColumnSpec.optional("big", new ValueType(Kind.DECIMAL, 25, 2)),
                    ColumnSpec.optional("small", new ValueType(Kind.DECIMAL, 9, 2)),
                    ColumnSpec.optional("ts", new ValueType(Kind.TIMESTAMP, 6, 0)),
                    ColumnSpec.optional("d", ValueType.of(Kind.DATE)),
                    ColumnSpec.optional("b", ValueType.of(Kind.BOOLEAN)),
                    ColumnSpec.optional("f", ValueType.of(Kind.FLOAT)),
                    ColumnSpec.optional("x", ValueType.of(Kind.DOUBLE)),
                    ColumnSpec.optional("bin", ValueType.of(Kind.BINARY)));

    private static final List<List<String>> KEYS =
            List.of(
                    List.of("k"),
                    List.of("i"),
                    List.of("s", "i"),
                    List.of("big"),
                    List.of("small", "k"),
                    List.of("ts"),
                    List.of("bin", "d"));

    /** Rows with nulls in every nullable column, duplicate keys and empty strings. */
    private static List<Object[]> rows(long seed, int n) {
        Random r = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            byte[] bin = new byte[r.nextInt(4)];
            r.nextBytes(bin);
            rows.add(
                    new Object[] {
                        r.nextInt(15) == 0 ? null : (long) r.nextInt(200) - 100,
                        r.nextInt(15) == 0 ? null : r.nextInt(9) == 0 ? "" : "s" + r.nextInt(40),
                        r.nextInt(300) - 150,
                        r.nextInt(15) == 0 ? null : BigDecimal.valueOf(r.nextLong() % 50_000, 2),
                        r.nextInt(15) == 0 ? null : BigDecimal.valueOf(r.nextInt(2000) - 1000, 2),
                        r.nextInt(15) == 0
                                ? null
                                : TimestampValue.ofEpochMicros(r.nextLong() % 4_000_000_000L),
                        r.nextInt(15) == 0 ? null : r.nextInt(100) - 50,
                        r.nextInt(15) == 0 ? null : r.nextBoolean(),
                        r.nextInt(15) == 0 ? null : r.nextFloat() - 0.5f,
                        r.nextInt(15) == 0 ? null : r.nextDouble() * 1e9,
                        r.nextInt(15) == 0 ? null : bin
                    });
        }
        return rows;
    }

    @Test
    void givesBackThePreparedRowsInTheStableKeyOrder() {
        for (long seed = 1; seed <= 6; seed++) {
            for (List<String> key : KEYS) {
                RowLayout layout = new RowLayout(COLUMNS, key);
                List<Object[]> prepared =
                        rows(seed, 3_000).stream().map(row -> layout.prepare(row, null)).toList();
                ColumnarRows buffer = new ColumnarRows(layout);
                prepared.forEach(buffer::add);
                List<Object[]> expected = new ArrayList<>(prepared);
                expected.sort(layout::compareKeys); // List.sort is stable
                int[] order = buffer.sortedOrder();
                List<List<Object>> actual = new ArrayList<>();
                for (int i : order) {
                    actual.add(Arrays.asList(buffer.row(i)));
                }
                assertThat(actual)
                        .as("seed %d key %s", seed, key)
                        .containsExactlyElementsOf(expected.stream().map(Arrays::asList).toList());
                buffer.reorder(order);
                List<List<Object>> reordered = new ArrayList<>();
                for (int i = 0; i < buffer.size(); i++) {
                    reordered.add(Arrays.asList(buffer.row(i)));
                }
                assertThat(reordered).as("seed %d key %s", seed, key).isEqualTo(actual);
            }
        }
    }

    @Test
    void sortedFilesAreTheBytesOfFilesWrittenFromRowsSortedByTheComparator() throws IOException {
        for (long seed = 1; seed <= 4; seed++) {
            List<String> key = KEYS.get((int) (seed % KEYS.size()));
            RowLayout layout = new RowLayout(COLUMNS, key);
            List<Object[]> rows = rows(seed, 5_000);
            List<Object[]> sorted = new ArrayList<>(rows);
            sorted.sort(
                    (a, b) -> layout.compareKeys(layout.prepare(a, null), layout.prepare(b, null)));
            Path viaSort = dir.resolve("sorted-" + seed + ".parquet");
            Path reference = dir.resolve("reference-" + seed + ".parquet");
            write(viaSort, key, rows, true, seed % 2 == 0 ? 1_000 : Integer.MAX_VALUE);
            write(reference, key, sorted, false, Integer.MAX_VALUE);
            assertThat(Files.readAllBytes(viaSort))
                    .as("seed %d key %s", seed, key)
                    .isEqualTo(Files.readAllBytes(reference));
        }
    }

    /**
     * Recycled page buffers ({@link RecyclingAllocator}) write the bytes fresh buffers write, for
     * every codec, with and without dictionaries, both writer versions, and pages and row groups of
     * several sizes.
     */
    @Test
    void recycledPageBuffersWriteTheBytesOfFreshOnes() throws IOException {
        int variant = 0;
        for (WriterOptions.Codec codec : WriterOptions.Codec.values()) {
            for (boolean dictionary : new boolean[] {false, true}) {
                variant++;
                List<String> key = KEYS.get(variant % KEYS.size());
                RowLayout layout = new RowLayout(COLUMNS, key);
                List<Object[]> rows = new ArrayList<>(rows(variant, 4_000));
                rows.sort(
                        (a, b) ->
                                layout.compareKeys(
                                        layout.prepare(a, null), layout.prepare(b, null)));
                WriterOptions options =
                        WriterOptions.builder()
                                .codec(codec)
                                .dictionary(dictionary)
                                .writerVersion(
                                        variant % 2 == 0
                                                ? WriterOptions.WriterVersion.V2
                                                : WriterOptions.WriterVersion.V1)
                                .rowsPerPage(variant % 3 == 0 ? 7 : 300)
                                .rowsPerRowGroup(variant % 3 == 1 ? 1_000 : 3_000)
                                .build();
                byte[][] written = new byte[2][];
                for (int recycle = 0; recycle < 2; recycle++) {
                    Path file = dir.resolve("v" + variant + "-" + recycle + ".parquet");
                    try (LookupFileWriter w =
                            LookupFileWriter.open(
                                    file.toString(), COLUMNS, key, options, recycle == 1)) {
                        for (Object[] row : rows) {
                            w.write(row);
                        }
                    }
                    written[recycle] = Files.readAllBytes(file);
                }
                assertThat(written[1])
                        .as("%s dictionary %s key %s", codec, dictionary, key)
                        .isEqualTo(written[0]);
            }
        }
    }

    private void write(Path file, List<String> key, List<Object[]> rows, boolean sort, int buffer)
            throws IOException {
        WriterOptions options =
                WriterOptions.builder()
                        .sortInput(sort)
                        .sortBufferRows(buffer)
                        .sortTempDir(dir.resolve("tmp"))
                        .rowsPerPage(100)
                        .build();
        try (LookupFileWriter w = LookupFileWriter.open(file.toString(), COLUMNS, key, options)) {
            for (Object[] row : rows) {
                w.write(row);
            }
        }
    }
}
