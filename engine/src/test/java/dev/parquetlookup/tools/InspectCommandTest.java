package dev.parquetlookup.tools;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

class InspectCommandTest {

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("v", ValueType.of(Kind.STRING)));

    private Path writeLookupFile(String name, long from, long to, WriterOptions options)
            throws IOException {
        Path file = dir.resolve(name);
        try (LookupFileWriter w =
                LookupFileWriter.open(file.toString(), COLUMNS, List.of("k"), options)) {
            for (long k = from; k < to; k++) {
                w.write(new Object[] {k, "md5-like-value-" + Long.toHexString(k * 2654435761L)});
            }
        }
        return file;
    }

    @Test
    void preparedFilesNeedNothing() throws IOException {
        Files.createDirectories(dir.resolve("t"));
        writeLookupFile(
                "t/part-0.parquet", 0, 5_000, WriterOptions.builder().rowsPerPage(1024).build());
        writeLookupFile(
                "t/part-1.parquet",
                5_000,
                9_000,
                WriterOptions.builder().rowsPerPage(1024).build());
        ToolRunner.Result r = ToolRunner.run("inspect", dir.resolve("t").toString());
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains(": 2 file(s), 9,000 rows, 2 row group(s), ")
                .contains("  part-0.parquet: 5,000 rows, 1 row group(s) of up to 5,000 rows, ")
                .contains("Sort key: (k), declared")
                .contains(
                        "Sort order: verified by the engine from statistics: the minimums of row"
                                + " groups and pages of 'k' do not decrease")
                .contains("Page index: present (OffsetIndex) in every column chunk")
                .contains("One lookup (returning all columns; metadata cached): about ")
                .contains(" in 2 read(s)")
                .contains("k (key) ")
                .contains("Recommendations: none, the layout suits point lookups.");
        // Columns table: 5 + 4 pages of k with 1,024 rows at most; the key is left uncompressed.
        assertThat(r.out())
                .containsPattern(
                        "k +required int64 k +UNCOMPRESSED +no +yes +9 +1,000 +1,024"
                                + " +7.8 KiB ")
                .containsPattern("v +optional binary v \\(STRING\\) +LZ4_RAW ");
    }

    @Test
    void foreignUnsortedFileGetsConcreteAdvice() throws IOException {
        List<Long> keys = new ArrayList<>(LongStream.range(0, 50_000).boxed().toList());
        Collections.shuffle(keys, new Random(5));
        Path file = dir.resolve("raw.parquet");
        ForeignFiles.write(file, keys);

        ToolRunner.Result r = ToolRunner.run("inspect", file.toString());
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains(
                        "Sort key: not declared (no sorting_columns and no parquet-lookup.sort-key"
                                + " entry); name it with --key to check the order")
                .contains(
                        "The sort order is not declared: lookups need the key column named"
                                + " ('sort-key' in SQL, --key on the command line).")
                .contains("Pages of 'k' hold up to 20,000 rows")
                .contains("Run prepare (256 rows per page).");

        ToolRunner.Result withKey = ToolRunner.run("inspect", file.toString(), "--key", "k");
        assertThat(withKey.exitCode()).as("not sorted: exit status 1").isEqualTo(1);
        assertThat(withKey.out())
                .containsPattern(
                        "Sort order: NOT sorted: File \\S+raw.parquet is not sorted by 'k': in row"
                                + " group 0, page 0 holds keys up to \\d+ but page 1 starts at"
                                + " \\d+")
                .contains("Sort key: (k), given with --key")
                .contains(
                        "Key index: 1 of 1 file(s) not sorted by 'k' (above: why) are served"
                                + " through a key index per file ('unsorted-files' = 'index', the"
                                + " default; 'refuse' refuses them), built once per file version at"
                                + " the first lookup into an out-of-order row group or page for the"
                                + " 1 file(s) whose row groups are in order (the engine finds the"
                                + " disorder there; that lookup waits for the index): about ")
                .contains(
                        "The files are not sorted by 'k': the engine serves them through a key"
                                + " index it builds per file ('unsorted-files' = 'index', the"
                                + " default; 'refuse' refuses them). For plain Parquet files you"
                                + " own (never a Delta or Iceberg table's data files), prepare"
                                + " --key k rewrites them sorted, the fastest layout.");

        ToolRunner.Result badKey = ToolRunner.run("inspect", file.toString(), "--key", "nope");
        assertThat(badKey.exitCode()).isEqualTo(2);
        assertThat(badKey.err())
                .contains("--key: File ")
                .contains("has no column 'nope' for the sort key [nope]; its columns are [k, v,");
    }

    @Test
    void filesWithoutPageIndexOrWithDictionariesAreFlagged() throws IOException {
        Files.createDirectories(dir.resolve("t"));
        writeLookupFile(
                "t/noindex.parquet",
                0,
                3_000,
                WriterOptions.builder().rowsPerPage(1024).pageIndex(false).build());
        writeLookupFile(
                "t/overlap.parquet",
                2_000,
                6_000,
                WriterOptions.builder()
                        .rowsPerPage(1024)
                        .dictionary(true)
                        .codec(WriterOptions.Codec.GZIP)
                        .codec("k", WriterOptions.Codec.LZ4_RAW)
                        .build());
        ToolRunner.Result r =
                ToolRunner.run("inspect", dir.resolve("t").toString(), "--columns", "v");
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains("Page index: present in some column chunks only")
                .contains(
                        "Some column chunks have no page index: lookups there read whole chunks."
                                + " Run prepare.")
                .contains("1 pair(s) of files overlap in key range")
                .contains(
                        "Column(s) v are compressed with GZIP or BROTLI, slow to decompress per lookup: run prepare --codec LZ4_RAW")
                .contains(
                        "Key column 'k' is compressed (LZ4_RAW): every lookup decompresses a key"
                                + " page")
                .contains("One lookup (returning v; metadata cached)")
                .containsPattern("v +optional binary v \\(STRING\\) +GZIP,LZ4_RAW +no +1/2 +4 ");

        Path dict = dir.resolve("dict.parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        dict.toString(),
                        COLUMNS,
                        List.of("k"),
                        WriterOptions.builder()
                                .rowsPerPage(1024)
                                .dictionary("v", true)
                                .codec(WriterOptions.Codec.UNCOMPRESSED)
                                .build())) {
            for (long k = 0; k < 20_000; k++) {
                w.write(new Object[] {k, String.format("%0100d", (k * 7919) % 1_000)});
            }
        }
        ToolRunner.Result d = ToolRunner.run("inspect", dict.toString());
        assertThat(d.exitCode()).as("%s", d).isZero();
        assertThat(d.out())
                .containsPattern(
                        "v +optional binary v \\(STRING\\) +UNCOMPRESSED +yes \\(\\d+\\.\\d KiB\\)")
                .containsPattern(
                        "Column 'v' is dictionary encoded with \\d+\\.\\d KiB dictionary pages,"
                                + " read with every lookup that returns it. Run prepare"
                                + " \\(dictionary off\\).")
                .containsPattern("v \\d+\\.\\d KiB page \\+ dictionary");

        ToolRunner.Result missing = ToolRunner.run("inspect", dir.resolve("none").toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("does not exist: check the path");

        Path notParquet = dir.resolve("junk/x.parquet");
        Files.createDirectories(notParquet.getParent());
        Files.writeString(notParquet, "this is not parquet at all");
        ToolRunner.Result junk = ToolRunner.run("inspect", notParquet.toString());
        assertThat(junk.exitCode()).as("unreadable input").isEqualTo(3);
        assertThat(junk.err())
                .contains(notParquet.toUri().toString().replace("file:///", "file:/"))
                .contains("neither starts nor ends with the magic bytes PAR1");
    }

    /**
     * The "Key index:" line says when a table builds each file's index, as the engine does it
     * (UnsortedFilesTest checks the engine): a file whose row groups are out of order is found at
     * the table's open and indexed in the background from then; one whose row groups are in order
     * but whose pages are not is found, and indexed, at the first lookup into such a row group.
     */
    @Test
    void theKeyIndexLineSaysWhenEachFilesIndexIsBuilt() throws IOException {
        Path table = Files.createDirectories(dir.resolve("when"));
        List<dev.parquetlookup.testing.ColumnSpec> columns =
                List.of(
                        new dev.parquetlookup.testing.ColumnSpec(
                                "k",
                                ValueType.of(Kind.BIGINT),
                                dev.parquetlookup.testing.ColumnSpec.Storage.PLAIN,
                                false));
        dev.parquetlookup.testing.WriterOptions options =
                dev.parquetlookup.testing.WriterOptions.defaults()
                        .withRowsPerPage(100)
                        .withRowsPerRowGroup(1000);
        // a: keys shuffled over three row groups; b: row groups in key order, rows shuffled
        // inside each.
        List<Object[]> a = new ArrayList<>();
        List<Object[]> b = new ArrayList<>();
        for (long k = 0; k < 3000; k++) {
            a.add(new Object[] {k});
        }
        Collections.shuffle(a, new Random(31));
        for (int g = 0; g < 3; g++) {
            List<Object[]> group = new ArrayList<>();
            for (long k = 10_000 + g * 1000L; k < 10_000 + (g + 1) * 1000L; k++) {
                group.add(new Object[] {k});
            }
            Collections.shuffle(group, new Random(32 + g));
            b.addAll(group);
        }
        dev.parquetlookup.testing.ParquetJavaFiles.write(
                table.resolve("a.parquet"), columns, options, a);
        dev.parquetlookup.testing.ParquetJavaFiles.write(
                table.resolve("b.parquet"), columns, options, b);

        ToolRunner.Result r = ToolRunner.run("inspect", table.toString(), "--key", "k");
        assertThat(r.exitCode()).as("not sorted: exit status 1; %s", r).isEqualTo(1);
        assertThat(r.out())
                .contains("a.parquet is not sorted by 'k': row group ")
                .contains("b.parquet is not sorted by 'k': in row group 0, page ")
                .contains(
                        "Key index: 2 of 2 file(s) not sorted by 'k' (above: why) are served"
                                + " through a key index per file ('unsorted-files' = 'index', the"
                                + " default; 'refuse' refuses them), built once per file version in"
                                + " the background from the table's open for the 1 file(s) whose"
                                + " row groups are out of order (a lookup into a file whose index"
                                + " is not built yet waits only for that file's, and starts its"
                                + " build at once if no builder thread has); at the first lookup"
                                + " into an out-of-order row group or page for the 1 file(s) whose"
                                + " row groups are in order (the engine finds the disorder there;"
                                + " that lookup waits for the index): about ")
                .doesNotContain("on first use");
    }
}
