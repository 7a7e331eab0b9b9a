package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.api.Binary;

import org.apache.hadoop.conf.Configuration;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads files back with parquet-java's own reader (the reference), converting values to the
 * engine's representation.
 */
public final class ParquetTestFiles {

    private ParquetTestFiles() {}

    public static ParquetFileReader open(Path file) throws IOException {
        return ParquetFileReader.open(
                HadoopInputFile.fromPath(
                        new org.apache.hadoop.fs.Path(file.toUri()), new Configuration()));
    }

    /** Every row, values as the engine represents them. */
    public static List<Object[]> readRows(Path file, List<ColumnSpec> columns) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        try (ParquetReader<Group> reader =
                ParquetReader.builder(
                                new GroupReadSupport(), new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .build()) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                Object[] row = new Object[columns.size()];
                for (int i = 0; i < row.length; i++) {
                    if (g.getFieldRepetitionCount(i) > 0) {
                        row[i] = value(columns.get(i), g, i);
                    }
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static Object value(ColumnSpec c, Group g, int i) {
        ValueType t = c.type();
        return switch (t.kind()) {
            case BOOLEAN -> g.getBoolean(i, 0);
            case TINYINT, SMALLINT, INT, DATE -> g.getInteger(i, 0);
            case BIGINT -> g.getLong(i, 0);
            case FLOAT -> g.getFloat(i, 0);
            case DOUBLE -> g.getDouble(i, 0);
            case DECIMAL ->
                    switch (c.decimalStorage()) {
                        case INT32 -> BigDecimal.valueOf(g.getInteger(i, 0), t.scale());
                        case INT64 -> BigDecimal.valueOf(g.getLong(i, 0), t.scale());
                        default ->
                                new BigDecimal(
                                        new BigInteger(g.getBinary(i, 0).getBytes()), t.scale());
                    };
            case STRING, BINARY -> g.getBinary(i, 0).getBytes();
            case TIME ->
                    switch (c.timeUnit()) {
                        case MILLIS -> g.getInteger(i, 0) * 1_000_000L;
                        case MICROS -> g.getLong(i, 0) * 1_000L;
                        default -> g.getLong(i, 0);
                    };
            case TIMESTAMP, TIMESTAMP_LTZ ->
                    switch (c.timeUnit()) {
                        case MILLIS -> new TimestampValue(g.getLong(i, 0), 0);
                        case MICROS -> TimestampValue.ofEpochMicros(g.getLong(i, 0));
                        case NANOS -> TimestampValue.ofEpochNanos(g.getLong(i, 0));
                        case INT96 -> int96(g.getInt96(i, 0));
                    };
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED -> throw new AssertionError();
        };
    }

    private static TimestampValue int96(Binary b) {
        ByteBuffer buf = ByteBuffer.wrap(b.getBytes()).order(ByteOrder.LITTLE_ENDIAN);
        long nanosOfDay = buf.getLong();
        long julianDay = buf.getInt();
        long epochDay = julianDay - 2_440_588L;
        return TimestampValue.ofEpochNanos(epochDay * 86_400_000_000_000L + nanosOfDay);
    }

    /** The raw Thrift footer, for what parquet-java's model does not expose (sorting_columns). */
    public static FileMetaData rawFooter(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        return ParquetTail.read(bytes, ParquetTail.footerStart(bytes, bytes.length), bytes.length);
    }
}
