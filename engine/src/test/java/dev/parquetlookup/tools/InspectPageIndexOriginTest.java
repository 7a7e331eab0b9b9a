package dev.parquetlookup.tools;

import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code inspect} says whether lookups use the file's own page index or a synthesized one. */
class InspectPageIndexOriginTest {

    @TempDir Path dir;

    @Test
    void reportsOwnAndSynthesizedPageIndexWithItsCost() throws Exception {
        Path indexed = Files.createDirectories(dir.resolve("t")).resolve("a.parquet");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        indexed.toString(),
                        List.of(ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT))),
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(100).build())) {
            for (long k = 0; k < 2_000; k++) {
                writer.write(new Object[] {k});
            }
        }
        PageIndexRewriter.rewrite(indexed, dir.resolve("t").resolve("b.parquet"), false);

        ToolRunner.Result r = ToolRunner.run("inspect", dir.resolve("t").toString());
        assertThat(r.exitCode()).as("%s", r).isZero();
        assertThat(r.out())
                .contains("Page index lookups use (own, or synthesized from page headers at open):")
                .contains("a.parquet: the file's own (ColumnIndex and OffsetIndex)")
                .containsPattern(
                        "b\\.parquet: synthesized from page headers at open: 1 chunks, 20 pages"
                                + " walked, [\\d,]+ bytes read, [\\d.]+ ms")
                .containsPattern(
                        "b\\.parquet: .*; 1 row group\\(s\\), built by a table one by one on"
                                + " the first lookup into each \\(about [\\d.]+ ms and [\\d,]+"
                                + " bytes read each\\)");
    }
}
