package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prepare} copies the values of columns whose type it keeps as the Parquet reader gives them
 * (no round trip through engine values) and converts the others: either way its output is byte for
 * byte the file {@link LookupFileWriter} writes from the same rows as engine values, for every type
 * {@code prepare} reads, with NULLs, duplicate keys, dictionary-encoded and plain inputs over
 * several files.
 */
class PrepareCopiesValuesTest {

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("i", ValueType.of(Kind.INT)),
                    ColumnSpec.optional("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("s", ValueType.of(Kind.STRING)),
                    ColumnSpec.optional("b", ValueType.of(Kind.BINARY)),
                    ColumnSpec.optional("d", ValueType.of(Kind.DATE)),
                    ColumnSpec.optional("ts3", new ValueType(Kind.TIMESTAMP, 3, 0)),
                    ColumnSpec.optional("ts6", new ValueType(Kind.TIMESTAMP_LTZ, 6, 0)),
                    ColumnSpec.optional("ts9", new ValueType(Kind.TIMESTAMP, 9, 0)),
                    ColumnSpec.optional("flag", ValueType.of(Kind.BOOLEAN)),
                    ColumnSpec.optional("f", ValueType.of(Kind.FLOAT)),
                    ColumnSpec.optional("x", ValueType.of(Kind.DOUBLE)),
                    ColumnSpec.optional("dec", new ValueType(Kind.DECIMAL, 9, 2)),
                    ColumnSpec.optional("big", new ValueType(Kind.DECIMAL, 30, 4)),
                    ColumnSpec.optional("t", new ValueType(Kind.TIME, 6, 0)),
                    ColumnSpec.optional("tiny", ValueType.of(Kind.TINYINT)));

    /**
     * Rows in the order of the sequence column {@code i}; {@code k} repeats and is null at times.
     */
    private static List<Object[]> rows(long seed, int n) {
        Random r = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            byte[] bytes = new byte[r.nextInt(5)];
            r.nextBytes(bytes);
            rows.add(
                    new Object[] {
                        i,
                        nullOr(r, (long) r.nextInt(n / 3) - n / 6),
                        nullOr(r, "s" + r.nextInt(30)),
                        nullOr(r, bytes),
                        nullOr(r, r.nextInt(40_000) - 20_000),
                        nullOr(r, new TimestampValue(r.nextLong() % 9_000_000_000_000L, 0)),
                        nullOr(r, TimestampValue.ofEpochMicros(r.nextLong() % 9_000_000_000_000L)),
                        nullOr(r, TimestampValue.ofEpochNanos(r.nextLong())),
                        nullOr(r, r.nextBoolean()),
                        nullOr(r, r.nextFloat() * 1000 - 500),
                        nullOr(r, r.nextGaussian() * 1e6),
                        nullOr(r, BigDecimal.valueOf(r.nextInt(2_000_000) - 1_000_000, 2)),
                        nullOr(r, new BigDecimal(Long.toString(r.nextLong()) + "123.4567")),
                        nullOr(r, Math.floorMod(r.nextLong(), 86_400_000_000L) * 1000),
                        nullOr(r, r.nextInt(256) - 128)
                    });
        }
        return rows;
    }

    private static Object nullOr(Random r, Object v) {
        return r.nextInt(12) == 0 ? null : v;
    }

    @Test
    void outputIsTheFileWrittenFromEngineValues() throws IOException {
        for (long seed = 1; seed <= 3; seed++) {
            List<Object[]> rows = rows(seed, 6_000);
            Path in = dir.resolve("in-" + seed);
            Files.createDirectories(in);
            boolean dictionary = seed != 2;
            int half = rows.size() / 2;
            write(in.resolve("a.parquet"), rows.subList(0, half), List.of("i"), input(dictionary));
            write(
                    in.resolve("b.parquet"),
                    rows.subList(half, rows.size()),
                    List.of("i"),
                    input(dictionary));
            Path reference = dir.resolve("reference-" + seed + ".parquet");
            write(
                    reference,
                    rows,
                    List.of("k"),
                    WriterOptions.builder()
                            .codec(WriterOptions.Codec.LZ4_RAW)
                            .sortInput(true)
                            .build());
            Path out = dir.resolve("out-" + seed);

            ToolRunner.Result result =
                    ToolRunner.run("prepare", in.toString(), out.toString(), "--key", "k");

            assertThat(result.exitCode()).as(result.err()).isZero();
            assertThat(Files.readAllBytes(out.resolve("part-00000.parquet")))
                    .as("seed %d", seed)
                    .isEqualTo(Files.readAllBytes(reference));
        }
    }

    private static WriterOptions input(boolean dictionary) {
        return WriterOptions.builder()
                .dictionary(dictionary)
                .rowsPerPage(dictionary ? 700 : 90)
                .codec(WriterOptions.Codec.SNAPPY)
                .build();
    }

    private static void write(Path file, List<Object[]> rows, List<String> key, WriterOptions o)
            throws IOException {
        try (LookupFileWriter w = LookupFileWriter.open(file.toString(), COLUMNS, key, o)) {
            for (Object[] row : rows) {
                w.write(row);
            }
        }
    }
}
