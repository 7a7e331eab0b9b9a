package dev.parquetlookup.writer;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RepagedCopy} changes only the pages: a DuckDB file (one page per column chunk, no page
 * index) with flat, nullable, list, struct and map columns is copied, and parquet-java's record
 * reader reads the same records, row group by row group, from both; the copy has the same schema
 * and row groups, an OffsetIndex on every chunk and at most 256 rows per page.
 */
class RepagedCopyTest {

    @TempDir Path tmp;

    @Test
    void copyHoldsTheSameRecordsInSmallPagesWithAPageIndex() throws Exception {
        Path source = tmp.resolve("duck.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY (SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'name-' || i END"
                            + " AS name, (i * 0.25)::DECIMAL(18,2) AS amount,"
                            + " TIMESTAMP '2020-01-01' + to_seconds(i) AS ts,"
                            + " CASE WHEN i % 5 = 0 THEN NULL ELSE [i, i + 1, NULL][1:(i % 4)]"
                            + " END AS tags, {'a': i % 3, 'b': 'x' || (i % 11)} AS s,"
                            + " MAP {'k': i} AS m, i % 2 = 0 AS flag, (i / 3.0)::DOUBLE AS d"
                            + " FROM range(130000) t(i) ORDER BY i) TO '"
                            + source
                            + "' (FORMAT parquet, COMPRESSION snappy)");
        }
        Path copy = tmp.resolve("copy.parquet");
        RepagedCopy.Result result =
                RepagedCopy.copy(
                        new LocalInputFile(source),
                        ParquetReadOptions.builder().build(),
                        new LocalOutputFile(copy),
                        Set.of("id"),
                        WriterOptions.defaults(),
                        Map.of("extra", "yes"));
        assertThat(result.rows()).isEqualTo(130_000);

        try (ParquetFileReader a = ParquetFileReader.open(new LocalInputFile(source));
                ParquetFileReader b = ParquetFileReader.open(new LocalInputFile(copy))) {
            MessageType schema = a.getFooter().getFileMetaData().getSchema();
            assertThat(b.getFooter().getFileMetaData().getSchema()).isEqualTo(schema);
            assertThat(b.getFooter().getFileMetaData().getKeyValueMetaData())
                    .containsEntry("extra", "yes");
            List<BlockMetaData> sourceGroups = a.getRowGroups();
            List<BlockMetaData> copyGroups = b.getRowGroups();
            assertThat(copyGroups).hasSameSizeAs(sourceGroups).hasSize(result.rowGroups());
            for (int r = 0; r < copyGroups.size(); r++) {
                assertThat(copyGroups.get(r).getRowCount())
                        .isEqualTo(sourceGroups.get(r).getRowCount());
                for (ColumnChunkMetaData chunk : copyGroups.get(r).getColumns()) {
                    OffsetIndex offsets = b.readOffsetIndex(chunk);
                    assertThat(offsets).as(chunk.getPath().toString()).isNotNull();
                    for (int p = 0; p < offsets.getPageCount(); p++) {
                        long end =
                                p + 1 < offsets.getPageCount()
                                        ? offsets.getFirstRowIndex(p + 1)
                                        : copyGroups.get(r).getRowCount();
                        assertThat(end - offsets.getFirstRowIndex(p)).isBetween(1L, 256L);
                    }
                }
            }
            // The source's chunks are one page each: what the copy is for.
            assertThat(a.readOffsetIndex(sourceGroups.get(0).getColumns().get(0))).isNull();
        }
        assertThat(records(copy)).isEqualTo(records(source));
    }

    /** Every record as parquet-java's example reader prints it (the copy tests compare them). */
    static List<String> records(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            PageReadStore store;
            while ((store = reader.readNextRowGroup()) != null) {
                RecordReader<Group> records =
                        new ColumnIOFactory()
                                .getColumnIO(schema)
                                .getRecordReader(store, new GroupRecordConverter(schema));
                for (long i = 0; i < store.getRowCount(); i++) {
                    out.add(records.read().toString());
                }
            }
        }
        return out;
    }
}
