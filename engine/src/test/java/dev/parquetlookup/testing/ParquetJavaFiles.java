package dev.parquetlookup.testing;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.NanoTime;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes generated rows with parquet-java's own example writer ({@link ExampleParquetWriter}), the
 * second writer the engine must read: it records no {@code sorting_columns}, supports every layout
 * option (writer v2, BYTE_STREAM_SPLIT, INT96, every DECIMAL storage), and can write the unsorted
 * and nested files the bad-input tests need.
 */
public final class ParquetJavaFiles {

    /** Julian day of 1970-01-01, the epoch of INT96 timestamps. */
    private static final int JULIAN_EPOCH_DAY = 2_440_588;

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private ParquetJavaFiles() {}

    /** The Parquet schema of {@code columns}. */
    public static MessageType schema(List<ColumnSpec> columns) {
        List<Type> fields = new ArrayList<>();
        for (ColumnSpec c : columns) {
            fields.add(c.writerColumn().parquetType());
        }
        return new MessageType("table", fields);
    }

    /** Writes {@code rows} (values in the engine's representation) to {@code file}. */
    public static void write(
            Path file, List<ColumnSpec> columns, WriterOptions options, List<Object[]> rows)
            throws IOException {
        MessageType schema = schema(columns);
        write(file, schema, options, toGroups(schema, columns, rows));
    }

    /** Writes ready-made groups of {@code schema} (for nested columns) to {@code file}. */
    public static void write(
            Path file, MessageType schema, WriterOptions options, List<Group> groups)
            throws IOException {
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withType(schema)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(options.codec())
                        .withDictionaryEncoding(options.dictionary())
                        .withWriterVersion(
                                options.v2()
                                        ? ParquetProperties.WriterVersion.PARQUET_2_0
                                        : ParquetProperties.WriterVersion.PARQUET_1_0)
                        .withByteStreamSplitEncoding(options.byteStreamSplit())
                        .withPageRowCountLimit(options.rowsPerPage())
                        .withPageSize(options.pageBytes())
                        .withMinRowCountForPageSizeCheck(1)
                        .withDictionaryPageSize(options.dictionaryPageBytes())
                        .withRowGroupRowCountLimit(options.rowsPerRowGroup())
                        .build()) {
            for (Group group : groups) {
                writer.write(group);
            }
        }
    }

    /**
     * Reads {@code file} back through parquet-java's record API into the engine's representation:
     * the library path the generator's own test checks its files with.
     */
    public static List<Object[]> readRows(Path file, List<ColumnSpec> columns) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            PageReadStore store;
            while ((store = reader.readNextRowGroup()) != null) {
                MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
                RecordReader<Group> records =
                        io.getRecordReader(store, new GroupRecordConverter(schema));
                for (long i = 0; i < store.getRowCount(); i++) {
                    Group g = records.read();
                    Object[] row = new Object[columns.size()];
                    for (int c = 0; c < row.length; c++) {
                        row[c] =
                                g.getFieldRepetitionCount(c) == 0
                                        ? null
                                        : read(g, c, columns.get(c));
                    }
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static Object read(Group g, int field, ColumnSpec c) {
        ValueType t = c.type();
        return switch (t.kind()) {
            case BOOLEAN -> g.getBoolean(field, 0);
            case TINYINT, SMALLINT, INT, DATE -> g.getInteger(field, 0);
            case BIGINT -> g.getLong(field, 0);
            case FLOAT -> g.getFloat(field, 0);
            case DOUBLE -> g.getDouble(field, 0);
            case STRING, BINARY -> g.getBinary(field, 0).getBytes();
            case DECIMAL ->
                    new BigDecimal(
                            switch (c.storage()) {
                                case DECIMAL_INT32 -> BigInteger.valueOf(g.getInteger(field, 0));
                                case DECIMAL_INT64 -> BigInteger.valueOf(g.getLong(field, 0));
                                default -> new BigInteger(g.getBinary(field, 0).getBytes());
                            },
                            t.scale());
            case TIME ->
                    switch (t.precision()) {
                        case 3 -> g.getInteger(field, 0) * 1_000_000L;
                        case 6 -> g.getLong(field, 0) * 1_000L;
                        default -> g.getLong(field, 0);
                    };
            case TIMESTAMP, TIMESTAMP_LTZ -> {
                if (c.storage() == ColumnSpec.Storage.INT96) {
                    NanoTime nt = NanoTime.fromBinary(g.getInt96(field, 0));
                    yield TimestampValue.ofEpochNanos(
                            (nt.getJulianDay() - (long) JULIAN_EPOCH_DAY) * NANOS_PER_DAY
                                    + nt.getTimeOfDayNanos());
                }
                long v = g.getLong(field, 0);
                yield switch (t.precision()) {
                    case 3 -> new TimestampValue(v, 0);
                    case 6 -> TimestampValue.ofEpochMicros(v);
                    default -> TimestampValue.ofEpochNanos(v);
                };
            }
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException("not generated: " + c);
        };
    }

    private static List<Group> toGroups(
            MessageType schema, List<ColumnSpec> columns, List<Object[]> rows) {
        SimpleGroupFactory factory = new SimpleGroupFactory(schema);
        List<Group> groups = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            Group g = factory.newGroup();
            for (int i = 0; i < columns.size(); i++) {
                if (row[i] != null) {
                    add(g, i, columns.get(i), row[i]);
                } else if (!columns.get(i).nullable()) {
                    throw new IllegalArgumentException("null in required " + columns.get(i));
                }
            }
            groups.add(g);
        }
        return groups;
    }

    /** The fewest bytes whose two's complement holds every unscaled value of {@code precision}. */
    public static int fixedLength(int precision) {
        BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return max.bitLength() / 8 + 1;
    }

    private static void add(Group g, int field, ColumnSpec c, Object v) {
        ValueType t = c.type();
        switch (t.kind()) {
            case BOOLEAN -> g.add(field, (Boolean) v);
            case TINYINT, SMALLINT, INT, DATE -> g.add(field, (Integer) v);
            case BIGINT -> g.add(field, (Long) v);
            case FLOAT -> g.add(field, (Float) v);
            case DOUBLE -> g.add(field, (Double) v);
            case STRING, BINARY -> g.add(field, Binary.fromConstantByteArray((byte[]) v));
            case DECIMAL -> addDecimal(g, field, c, (BigDecimal) v);
            case TIME -> {
                long nanos = (Long) v;
                switch (t.precision()) {
                    case 3 -> g.add(field, (int) (nanos / 1_000_000));
                    case 6 -> g.add(field, nanos / 1_000);
                    default -> g.add(field, nanos);
                }
            }
            case TIMESTAMP, TIMESTAMP_LTZ -> {
                TimestampValue ts = (TimestampValue) v;
                if (c.storage() == ColumnSpec.Storage.INT96) {
                    long nanos = epochNanos(ts);
                    int julianDay = (int) (Math.floorDiv(nanos, NANOS_PER_DAY) + JULIAN_EPOCH_DAY);
                    g.add(field, new NanoTime(julianDay, Math.floorMod(nanos, NANOS_PER_DAY)));
                } else {
                    switch (t.precision()) {
                        case 3 -> g.add(field, ts.epochMillis());
                        case 6 ->
                                g.add(
                                        field,
                                        ts.epochMillis() * 1_000 + ts.nanoOfMillisecond() / 1_000);
                        default -> g.add(field, epochNanos(ts));
                    }
                }
            }
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException("not generated: " + c);
        }
    }

    private static long epochNanos(TimestampValue ts) {
        return Math.addExact(
                Math.multiplyExact(ts.epochMillis(), 1_000_000L), ts.nanoOfMillisecond());
    }

    private static void addDecimal(Group g, int field, ColumnSpec c, BigDecimal d) {
        if (d.scale() != c.type().scale()) {
            throw new IllegalArgumentException("scale of " + d + " is not that of " + c);
        }
        BigInteger unscaled = d.unscaledValue();
        switch (c.storage()) {
            case DECIMAL_INT32 -> g.add(field, unscaled.intValueExact());
            case DECIMAL_INT64 -> g.add(field, unscaled.longValueExact());
            case DECIMAL_FIXED -> {
                byte[] minimal = unscaled.toByteArray();
                byte[] fixed = new byte[fixedLength(c.type().precision())];
                byte pad = (byte) (unscaled.signum() < 0 ? 0xff : 0);
                int start = fixed.length - minimal.length;
                for (int i = 0; i < fixed.length; i++) {
                    fixed[i] = i < start ? pad : minimal[i - start];
                }
                g.add(field, Binary.fromConstantByteArray(fixed));
            }
            default -> g.add(field, Binary.fromConstantByteArray(unscaled.toByteArray()));
        }
    }
}
