package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.io.api.Binary;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * Engine values converted to the physical values parquet-java writes ("prepared" values: Boolean,
 * Integer, Long, Float, Double or {@link Binary}): integers checked against their declared width,
 * decimals rescaled exactly, times and timestamps to the column's unit (a value that would lose a
 * fraction is refused), INT96 timestamps as Julian day and nanos. Every refusal names the column
 * and the value.
 */
final class PreparedValues {

    /** Julian day number of 1970-01-01, for INT96 timestamps. */
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    private PreparedValues() {}

    /** How messages name a column and its type: {@code column 'price' (DECIMAL(10, 2))}. */
    static String about(String column, ValueType type) {
        return "column '" + column + "' (" + type + ")";
    }

    static String expectedJavaType(ValueType.Kind kind) {
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
            case ARRAY -> "a java.util.List";
            case MAP -> "a java.util.Map";
            case ROW -> "an Object[]";
            case NESTED, UNSUPPORTED -> "nothing (such columns are not written)";
        };
    }

    static Object prepare(ColumnSpec c, Object v) {
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
            case ARRAY, MAP, ROW -> NestedValues.encode(c, v);
            case NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException(
                            "cannot write column " + c.name() + " of type " + t);
        };
    }

    /**
     * Writes a prepared value: 1-byte boolean, int, long, float, double, or a binary's length and
     * bytes (read back by whoever knows the column's physical type).
     */
    static void write(DataOutputStream out, Object prepared) throws IOException {
        if (prepared instanceof Boolean b) {
            out.writeBoolean(b);
        } else if (prepared instanceof Integer i) {
            out.writeInt(i);
        } else if (prepared instanceof Long l) {
            out.writeLong(l);
        } else if (prepared instanceof Float f) {
            out.writeFloat(f);
        } else if (prepared instanceof Double d) {
            out.writeDouble(d);
        } else {
            Binary b = (Binary) prepared;
            out.writeInt(b.length());
            b.writeTo((OutputStream) out);
        }
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
                    about(c.name(), c.type())
                            + " cannot hold "
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
                    about(c.name(), t)
                            + " cannot hold "
                            + d.toPlainString()
                            + " without rounding: round it to scale "
                            + t.scale(),
                    e);
        }
        BigInteger unscaled = scaled.unscaledValue();
        if (scaled.precision() > t.precision() && unscaled.signum() != 0) {
            throw new IllegalArgumentException(
                    about(c.name(), t)
                            + " cannot hold "
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
                byte[] fixed = new byte[WriterSchema.fixedLength(t.precision())];
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
            return TimestampValue.of(ldt.toInstant(ZoneOffset.UTC));
        }
        if (v instanceof Instant i) {
            return TimestampValue.of(i);
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
            case INT96 -> Binary.fromConstantByteArray(ts.toInt96());
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
                        + ts.toText(c.type().kind() == ValueType.Kind.TIMESTAMP_LTZ)
                        + " has a fraction of "
                        + unitName
                        + ": round the value, or store a finer unit with"
                        + " ColumnSpec.withTimeUnit");
    }
}
