package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class ExternalSorterTest {

    private static final long SEED = 77L;

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
                    ColumnSpec.required("seq", ValueType.of(Kind.INT)),
                    ColumnSpec.optional("amount", new ValueType(Kind.DECIMAL, 25, 2)),
                    ColumnSpec.optional("flag", ValueType.of(Kind.BOOLEAN)),
                    ColumnSpec.optional("x", ValueType.of(Kind.DOUBLE)));

    /** Random rows with many duplicate keys (name, amount), nulls, and a sequence number. */
    private static List<Object[]> randomRows(int n, Random r) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(
                    new Object[] {
                        r.nextInt(20) == 0 ? null : "n" + r.nextInt(50),
                        i,
                        r.nextInt(10) == 0 ? null : BigDecimal.valueOf(r.nextInt(21) - 10, 2),
                        r.nextInt(5) == 0 ? null : r.nextBoolean(),
                        r.nextDouble()
                    });
        }
        return rows;
    }

    /** Reference order: Java's stable sort on the same key, nulls first, unsigned UTF-8 bytes. */
    private static List<Object[]> referenceSort(List<Object[]> rows) {
        Comparator<Object[]> byName =
                Comparator.comparing(
                        (Object[] r) ->
                                r[0] == null
                                        ? null
                                        : ((String) r[0]).getBytes(StandardCharsets.UTF_8),
                        Comparator.nullsFirst(Arrays::compareUnsigned));
        Comparator<Object[]> byAmount =
                Comparator.comparing(
                        (Object[] r) -> (BigDecimal) r[2],
                        Comparator.nullsFirst(Comparator.naturalOrder()));
        List<Object[]> sorted = new ArrayList<>(rows);
        sorted.sort(byName.thenComparing(byAmount));
        return sorted;
    }

    @Test
    void manySpilledRunsMergeIntoAStableSortedOrder() throws IOException {
        Random r = new Random(SEED);
        List<Object[]> rows = randomRows(5_000, r);
        RowLayout layout = new RowLayout(COLUMNS, List.of("name", "amount"));
        Path temp = dir.resolve("tmp");
        WriterOptions options =
                WriterOptions.builder().sortBufferRows(30).sortTempDir(temp).build();
        List<Object[]> out = new ArrayList<>();
        try (ExternalSorter sorter = new ExternalSorter(layout, options)) {
            for (Object[] row : rows) {
                sorter.add(layout.prepare(row, null));
            }
            // 5,000 / 30 = 166 runs before finish: more than one merge pass (fan-in 64).
            assertThat(sorter.spills()).isEqualTo(166);
            try (ExternalSorter.SortedRows sorted = sorter.finish()) {
                for (Object[] row = sorted.next(); row != null; row = sorted.next()) {
                    out.add(row);
                }
            }
            assertThat(sorter.spills()).isEqualTo(167);
        }
        assertThat(out).hasSize(rows.size());
        // Stable: compare the sequence numbers (unique) against the reference order.
        assertThat(out.stream().map(row -> (Integer) row[1]).toList())
                .as("seed %d", SEED)
                .containsExactlyElementsOf(
                        referenceSort(rows).stream().map(row -> (Integer) row[1]).toList());
        assertThat(temp).isEmptyDirectory();
    }

    @Test
    void byteBudgetAlsoTriggersSpills() throws IOException {
        Random r = new Random(SEED + 1);
        List<Object[]> rows = randomRows(2_000, r);
        RowLayout layout = new RowLayout(COLUMNS, List.of("name"));
        WriterOptions options =
                WriterOptions.builder()
                        // Rows are held as columns (ColumnarRows): ~25 bytes each here.
                        .sortBufferBytes(4_000)
                        .sortTempDir(dir.resolve("tmp"))
                        .build();
        try (ExternalSorter sorter = new ExternalSorter(layout, options)) {
            for (Object[] row : rows) {
                sorter.add(layout.prepare(row, null));
            }
            assertThat(sorter.spills()).isGreaterThan(20);
        }
        assertThat(dir.resolve("tmp")).isEmptyDirectory();
    }

    @Test
    void writerSortsInputLargerThanItsBuffer() throws IOException {
        Random r = new Random(SEED + 2);
        List<Object[]> rows = randomRows(3_000, r);
        Path file = dir.resolve("sorted.parquet");
        WriterOptions options =
                WriterOptions.builder()
                        .sortInput(true)
                        .sortBufferRows(100)
                        .sortTempDir(dir.resolve("tmp"))
                        .rowsPerPage(128)
                        .rowsPerRowGroup(1_000)
                        .build();
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), COLUMNS, List.of("name", "amount"), options)) {
            for (Object[] row : rows) {
                writer.write(row);
            }
        }
        List<Object[]> expected = new ArrayList<>();
        for (Object[] row : referenceSort(rows)) {
            Object[] copy = row.clone();
            if (copy[0] != null) {
                copy[0] = ((String) copy[0]).getBytes(StandardCharsets.UTF_8);
            }
            expected.add(copy);
        }
        assertThat(
                        ParquetTestFiles.readRows(file, COLUMNS).stream()
                                .map(Arrays::deepToString)
                                .toList())
                .as("seed %d", SEED + 2)
                .containsExactlyElementsOf(expected.stream().map(Arrays::deepToString).toList());
        assertThat(dir.resolve("tmp")).isEmptyDirectory();
    }
}
