package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The columns of a written file: their Parquet schema, the conversion of engine values to the
 * physical values Parquet stores ("prepared" values: Boolean, Integer, Long, Float, Double or
 * {@link Binary}), and the order of sort keys.
 *
 * <p>Rows are converted completely before anything reaches parquet-java, so a bad value fails with
 * a clear message and leaves the writer usable.
 */
final class RowLayout {

    /** Julian day number of 1970-01-01, for INT96 timestamps. */
    private static final int JULIAN_EPOCH_DAY = 2_440_588;

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private final List<ColumnSpec> columns;
    private final MessageType schema;
    private final int[] keyIndexes;
    private final List<String> sortKey;

    RowLayout(List<ColumnSpec> columns, List<String> sortKey) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a file needs at least one column");
        }
        this.columns = List.copyOf(columns);
        this.sortKey = List.copyOf(sortKey);
        Map<String, Integer> byName = new HashMap<>();
        List<Type> fields = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            ColumnSpec c = columns.get(i);
            if (byName.put(c.name(), i) != null) {
                throw new IllegalArgumentException("column '" + c.name() + "' is given twice");
            }
            fields.add(parquetType(c));
        }
        this.schema = new MessageType("lookup_row", fields);
        if (sortKey.isEmpty()) {
            throw new IllegalArgumentException(
                    "a sort key is required: name the column(s) the rows are sorted by");
        }
        Set<String> seen = new HashSet<>();
        keyIndexes = new int[sortKey.size()];
        for (int k = 0; k < keyIndexes.length; k++) {
            String name = sortKey.get(k);
            Integer idx = byName.get(name);
            if (idx == null) {
                throw new IllegalArgumentException(
                        "sort key column '"
                                + name
                                + "' is not one of the columns "
                                + columns.stream().map(ColumnSpec::name).toList());
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException("sort key column '" + name + "' is given twice");
            }
            ColumnSpec spec = columns.get(idx);
            if (spec.type().kind() == ValueType.Kind.FLOAT
                    || spec.type().kind() == ValueType.Kind.DOUBLE
                    || spec.type().kind() == ValueType.Kind.BOOLEAN
                    || spec.timeUnit() == TimeUnit.INT96) {
                throw new IllegalArgumentException(
                        "sort key column '"
                                + name
                                + "' has type "
                                + spec.type()
                                + (spec.timeUnit() == TimeUnit.INT96 ? " stored as INT96" : "")
                                + ", which cannot be a lookup key: use an integer, string,"
                                + " binary, date, timestamp (not INT96) or decimal column");
            }
            keyIndexes[k] = idx;
        }
    }

    List<ColumnSpec> columns() {
        return columns;
    }

    List<String> sortKey() {
        return sortKey;
    }

    MessageType schema() {
        return schema;
    }

    int[] keyIndexes() {
        return keyIndexes.clone();
    }

    // ---------------------------------------------------------------------------------------
    // Schema

    private static Type parquetType(ColumnSpec c) {
        Type.Repetition rep = c.nullable() ? Type.Repetition.OPTIONAL : Type.Repetition.REQUIRED;
        ValueType t = c.type();
        return switch (t.kind()) {
            case BOOLEAN -> Types.primitive(PrimitiveTypeName.BOOLEAN, rep).named(c.name());
            case TINYINT ->
                    Types.primitive(PrimitiveTypeName.INT32, rep)
                            .as(LogicalTypeAnnotation.intType(8, true))
                            .named(c.name());
            case SMALLINT ->
                    Types.primitive(PrimitiveTypeName.INT32, rep)
                            .as(LogicalTypeAnnotation.intType(16, true))
                            .named(c.name());
            case INT -> Types.primitive(PrimitiveTypeName.INT32, rep).named(c.name());
            case BIGINT -> Types.primitive(PrimitiveTypeName.INT64, rep).named(c.name());
            case FLOAT -> Types.primitive(PrimitiveTypeName.FLOAT, rep).named(c.name());
            case DOUBLE -> Types.primitive(PrimitiveTypeName.DOUBLE, rep).named(c.name());
            case DECIMAL -> {
                LogicalTypeAnnotation dec =
                        LogicalTypeAnnotation.decimalType(t.scale(), t.precision());
                yield switch (c.decimalStorage()) {
                    case INT32 ->
                            Types.primitive(PrimitiveTypeName.INT32, rep).as(dec).named(c.name());
                    case INT64 ->
                            Types.primitive(PrimitiveTypeName.INT64, rep).as(dec).named(c.name());
                    case FIXED_LEN_BYTE_ARRAY ->
                            Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, rep)
                                    .length(fixedLength(t.precision()))
                                    .as(dec)
                                    .named(c.name());
                    case BINARY ->
                            Types.primitive(PrimitiveTypeName.BINARY, rep).as(dec).named(c.name());
                };
            }
            case STRING ->
                    Types.primitive(PrimitiveTypeName.BINARY, rep)
                            .as(LogicalTypeAnnotation.stringType())
                            .named(c.name());
            case BINARY -> Types.primitive(PrimitiveTypeName.BINARY, rep).named(c.name());
            case DATE ->
                    Types.primitive(PrimitiveTypeName.INT32, rep)
                            .as(LogicalTypeAnnotation.dateType())
                            .named(c.name());
            case TIME ->
                    Types.primitive(
                                    c.timeUnit() == TimeUnit.MILLIS
                                            ? PrimitiveTypeName.INT32
                                            : PrimitiveTypeName.INT64,
                                    rep)
                            .as(LogicalTypeAnnotation.timeType(false, parquetUnit(c.timeUnit())))
                            .named(c.name());
            case TIMESTAMP, TIMESTAMP_LTZ ->
                    c.timeUnit() == TimeUnit.INT96
                            ? Types.primitive(PrimitiveTypeName.INT96, rep).named(c.name())
                            : Types.primitive(PrimitiveTypeName.INT64, rep)
                                    .as(
                                            LogicalTypeAnnotation.timestampType(
                                                    t.kind() == ValueType.Kind.TIMESTAMP_LTZ,
                                                    parquetUnit(c.timeUnit())))
                                    .named(c.name());
            case NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException(
                            "cannot write column " + c.name() + " of type " + t);
        };
    }

    private static LogicalTypeAnnotation.TimeUnit parquetUnit(TimeUnit unit) {
        return switch (unit) {
            case MILLIS -> LogicalTypeAnnotation.TimeUnit.MILLIS;
            case MICROS -> LogicalTypeAnnotation.TimeUnit.MICROS;
            case NANOS -> LogicalTypeAnnotation.TimeUnit.NANOS;
            case INT96 -> throw new IllegalArgumentException("INT96 has no logical unit");
        };
    }

    /** The fewest bytes whose two's complement range holds every unscaled value of precision p. */
    static int fixedLength(int precision) {
        BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return (max.bitLength() + 1 + 7) / 8;
    }

    // ---------------------------------------------------------------------------------------
    // Values

    /**
     * Converts one row of engine values into prepared values, checking arity, nullability, Java
     * types and ranges.
     *
     * @throws IllegalArgumentException naming the column and value when a value does not fit
     */
    Object[] prepare(Object[] row) {
        if (row.length != columns.size()) {
            throw new IllegalArgumentException(
                    "row has "
                            + row.length
                            + " values but the file has "
                            + columns.size()
                            + " columns "
                            + columns.stream().map(ColumnSpec::name).toList());
        }
        Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            ColumnSpec c = columns.get(i);
            Object v = row[i];
            if (v == null) {
                if (!c.nullable()) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + c.name()
                                    + "' is not nullable but the value is null: declare it with"
                                    + " ColumnSpec.optional or give a value");
                }
                continue;
            }
            try {
                out[i] = prepareValue(c, v);
            } catch (ClassCastException e) {
                throw new IllegalArgumentException(
                        "column '"
                                + c.name()
                                + "' ("
                                + c.type()
                                + ") expects "
                                + expectedJavaType(c.type().kind())
                                + " but got "
                                + v.getClass().getName()
                                + " "
                                + v,
                        e);
            }
        }
        return out;
    }

    private static String expectedJavaType(ValueType.Kind kind) {
        return switch (kind) {
            case BOOLEAN -> "a Boolean";
            case TINYINT, SMALLINT, INT -> "an Integer";
            case BIGINT -> "a Long";
            case FLOAT -> "a Float";
            case DOUBLE -> "a Double";
            case DECIMAL -> "a BigDecimal";
            case STRING -> "a byte[] holding UTF-8 or a String";
            case BINARY -> "a byte[]";
            case DATE -> "an Integer (days since 1970-01-01) or a LocalDate";
            case TIME -> "a Long (nanoseconds of the day) or a LocalTime";
            case TIMESTAMP -> "a TimestampValue or a LocalDateTime";
            case TIMESTAMP_LTZ -> "a TimestampValue or an Instant";
            case NESTED, UNSUPPORTED -> "nothing (such columns are not written)";
        };
    }

    private static Object prepareValue(ColumnSpec c, Object v) {
        ValueType t = c.type();
        return switch (t.kind()) {
            case BOOLEAN -> (Boolean) v;
            case TINYINT -> intInRange(c, v, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT -> intInRange(c, v, Short.MIN_VALUE, Short.MAX_VALUE);
            case INT -> intInRange(c, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT -> integral(v);
            case FLOAT -> v instanceof Float f ? f : ((Number) v).floatValue();
            case DOUBLE -> v instanceof Double d ? d : ((Number) v).doubleValue();
            case DECIMAL -> prepareDecimal(c, (BigDecimal) v);
            case STRING ->
                    v instanceof String s
                            ? Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8))
                            : Binary.fromConstantByteArray(((byte[]) v).clone());
            case BINARY -> Binary.fromConstantByteArray(((byte[]) v).clone());
            case DATE ->
                    v instanceof LocalDate d
                            ? Math.toIntExact(d.toEpochDay())
                            : intInRange(c, v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case TIME -> prepareTime(c, v instanceof LocalTime lt ? lt.toNanoOfDay() : integral(v));
            case TIMESTAMP, TIMESTAMP_LTZ -> prepareTimestamp(c, toTimestamp(v));
            case NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException(
                            "cannot write column " + c.name() + " of type " + t);
        };
    }

    private static long integral(Object v) {
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        throw new ClassCastException(v.getClass().getName());
    }

    private static int intInRange(ColumnSpec c, Object v, long min, long max) {
        long x = integral(v);
        if (x < min || x > max) {
            throw new IllegalArgumentException(
                    "column '"
                            + c.name()
                            + "' ("
                            + c.type()
                            + ") cannot hold "
                            + x
                            + ": the range is "
                            + min
                            + " to "
                            + max);
        }
        return (int) x;
    }

    private static Object prepareDecimal(ColumnSpec c, BigDecimal d) {
        ValueType t = c.type();
        BigDecimal scaled;
        try {
            scaled = d.setScale(t.scale(), RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(
                    "column '"
                            + c.name()
                            + "' ("
                            + t
                            + ") cannot hold "
                            + d.toPlainString()
                            + " without rounding: round it to scale "
                            + t.scale(),
                    e);
        }
        BigInteger unscaled = scaled.unscaledValue();
        if (scaled.precision() > t.precision() && unscaled.signum() != 0) {
            throw new IllegalArgumentException(
                    "column '"
                            + c.name()
                            + "' ("
                            + t
                            + ") cannot hold "
                            + d.toPlainString()
                            + ": it needs precision "
                            + scaled.precision());
        }
        return switch (c.decimalStorage()) {
            case INT32 -> unscaled.intValueExact();
            case INT64 -> unscaled.longValueExact();
            case BINARY -> Binary.fromConstantByteArray(unscaled.toByteArray());
            case FIXED_LEN_BYTE_ARRAY -> {
                byte[] minimal = unscaled.toByteArray();
                byte[] fixed = new byte[fixedLength(t.precision())];
                byte pad = (byte) (unscaled.signum() < 0 ? 0xFF : 0x00);
                int offset = fixed.length - minimal.length;
                Arrays.fill(fixed, 0, offset, pad);
                System.arraycopy(minimal, 0, fixed, offset, minimal.length);
                yield Binary.fromConstantByteArray(fixed);
            }
        };
    }

    private static Object prepareTime(ColumnSpec c, long nanosOfDay) {
        if (nanosOfDay < 0 || nanosOfDay >= NANOS_PER_DAY) {
            throw new IllegalArgumentException(
                    "column '"
                            + c.name()
                            + "' (TIME): "
                            + nanosOfDay
                            + " is not a nanosecond of the day (0 to 86,399,999,999,999)");
        }
        return switch (c.timeUnit()) {
            case MILLIS -> (int) exactDivide(c, nanosOfDay, 1_000_000, "a millisecond");
            case MICROS -> exactDivide(c, nanosOfDay, 1_000, "a microsecond");
            case NANOS -> nanosOfDay;
            case INT96 -> throw new IllegalStateException("INT96 TIME");
        };
    }

    private static long exactDivide(ColumnSpec c, long nanos, long unit, String unitName) {
        if (nanos % unit != 0) {
            throw new IllegalArgumentException(
                    "column '"
                            + c.name()
                            + "' stores "
                            + c.timeUnit()
                            + " but the value has a fraction of "
                            + unitName
                            + " ("
                            + nanos
                            + " ns): round the value, or store a finer unit with"
                            + " ColumnSpec.withTimeUnit");
        }
        return nanos / unit;
    }

    private static TimestampValue toTimestamp(Object v) {
        if (v instanceof TimestampValue ts) {
            return ts;
        }
        if (v instanceof LocalDateTime ldt) {
            Instant i = ldt.toInstant(ZoneOffset.UTC);
            return new TimestampValue(i.toEpochMilli(), i.getNano() % 1_000_000);
        }
        if (v instanceof Instant i) {
            return new TimestampValue(i.toEpochMilli(), i.getNano() % 1_000_000);
        }
        throw new ClassCastException(v.getClass().getName());
    }

    private static Object prepareTimestamp(ColumnSpec c, TimestampValue ts) {
        long millis = ts.epochMillis();
        int nanoOfMilli = ts.nanoOfMillisecond();
        return switch (c.timeUnit()) {
            case MILLIS -> {
                if (nanoOfMilli != 0) {
                    throw fraction(c, ts, "a millisecond");
                }
                yield millis;
            }
            case MICROS -> {
                if (nanoOfMilli % 1000 != 0) {
                    throw fraction(c, ts, "a microsecond");
                }
                yield Math.addExact(Math.multiplyExact(millis, 1000L), nanoOfMilli / 1000);
            }
            case NANOS -> Math.addExact(Math.multiplyExact(millis, 1_000_000L), nanoOfMilli);
            case INT96 -> {
                long epochDay = Math.floorDiv(millis, 86_400_000L);
                long nanosOfDay = Math.floorMod(millis, 86_400_000L) * 1_000_000L + nanoOfMilli;
                ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
                b.putLong(nanosOfDay);
                b.putInt(Math.toIntExact(epochDay + JULIAN_EPOCH_DAY));
                yield Binary.fromConstantByteArray(b.array());
            }
        };
    }

    private static IllegalArgumentException fraction(
            ColumnSpec c, TimestampValue ts, String unitName) {
        return new IllegalArgumentException(
                "column '"
                        + c.name()
                        + "' stores "
                        + c.timeUnit()
                        + " but "
                        + formatTimestamp(c.type(), ts)
                        + " has a fraction of "
                        + unitName
                        + ": round the value, or store a finer unit with"
                        + " ColumnSpec.withTimeUnit");
    }

    // ---------------------------------------------------------------------------------------
    // Key order

    /**
     * Compares the sort keys of two prepared rows: column by column, nulls first, in the order
     * Parquet statistics use (signed numbers, unsigned bytes for strings and binary).
     */
    int compareKeys(Object[] a, Object[] b) {
        for (int idx : keyIndexes) {
            int c = compareValue(columns.get(idx), a[idx], b[idx]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    @SuppressWarnings("unchecked")
    private static int compareValue(ColumnSpec c, Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a instanceof Binary x) {
            byte[] xb = x.getBytesUnsafe();
            byte[] yb = ((Binary) b).getBytesUnsafe();
            if (c.type().kind() == ValueType.Kind.DECIMAL) {
                return new BigInteger(xb).compareTo(new BigInteger(yb));
            }
            return Arrays.compareUnsigned(xb, yb);
        }
        return ((Comparable<Object>) a).compareTo(b);
    }

    /** The error message for a row whose key is smaller than the previous row's. */
    String unsortedMessage(String path, long rowNumber, Object[] prepared, Object[] previous) {
        String key = String.join(", ", sortKey);
        return "Cannot write "
                + path
                + ": the input is not sorted by ("
                + key
                + "): row "
                + rowNumber
                + " has key "
                + formatKey(prepared)
                + ", smaller than key "
                + formatKey(previous)
                + " of row "
                + (rowNumber - 1)
                + ". Sort the rows by ("
                + key
                + ") first, or let the writer sort them with"
                + " WriterOptions.builder().sortInput(true) (prepare --key does).";
    }

    /** The sort key of a prepared row, for messages: {@code (42, "abc")}. */
    String formatKey(Object[] prepared) {
        StringBuilder sb = new StringBuilder("(");
        for (int k = 0; k < keyIndexes.length; k++) {
            if (k > 0) {
                sb.append(", ");
            }
            ColumnSpec c = columns.get(keyIndexes[k]);
            sb.append(formatPrepared(c, prepared[keyIndexes[k]]));
        }
        return sb.append(')').toString();
    }

    /** One prepared value as a person reads it. */
    static String formatPrepared(ColumnSpec c, Object v) {
        if (v == null) {
            return "null";
        }
        ValueType t = c.type();
        return switch (t.kind()) {
            case STRING -> '"' + ((Binary) v).toStringUsingUTF8() + '"';
            case BINARY -> "0x" + HexFormat.of().formatHex(((Binary) v).getBytesUnsafe());
            case DECIMAL -> {
                BigInteger unscaled =
                        v instanceof Binary bin
                                ? new BigInteger(bin.getBytesUnsafe())
                                : BigInteger.valueOf(((Number) v).longValue());
                yield new BigDecimal(unscaled, t.scale()).toPlainString();
            }
            case DATE -> LocalDate.ofEpochDay((Integer) v).toString();
            case TIME ->
                    LocalTime.ofNanoOfDay(
                                    ((Number) v).longValue()
                                            * switch (c.timeUnit()) {
                                                case MILLIS -> 1_000_000L;
                                                case MICROS -> 1_000L;
                                                default -> 1L;
                                            })
                            .toString();
            case TIMESTAMP, TIMESTAMP_LTZ -> {
                if (v instanceof Binary) {
                    yield "INT96 " + HexFormat.of().formatHex(((Binary) v).getBytesUnsafe());
                }
                long x = (Long) v;
                TimestampValue ts =
                        switch (c.timeUnit()) {
                            case MILLIS -> new TimestampValue(x, 0);
                            case MICROS -> TimestampValue.ofEpochMicros(x);
                            default -> TimestampValue.ofEpochNanos(x);
                        };
                yield formatTimestamp(t, ts);
            }
            default -> String.valueOf(v);
        };
    }

    private static String formatTimestamp(ValueType t, TimestampValue ts) {
        Instant i = Instant.ofEpochMilli(ts.epochMillis()).plusNanos(ts.nanoOfMillisecond());
        return t.kind() == ValueType.Kind.TIMESTAMP_LTZ
                ? i.toString()
                : LocalDateTime.ofInstant(i, ZoneOffset.UTC).toString();
    }
}
