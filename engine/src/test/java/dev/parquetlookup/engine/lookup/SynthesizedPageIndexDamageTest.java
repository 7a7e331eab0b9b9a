package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file without a page index whose page headers are damaged: building the index fails at open with
 * an error naming the file, column, row group and offset; no lookup is served from it.
 */
class SynthesizedPageIndexDamageTest {

    @TempDir Path dir;

    /** Writes 3 row groups of 1,000 rows (100-row pages), then strips the page index. */
    private Path[] write() throws IOException {
        Path indexed = dir.resolve("indexed.parquet");
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(ValueType.Kind.BIGINT)),
                        ColumnSpec.optional("v", ValueType.of(ValueType.Kind.STRING)));
        WriterOptions options =
                WriterOptions.builder().rowsPerRowGroup(1_000).rowsPerPage(100).build();
        try (LookupFileWriter writer =
                LookupFileWriter.open(indexed.toString(), columns, List.of("k"), options)) {
            for (long k = 0; k < 3_000; k++) {
                writer.write(new Object[] {k / 2, k % 7 == 0 ? null : "v" + k});
            }
        }
        Path stripped = dir.resolve("stripped.parquet");
        PageIndexRewriter.rewrite(indexed, stripped, false);
        return new Path[] {indexed, stripped};
    }

    private static FileMetadata read(Path file, PageIndexOptions options) throws IOException {
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source = store.open(store.stat(file.toString()))) {
            return MetadataReader.read(source, List.of("k"), options);
        }
    }

    private static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            f.write(bytes);
        }
    }

    private static PageLocations pages(Path indexed, int rowGroup, int column) throws IOException {
        return read(indexed, PageIndexOptions.OWN)
                .rowGroups()
                .get(rowGroup)
                .columns()[column]
                .pages();
    }

    @Test
    void garbledHeaderOfAValuePageNamesFileColumnRowGroupAndOffset() throws IOException {
        Path[] files = write();
        long offset = pages(files[0], 1, 1).offsets()[4];
        byte[] garbage = new byte[12];
        Arrays.fill(garbage, (byte) 0xff);
        overwrite(files[1], offset, garbage);

        assertThatThrownBy(
                        () -> read(files[1], PageIndexOptions.synthesized(KeyPageBounds.INSTANCE)))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("stripped.parquet")
                .hasMessageContaining("column 'v'")
                .hasMessageContaining("row group 1")
                .hasMessageContaining("offset " + offset)
                .hasMessageContaining("or rewrite the file")
                .hasMessageContaining("plain Parquet files only");
    }

    @Test
    void headerClaimingAPagePastTheChunkEndIsRefused() throws IOException {
        Path[] files = write();
        long offset = pages(files[0], 2, 0).offsets()[9]; // the key column's last page
        // A header cut to its first field (type = DATA_PAGE) then a STOP: no sizes.
        overwrite(files[1], offset, new byte[] {0x15, 0x00, 0x00});

        assertThatThrownBy(
                        () -> read(files[1], PageIndexOptions.synthesized(KeyPageBounds.INSTANCE)))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("column 'k'")
                .hasMessageContaining("row group 2")
                .hasMessageContaining("offset " + offset);
    }

    @Test
    void damagedKeyPagePayloadIsAnErrorAtOpenNotAWrongBound() throws IOException {
        Path[] files = write();
        PageLocations key = pages(files[0], 0, 0);
        // The last 5 values of the key's page 3 (stored uncompressed) become huge: its decoded
        // bounds no longer fit between its neighbours'.
        long payload = key.offsets()[3] + key.sizes()[3] - 40;
        byte[] garbage = new byte[40];
        Arrays.fill(garbage, (byte) 0x7f);
        overwrite(files[1], payload, garbage);

        assertThatThrownBy(
                        () -> read(files[1], PageIndexOptions.synthesized(KeyPageBounds.INSTANCE)))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("stripped.parquet")
                .hasMessageContaining("not sorted by 'k'")
                .hasMessageContaining("in row group 0, page 3 holds keys up to");
    }

    @Test
    void undamagedStrippedFileIsServedFromTheSynthesizedIndex() throws IOException {
        Path[] files = write();
        FileMetadata own = read(files[0], PageIndexOptions.OWN);
        FileMetadata synthesized =
                read(files[1], PageIndexOptions.synthesized(KeyPageBounds.INSTANCE));
        assertThat(synthesized.retainedBytes()).isEqualTo(own.retainedBytes());
        try (DimensionTable table =
                DimensionTable.open(TableConfig.builder(files[1].toString()).build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            assertThat(table.lookup(plan, new Object[] {1_234L}))
                    .extracting(row -> new String((byte[]) row[1]))
                    .containsExactly("v2468", "v2469");
        }
        assertThat(Files.size(files[1])).isLessThan(Files.size(files[0]));
    }
}
