package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.ParquetTestFiles;

import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.schema.Type;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class PrepareCommandTest {

    private static final long SEED = 99L;

    @TempDir Path dir;

    private static List<Path> parquetFiles(Path directory) throws IOException {
        try (var s = Files.list(directory)) {
            return s.filter(p -> p.toString().endsWith(".parquet")).sorted().toList();
        }
    }

    private static List<ColumnSpec> specs(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            List<ColumnSpec> specs = new ArrayList<>();
            for (Type field : reader.getFooter().getFileMetaData().getSchema().getFields()) {
                specs.add(InputTypes.spec(field));
            }
            return specs;
        }
    }

    @Test
    void rewritesUnsortedParquetDirectoryIntoSortedLookupFiles() throws IOException {
        Random r = new Random(SEED);
        List<Long> keys = new ArrayList<>(LongStream.range(0, 60_000).boxed().toList());
        keys.addAll(LongStream.range(0, 500).boxed().toList()); // duplicates
        Collections.shuffle(keys, r);
        Path in = dir.resolve("in");
        Files.createDirectories(in);
        ForeignFiles.write(in.resolve("a.parquet"), keys.subList(0, 30_000));
        ForeignFiles.write(in.resolve("b.parquet"), keys.subList(30_000, keys.size()));
        Files.writeString(in.resolve("_SUCCESS"), "");
        Path out = dir.resolve("out");

        ToolRunner.Result result =
                ToolRunner.run(
                        "prepare",
                        in.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--rows-per-page",
                        "512",
                        "--row-group-rows",
                        "8192",
                        "--target-file-size",
                        "400KiB",
                        "--sort-buffer-rows",
                        "7000",
                        "--temp-dir",
                        dir.resolve("tmp").toString());

        assertThat(result.exitCode()).as("%s", result).isZero();
        List<Path> files = parquetFiles(out);
        assertThat(files).hasSizeGreaterThan(1);
        assertThat(result.out())
                .startsWith("Wrote 60,500 rows into " + files.size() + " file(s), ")
                .contains("sorted by (k), 512 rows per page, 8,192 rows per row group, LZ4_RAW.")
                .contains("The sort spilled 9 run(s) to disk (");
        List<Long> read = new ArrayList<>();
        long previousFileMax = Long.MIN_VALUE;
        for (Path file : files) {
            List<ColumnSpec> specs = specs(file);
            assertThat(specs.stream().map(ColumnSpec::name))
                    .containsExactly("k", "v", "d", "ts", "amount");
            List<Object[]> rows = ParquetTestFiles.readRows(file, specs);
            assertThat((Long) rows.get(0)[0]).isGreaterThan(previousFileMax);
            previousFileMax = (Long) rows.get(rows.size() - 1)[0];
            for (Object[] row : rows) {
                long k = (Long) row[0];
                read.add(k);
                assertThat(
                                row[1] == null
                                        ? null
                                        : new String((byte[]) row[1], StandardCharsets.UTF_8))
                        .isEqualTo(k % 11 == 0 ? null : "value-" + k);
                assertThat(row[2]).isEqualTo((int) (k % 20_000));
                assertThat(row[3]).isEqualTo(TimestampValue.ofEpochMicros(k * 1_000_001L));
                assertThat(row[4]).isEqualTo(BigDecimal.valueOf(k * 7 - 1000, 2));
            }
            try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
                assertThat(reader.getFooter().getFileMetaData().getKeyValueMetaData())
                        .containsEntry(LookupFileWriter.SORT_KEY_METADATA, "k");
                for (BlockMetaData block : reader.getFooter().getBlocks()) {
                    assertThat(block.getRowCount()).isLessThanOrEqualTo(8_192);
                    for (ColumnChunkMetaData chunk : block.getColumns()) {
                        assertThat(chunk.getCodec())
                                .isEqualTo(
                                        chunk.getPath().toDotString().equals("k")
                                                ? CompressionCodecName.UNCOMPRESSED
                                                : CompressionCodecName.LZ4_RAW);
                        assertThat(chunk.hasDictionaryPage()).isFalse();
                        OffsetIndex oi = reader.readOffsetIndex(chunk);
                        assertThat(oi.getPageCount())
                                .isEqualTo((int) ((block.getRowCount() + 511) / 512));
                    }
                }
            }
            assertThat(ParquetTestFiles.rawFooter(file).getRow_groups().get(0).getSorting_columns())
                    .containsExactly(new SortingColumn(0, false, true));
        }
        List<Long> expected = new ArrayList<>(keys);
        Collections.sort(expected);
        assertThat(read).as("seed %d", SEED).isEqualTo(expected);
        assertThat(dir.resolve("tmp")).isEmptyDirectory();
    }

    @Test
    void rewritesCsvWithInferredTypes() throws IOException {
        Path csv = dir.resolve("people.csv");
        Files.writeString(
                csv,
                "id,name,born,score,active,seen\n"
                        + "3,\"Smith, Ann\",1990-05-01,1.5,true,2024-01-02 03:04:05.123456\n"
                        + "1,\"He said \"\"hi\"\"\",1985-12-31,,false,2024-01-02T00:00:00\n"
                        + "2,,2001-01-01,-3,true,\n"
                        + "2,\"\",2001-01-02,4,true,\n");
        Path out = dir.resolve("out");
        ToolRunner.Result result =
                ToolRunner.run("prepare", csv.toString(), out.toString(), "--key", "id");
        assertThat(result.exitCode()).as("%s", result).isZero();
        assertThat(result.out()).startsWith("Wrote 4 rows into 1 file(s), ");
        Path file = out.resolve("part-00000.parquet");
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            assertThat(reader.getFooter().getFileMetaData().getSchema().toString())
                    .isEqualTo(
                            "message lookup_row {\n"
                                    + "  required int64 id;\n"
                                    + "  optional binary name (STRING);\n"
                                    + "  required int32 born (DATE);\n"
                                    + "  optional double score;\n"
                                    + "  required boolean active;\n"
                                    + "  optional int64 seen (TIMESTAMP(MICROS,false));\n"
                                    + "}\n");
        }
        List<String> rows =
                ParquetTestFiles.readRows(file, specs(file)).stream()
                        .map(Arrays::deepToString)
                        .toList();
        assertThat(rows)
                .containsExactly(
                        Arrays.deepToString(
                                new Object[] {
                                    1L,
                                    bytes("He said \"hi\""),
                                    5843,
                                    null,
                                    false,
                                    new TimestampValue(1704153600000L, 0)
                                }),
                        Arrays.deepToString(new Object[] {2L, null, 11323, -3.0, true, null}),
                        Arrays.deepToString(new Object[] {2L, bytes(""), 11324, 4.0, true, null}),
                        Arrays.deepToString(
                                new Object[] {
                                    3L,
                                    bytes("Smith, Ann"),
                                    7425,
                                    1.5,
                                    true,
                                    new TimestampValue(1704164645123L, 456_000)
                                }));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void csvWithDeclaredSchemaAndCompositeKey() throws IOException {
        Path csv = dir.resolve("orders.csv");
        StringBuilder text = new StringBuilder("customer;day;total\n");
        Random r = new Random(SEED);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            lines.add(
                    r.nextInt(100)
                            + ";2024-01-"
                            + String.format("%02d", 1 + r.nextInt(28))
                            + ";"
                            + r.nextInt(100_000) / 100.0);
        }
        lines.forEach(l -> text.append(l).append('\n'));
        Files.writeString(csv, text);
        Path out = dir.resolve("out");
        ToolRunner.Result result =
                ToolRunner.run(
                        "prepare",
                        csv.toString(),
                        out.toString(),
                        "--key",
                        "customer",
                        "--key",
                        "day",
                        "--delimiter",
                        ";",
                        "--schema",
                        "customer INT NOT NULL, day DATE NOT NULL, total DECIMAL(10, 2)",
                        "--codec",
                        "ZSTD");
        assertThat(result.exitCode()).as("%s", result).isZero();
        Path file = out.resolve("part-00000.parquet");
        List<Object[]> rows = ParquetTestFiles.readRows(file, specs(file));
        assertThat(rows).hasSize(2_000);
        for (int i = 1; i < rows.size(); i++) {
            Object[] a = rows.get(i - 1);
            Object[] b = rows.get(i);
            int c = Integer.compare((Integer) a[0], (Integer) b[0]);
            assertThat(c == 0 ? Integer.compare((Integer) a[1], (Integer) b[1]) : c)
                    .isLessThanOrEqualTo(0);
        }
        assertThat(ParquetTestFiles.rawFooter(file).getRow_groups().get(0).getSorting_columns())
                .containsExactly(
                        new SortingColumn(0, false, true), new SortingColumn(1, false, true));
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            assertThat(reader.getFooter().getFileMetaData().getSchema().getType("total").toString())
                    .isEqualTo("optional int64 total (DECIMAL(10,2))");
            // Key columns are left uncompressed, the others take --codec.
            assertThat(reader.getFooter().getBlocks().get(0).getColumns())
                    .extracting(c -> c.getPath().toDotString() + ":" + c.getCodec())
                    .contains("total:ZSTD")
                    .allMatch(c -> c.endsWith(":ZSTD") || c.endsWith(":UNCOMPRESSED"));
        }
    }

    @Test
    void badArgumentsExitWithCodeTwoAndSayWhatToDo() throws IOException {
        Path in = dir.resolve("in.parquet");
        ForeignFiles.write(in, List.of(3L, 1L, 2L));
        String out = dir.resolve("out").toString();

        ToolRunner.Result missingKey = ToolRunner.run("prepare", in.toString(), out);
        assertThat(missingKey.exitCode()).isEqualTo(2);
        assertThat(missingKey.err())
                .contains("Missing required option: '--key=COLUMN'")
                .contains("Run 'parquet-lookup prepare --help' for the options and examples.");

        ToolRunner.Result badKey = ToolRunner.run("prepare", in.toString(), out, "--key", "nope");
        assertThat(badKey.exitCode()).isEqualTo(2);
        assertThat(badKey.err())
                .contains(
                        "--key nope: the input has no such column; its columns are [k, v, d, ts,"
                                + " amount]");

        ToolRunner.Result missingIn =
                ToolRunner.run("prepare", dir.resolve("nothing").toString(), out, "--key", "k");
        assertThat(missingIn.exitCode()).isEqualTo(2);
        assertThat(missingIn.err()).contains("does not exist: check the path");

        ToolRunner.Result badSize =
                ToolRunner.run(
                        "prepare", in.toString(), out, "--key", "k", "--target-file-size", "12XB");
        assertThat(badSize.exitCode()).isEqualTo(2);
        assertThat(badSize.err())
                .contains(
                        "--target-file-size: '12XB' has an unknown unit 'xb': use B, KiB, MiB,"
                                + " GiB or TiB");

        ToolRunner.Result badCodec =
                ToolRunner.run("prepare", in.toString(), out, "--key", "k", "--codec", "LZO");
        assertThat(badCodec.exitCode()).isEqualTo(2);
        assertThat(badCodec.err()).contains("--codec").contains("LZ4_RAW");

        assertThat(ToolRunner.run("prepare", in.toString(), out, "--key", "k").exitCode()).isZero();
        ToolRunner.Result exists = ToolRunner.run("prepare", in.toString(), out, "--key", "k");
        assertThat(exists.exitCode()).isEqualTo(2);
        assertThat(exists.err())
                .contains(
                        "already holds 1 Parquet file(s): choose an empty directory, or add"
                                + " --overwrite");
        assertThat(
                        ToolRunner.run("prepare", in.toString(), out, "--key", "k", "--overwrite")
                                .exitCode())
                .isZero();

        Path nested = dir.resolve("bad.csv");
        Files.writeString(nested, "k,v\n1,a\n2\n");
        ToolRunner.Result shortLine =
                ToolRunner.run(
                        "prepare", nested.toString(), dir.resolve("o2").toString(), "--key", "k");
        assertThat(shortLine.exitCode()).as("unreadable input").isEqualTo(3);
        assertThat(shortLine.err())
                .contains("line 3 has 1 fields but the header has 2: check the separator");
    }

    /** A CSV of {@code rows} rows, keys in descending order; row {@code bad} (1-based) is bad. */
    private Path csvWithBadRow(String name, int rows, int bad) throws IOException {
        Path csv = dir.resolve(name);
        StringBuilder text = new StringBuilder("k,v\n");
        for (int i = 1; i <= rows; i++) {
            text.append(i == bad ? "not-a-number" : Long.toString(rows - i))
                    .append(",v")
                    .append(i)
                    .append('\n');
        }
        Files.writeString(csv, text);
        return csv;
    }

    private static List<String> listing(Path directory) throws IOException {
        try (var s = Files.walk(directory)) {
            return s.map(p -> directory.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void aFailedRunLeavesTheOutputAsItWas() throws IOException {
        Path out = dir.resolve("out");
        Path good = csvWithBadRow("good.csv", 3_000, -1);
        ToolRunner.Result first =
                ToolRunner.run(
                        "prepare",
                        good.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--schema",
                        "k BIGINT, v STRING");
        assertThat(first.exitCode()).as("%s", first).isZero();
        List<String> before = listing(out);
        byte[] beforeBytes = Files.readAllBytes(out.resolve("part-00000.parquet"));

        // The bad value is met after 2,500 rows were read (and handed to the sort).
        Path bad = csvWithBadRow("bad.csv", 3_000, 2_501);
        ToolRunner.Result failed =
                ToolRunner.run(
                        "prepare",
                        bad.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--schema",
                        "k BIGINT, v STRING",
                        "--overwrite",
                        "--sort-buffer-rows",
                        "1000");
        assertThat(failed.exitCode()).as("%s", failed).isEqualTo(3);
        assertThat(failed.err())
                .contains("line 2502, column 'k'")
                .contains("nothing was published, OUT " + out + " is as it was");
        assertThat(listing(out)).as("no new, partial or staging file").isEqualTo(before);
        assertThat(Files.readAllBytes(out.resolve("part-00000.parquet"))).isEqualTo(beforeBytes);

        // Into a directory that did not exist: it still does not.
        Path fresh = dir.resolve("fresh");
        ToolRunner.Result failedFresh =
                ToolRunner.run(
                        "prepare",
                        bad.toString(),
                        fresh.toString(),
                        "--key",
                        "k",
                        "--schema",
                        "k BIGINT, v STRING");
        assertThat(failedFresh.exitCode()).as("%s", failedFresh).isEqualTo(3);
        assertThat(fresh).doesNotExist();

        // A good run with --overwrite replaces the old files only at the end.
        ToolRunner.Result replaced =
                ToolRunner.run(
                        "prepare",
                        good.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--overwrite",
                        "--target-file-size",
                        "16KiB");
        assertThat(replaced.exitCode()).as("%s", replaced).isZero();
        assertThat(listing(out)).allMatch(n -> n.isEmpty() || n.matches("part-\\d{5}\\.parquet"));
        assertThat(parquetFiles(out)).hasSizeGreaterThan(1);
        long rows = 0;
        for (Path f : parquetFiles(out)) {
            rows += ParquetTestFiles.readRows(f, specs(f)).size();
        }
        assertThat(rows).isEqualTo(3_000);
    }

    @Test
    void sortMemoryBoundsTheInMemoryRunsAndIsChecked() throws IOException {
        Path csv = csvWithBadRow("many.csv", 20_000, -1);
        Path out = dir.resolve("out");
        ToolRunner.Result r =
                ToolRunner.run(
                        "prepare",
                        csv.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--sort-memory",
                        "256KiB");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .containsPattern("The sort spilled \\d+ run\\(s\\) to disk \\(--sort-memory");
        List<Object[]> rows =
                ParquetTestFiles.readRows(
                        out.resolve("part-00000.parquet"),
                        specs(out.resolve("part-00000.parquet")));
        assertThat(rows).hasSize(20_000);
        for (int i = 0; i < rows.size(); i++) {
            assertThat(rows.get(i)[0]).isEqualTo((long) i);
        }

        ToolRunner.Result bad =
                ToolRunner.run(
                        "prepare",
                        csv.toString(),
                        dir.resolve("o").toString(),
                        "--key",
                        "k",
                        "--sort-memory",
                        "lots");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--sort-memory");
    }

    @Test
    void progressLinesGiveRowsRateShareAndTimeLeft() {
        assertThat(Progress.line("reading", 2_400_000, 0.48, 2_000_000_000L, 2_000_000_000L))
                .isEqualTo("reading: 2,400,000 rows (48%), 1,200,000 rows/s, 2 s, about 3 s left");
        assertThat(Progress.line("writing", 100, -1, 1_000_000_000L, 5_000_000_000L))
                .isEqualTo("writing: 100 rows, 100 rows/s, 5 s");

        java.io.StringWriter text = new java.io.StringWriter();
        long[] now = {0};
        Progress progress = new Progress(new java.io.PrintWriter(text), () -> now[0]);
        progress.updateRows("reading", 10, 100);
        assertThat(text.toString()).as("nothing within two seconds").isEmpty();
        now[0] = 4_000_000_000L;
        progress.updateRows("reading", 50, 100);
        assertThat(text.toString().trim())
                .isEqualTo("reading: 50 rows (50%), 13 rows/s, 4 s, about 4 s left");
    }

    @Test
    void everyCommandHasHelp() {
        for (String command : List.of("prepare", "inspect", "get")) {
            ToolRunner.Result help = ToolRunner.run(command, "--help");
            assertThat(help.exitCode()).as(command).isZero();
            assertThat(help.out())
                    .contains("Usage: parquet-lookup " + command)
                    .contains("Examples:");
        }
        ToolRunner.Result top = ToolRunner.run("--help");
        assertThat(top.exitCode()).isZero();
        assertThat(top.out()).contains("prepare").contains("inspect").contains("get");
        ToolRunner.Result none = ToolRunner.run();
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("Missing command: choose one of prepare, inspect, get.");
    }
}
