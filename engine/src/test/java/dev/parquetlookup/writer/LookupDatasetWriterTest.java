package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.hadoop.ParquetFileReader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LookupDatasetWriterTest {

    private static final long SEED = 4242L;

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("v", ValueType.of(Kind.STRING)));

    @Test
    void sortsAllRowsAndSplitsFilesOnlyWhereTheKeyChanges() throws IOException {
        Random r = new Random(SEED);
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 20_000; k++) {
            // Every key three times, so a split inside a run of equal keys would show.
            for (int copy = 0; copy < 3; copy++) {
                rows.add(new Object[] {k, Long.toHexString(r.nextLong())});
            }
        }
        Collections.shuffle(rows, r);
        Path out = dir.resolve("out");
        LookupDatasetWriter writer =
                LookupDatasetWriter.open(
                        out.toString(),
                        COLUMNS,
                        List.of("k"),
                        WriterOptions.builder()
                                .sortInput(true)
                                .sortBufferRows(5_000)
                                .sortTempDir(dir.resolve("tmp"))
                                .build(),
                        200_000);
        List<Long> progress = new ArrayList<>();
        try (writer) {
            writer.onProgress(progress::add);
            for (Object[] row : rows) {
                writer.write(row);
            }
        }
        assertThat(writer.sortRuns()).as("seed %d", SEED).isEqualTo(12);
        assertThat(progress).last().isEqualTo(60_000L);
        List<LookupDatasetWriter.WrittenFile> files = writer.files();
        assertThat(files).hasSizeGreaterThan(2);
        assertThat(files.stream().mapToLong(LookupDatasetWriter.WrittenFile::rows).sum())
                .isEqualTo(60_000);
        long expectedKey = 0;
        int seenOfKey = 0;
        for (int i = 0; i < files.size(); i++) {
            Path file = out.resolve(String.format("part-%05d.parquet", i));
            assertThat(files.get(i).path()).isEqualTo("file:" + file);
            List<Object[]> read = ParquetTestFiles.readRows(file, COLUMNS);
            assertThat(read).hasSize((int) files.get(i).rows());
            assertThat(seenOfKey).as("file %d starts at a new key", i).isZero();
            for (Object[] row : read) {
                assertThat(row[0]).isEqualTo(expectedKey);
                if (++seenOfKey == 3) {
                    expectedKey++;
                    seenOfKey = 0;
                }
            }
            try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
                assertThat(reader.getFooter().getFileMetaData().getKeyValueMetaData())
                        .containsEntry(LookupFileWriter.SORT_KEY_METADATA, "k");
            }
        }
        assertThat(expectedKey).isEqualTo(20_000);
        assertThat(dir.resolve("tmp")).isEmptyDirectory();
    }

    @Test
    void unsortedInputIsRefusedWhenSortingIsOff() throws IOException {
        Path out = dir.resolve("out");
        LookupDatasetWriter writer =
                LookupDatasetWriter.open(
                        out.toString(), COLUMNS, List.of("k"), WriterOptions.defaults(), 1 << 20);
        writer.write(new Object[] {2L, "a"});
        assertThatThrownBy(() -> writer.write(new Object[] {1L, "b"}))
                .hasMessageContaining("the input is not sorted by (k): row 2 has key (1)");
        writer.close();
        assertThat(Files.list(out).toList()).isEmpty();
    }
}
