package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * Turns a lookup key value in the engine's representation ({@link ValueType}) into the comparable
 * form of a file's key column ({@link KeyType}).
 *
 * <p>A value that no row can hold (a DECIMAL with more fractional digits than the column's scale, a
 * timestamp finer than the column's unit) becomes {@link #NO_MATCH}. Example: for a {@code
 * TIMESTAMP(MILLIS)} column, {@code new TimestampValue(5, 0)} is {@code 5L} and {@code new
 * TimestampValue(5, 1)} is {@code NO_MATCH}.
 */
final class KeyValues {

    /** Marker for a key value that cannot equal any stored value. */
    static final Object NO_MATCH = new Object();

    private KeyValues() {}

    /**
     * @throws IllegalArgumentException if the value's Java type does not fit the column
     */
    static Object comparable(KeyType type, String column, Object value) {
        LogicalTypeAnnotation logical = type.type().getLogicalTypeAnnotation();
        switch (type.kind()) {
            case LONG:
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    BigInteger unscaled = unscaled(value, d.getScale(), column);
                    return unscaled == null || unscaled.bitLength() > 63
                            ? NO_MATCH
                            : (Object) unscaled.longValue();
                }
                if (logical instanceof TimestampLogicalTypeAnnotation t) {
                    if (!(value instanceof TimestampValue ts)) {
                        throw mismatch(column, value, "TimestampValue");
                    }
                    return timestamp(ts, t.getUnit());
                }
                if (logical instanceof TimeLogicalTypeAnnotation t && value instanceof Long nanos) {
                    long per =
                            switch (t.getUnit()) {
                                case MILLIS -> 1_000_000L;
                                case MICROS -> 1_000L;
                                case NANOS -> 1L;
                            };
                    return nanos % per != 0 ? NO_MATCH : (Object) (nanos / per);
                }
                if (value instanceof Long
                        || value instanceof Integer
                        || value instanceof Short
                        || value instanceof Byte) {
                    return ((Number) value).longValue();
                }
                throw mismatch(column, value, "Integer or Long");
            case BYTES:
                if (value instanceof byte[]) {
                    return value;
                }
                if (value instanceof String s) {
                    return s.getBytes(StandardCharsets.UTF_8);
                }
                throw mismatch(column, value, "byte[] or String");
            default:
                int scale = ((DecimalLogicalTypeAnnotation) logical).getScale();
                BigInteger unscaled = unscaled(value, scale, column);
                return unscaled == null ? NO_MATCH : unscaled;
        }
    }

    /**
     * The inverse of {@link #comparable}: a key column's comparable form back in the engine's value
     * representation ({@link ValueType}). Example: an INT64 {@code TIMESTAMP(MICROS)} key {@code
     * 1_000_001L} is {@code new TimestampValue(1000, 1000)}.
     */
    static Object engineValue(KeyType type, Object comparable) {
        LogicalTypeAnnotation logical = type.type().getLogicalTypeAnnotation();
        switch (type.kind()) {
            case LONG:
                long v = (Long) comparable;
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    return BigDecimal.valueOf(v, d.getScale());
                }
                if (logical instanceof TimestampLogicalTypeAnnotation t) {
                    return switch (t.getUnit()) {
                        case MILLIS -> new TimestampValue(v, 0);
                        case MICROS -> TimestampValue.ofEpochMicros(v);
                        case NANOS -> TimestampValue.ofEpochNanos(v);
                    };
                }
                if (logical instanceof TimeLogicalTypeAnnotation t) {
                    return switch (t.getUnit()) {
                        case MILLIS -> v * 1_000_000L;
                        case MICROS -> v * 1_000L;
                        case NANOS -> v;
                    };
                }
                boolean int32 =
                        type.type().getPrimitiveTypeName()
                                == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
                return int32 ? (Object) (int) v : (Object) v;
            case BYTES:
                return comparable;
            default:
                int scale = ((DecimalLogicalTypeAnnotation) logical).getScale();
                return new BigDecimal((BigInteger) comparable, scale);
        }
    }

    private static BigInteger unscaled(Object value, int scale, String column) {
        BigDecimal decimal;
        if (value instanceof BigDecimal d) {
            decimal = d;
        } else if (value instanceof Long || value instanceof Integer) {
            decimal = BigDecimal.valueOf(((Number) value).longValue());
        } else {
            throw mismatch(column, value, "BigDecimal");
        }
        try {
            return decimal.setScale(scale).unscaledValue();
        } catch (ArithmeticException e) {
            return null; // more fractional digits than the column holds
        }
    }

    private static Object timestamp(TimestampValue ts, TimeUnit unit) {
        try {
            return switch (unit) {
                case MILLIS -> ts.nanoOfMillisecond() != 0 ? NO_MATCH : (Object) ts.epochMillis();
                case MICROS ->
                        ts.nanoOfMillisecond() % 1000 != 0
                                ? NO_MATCH
                                : (Object)
                                        Math.addExact(
                                                Math.multiplyExact(ts.epochMillis(), 1000L),
                                                ts.nanoOfMillisecond() / 1000);
                case NANOS ->
                        (Object)
                                Math.addExact(
                                        Math.multiplyExact(ts.epochMillis(), 1_000_000L),
                                        ts.nanoOfMillisecond());
            };
        } catch (ArithmeticException e) {
            return NO_MATCH; // outside the column's range
        }
    }

    private static IllegalArgumentException mismatch(String column, Object value, String expected) {
        return new IllegalArgumentException(
                "Key value "
                        + value
                        + " ("
                        + value.getClass().getSimpleName()
                        + ") for column '"
                        + column
                        + "' must be "
                        + expected
                        + ".");
    }
}
