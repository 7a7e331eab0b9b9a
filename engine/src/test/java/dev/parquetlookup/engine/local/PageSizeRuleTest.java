package dev.parquetlookup.engine.local;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link PageSizeRule} on files with and without an OffsetIndex, read from the file's footer. */
class PageSizeRuleTest {

    @Test
    void countsPagesFromTheOffsetIndexOrElseThePageHeaders(@TempDir Path dir) throws Exception {
        Path indexed = write(dir.resolve("indexed.parquet"), true);
        Path bare = write(dir.resolve("bare.parquet"), false);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            PageSizeRule.Verdict fromIndex =
                    PageSizeRule.evaluate(store, store.stat(indexed.toString()));
            PageSizeRule.Verdict fromHeaders =
                    PageSizeRule.evaluate(store, store.stat(bare.toString()));
            assertThat(fromIndex.localForm()).isFalse();
            assertThat(fromIndex.rows()).isEqualTo(10_000);
            assertThat(fromIndex.rowsPerPage()).isEqualTo(1_000);
            assertThat(fromIndex.reason())
                    .isEqualTo("1,000 rows per page (from its offset index) <= 16,384");
            assertThat(fromHeaders.rowsPerPage()).isEqualTo(1_000);
            assertThat(fromHeaders.reason())
                    .isEqualTo("1,000 rows per page (from its page headers) <= 16,384");
            assertThat(fromHeaders.estimatedBytes()).isEqualTo(fromIndex.estimatedBytes());
        }
    }

    private static Path write(Path file, boolean pageIndex) throws Exception {
        WriterOptions options =
                WriterOptions.builder().rowsPerPage(1_000).pageIndex(pageIndex).build();
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.INT))),
                        List.of("k"),
                        options)) {
            for (long k = 0; k < 10_000; k++) {
                writer.write(new Object[] {k, (int) k});
            }
        }
        return file;
    }
}
