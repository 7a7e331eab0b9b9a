package dev.parquetlookup.testing;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.LookupFileWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes generated rows with the project's {@link LookupFileWriter}, which records {@code
 * sorting_columns} and can leave out the page index, mapping the generator's column and layout
 * choices onto the writer's.
 */
final class LookupWriterFiles {

    private LookupWriterFiles() {}

    static void write(Path file, TableSpec spec, List<Object[]> rows) throws IOException {
        List<dev.parquetlookup.writer.ColumnSpec> columns = new ArrayList<>();
        for (ColumnSpec c : spec.columns()) {
            columns.add(c.writerColumn());
        }
        WriterOptions o = spec.options();
        dev.parquetlookup.writer.WriterOptions.Builder b =
                dev.parquetlookup.writer.WriterOptions.builder()
                        .codec(
                                dev.parquetlookup.writer.WriterOptions.Codec.valueOf(
                                        o.codec().name()))
                        .dictionary(o.dictionary())
                        .writerVersion(
                                o.v2()
                                        ? dev.parquetlookup.writer.WriterOptions.WriterVersion.V2
                                        : dev.parquetlookup.writer.WriterOptions.WriterVersion.V1)
                        .rowsPerPage(o.rowsPerPage())
                        .pageBytes(o.pageBytes())
                        .rowsPerRowGroup(o.rowsPerRowGroup())
                        .pageIndex(o.pageIndex())
                        .overwrite(true);
        if (o.byteStreamSplit()) {
            for (ColumnSpec c : spec.columns()) {
                ValueType.Kind k = c.type().kind();
                if (k == ValueType.Kind.FLOAT || k == ValueType.Kind.DOUBLE) {
                    b.byteStreamSplit(c.name());
                }
            }
        }
        try (LookupFileWriter writer =
                LookupFileWriter.open(file.toString(), columns, spec.sortKey(), b.build())) {
            for (Object[] row : rows) {
                writer.write(row);
            }
        }
    }
}
