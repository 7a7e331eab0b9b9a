package dev.parquetlookup.tools;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inspect}'s recommendations: files of plain Parquet get {@code prepare} and "rewrite or
 * move the odd files"; a Delta or Iceberg table's never advise rewriting or removing its data files
 * outside its log, but name the writer that maintains the table.
 */
class LookupCostAdviceTest {

    @TempDir Path tmp;

    private static ColumnSpec column(String name, ValueType.Kind kind) {
        return new ColumnSpec(name, ValueType.of(kind), ColumnSpec.Storage.PLAIN, true);
    }

    /**
     * Two files that disagree on column {@code v} (STRING, BIGINT), with no declared sort order and
     * 5,000-row pages: advice on the columns, the sort order and the pages.
     */
    private LayoutReport report() throws IOException {
        List<FileId> ids = new ArrayList<>();
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            for (int f = 0; f < 2; f++) {
                List<ColumnSpec> columns =
                        List.of(
                                column("k", ValueType.Kind.BIGINT),
                                column(
                                        "v",
                                        f == 0 ? ValueType.Kind.STRING : ValueType.Kind.BIGINT));
                List<Object[]> rows = new ArrayList<>();
                for (long k = f * 5000L; k < (f + 1) * 5000L; k++) {
                    Object v = f == 0 ? ("v" + k).getBytes(StandardCharsets.UTF_8) : k;
                    rows.add(new Object[] {k, v});
                }
                Path file = tmp.resolve("part-" + f + ".parquet");
                ParquetJavaFiles.write(
                        file,
                        columns,
                        WriterOptions.defaults().withRowsPerPage(5000).withRowsPerRowGroup(5000),
                        rows);
                ids.add(store.stat(file.toString()));
            }
            List<FileLayout> layouts = new ArrayList<>();
            for (FileId id : ids) {
                layouts.add(LayoutReader.read(store, id, List.of()));
            }
            return new LayoutReport(tmp.toString(), layouts);
        }
    }

    @Test
    void plainFilesAreToldToRewriteOrMoveTheOddFiles() throws IOException {
        List<String> advice = LookupCost.recommendations(report(), null, true);
        assertThat(advice)
                .contains(
                        "The files disagree on 1 column(s) (see Schema above), so they cannot serve"
                                + " as one table: rewrite the odd files, or move them out of the"
                                + " path.")
                .anyMatch(a -> a.contains("Run prepare"));
    }

    @Test
    void aTableFormatIsNeverToldToRewriteOrRemoveItsDataFiles() throws IOException {
        List<String> advice = LookupCost.recommendations(report(), null, false);
        assertThat(advice)
                .contains(
                        "The files disagree on 1 column(s) (see Schema above), so they cannot serve"
                                + " as one table: the writer that maintains the table must rewrite"
                                + " the odd files (a Delta or Iceberg table's data files are never"
                                + " rewritten or removed outside its log).")
                .anyMatch(a -> a.endsWith(LookupCost.TABLE_WRITER))
                .noneMatch(a -> a.contains("prepare"))
                .noneMatch(a -> a.contains("move them out"));
    }
}
