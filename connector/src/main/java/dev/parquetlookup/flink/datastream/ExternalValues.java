package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.types.RowKind;
import org.apache.flink.types.RowUtils;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversions between the Java values a DataStream job uses ("external" values, as in Flink's
 * {@code Row}) and the engine's representation ({@link ValueType}):
 *
 * <pre>
 * file type        key value accepted                      value in the result Row
 * BOOLEAN          Boolean                                 Boolean
 * TINYINT          Byte/Short/Integer/Long in range        Byte
 * SMALLINT         Byte/Short/Integer/Long in range        Short
 * INT              Byte/Short/Integer/Long in range        Integer
 * BIGINT           Byte/Short/Integer/Long                 Long
 * FLOAT / DOUBLE   Float / Double (any Number)             Float / Double
 * DECIMAL(p, s)    BigDecimal, BigInteger, Long, Integer   BigDecimal with scale s
 * STRING           String (any CharSequence)               String
 * BINARY           byte[]                                  byte[]
 * DATE             LocalDate                               LocalDate
 * TIME(p)          LocalTime                               LocalTime (milliseconds)
 * TIMESTAMP(p)     LocalDateTime                           LocalDateTime
 * TIMESTAMP_LTZ(p) Instant                                 Instant
 * ARRAY&lt;E&gt;         (not a key)                             java.util.List of E's values
 * MAP&lt;K, V&gt;        (not a key)                             java.util.Map (LinkedHashMap, file order)
 * ROW&lt;...&gt;         (not a key)                             Row, readable by field name and position
 * </pre>
 *
 * Example: for a {@code DECIMAL(12, 2)} key, {@code toEngineKey(new BigDecimal("7.5"), type,
 * "credit")} is {@code 7.50}; {@code new BigDecimal("7.505")} can equal no stored value and gives
 * {@link #NO_MATCH}.
 */
final class ExternalValues {

    /** A key value that cannot equal any stored value (e.g. a decimal with too many digits). */
    static final Object NO_MATCH = new Object();

    private ExternalValues() {}

    /**
     * A key value from the event in the engine's representation, {@link #NO_MATCH} if it cannot
     * equal a stored value.
     *
     * @throws IllegalArgumentException if the Java type does not fit the column; the message names
     *     the column, both types and what to return instead
     */
    static Object toEngineKey(Object value, ValueType type, String column) {
        try {
            return switch (type.kind()) {
                case BOOLEAN -> (Boolean) value;
                case TINYINT -> intInRange(value, Byte.MIN_VALUE, Byte.MAX_VALUE);
                case SMALLINT -> intInRange(value, Short.MIN_VALUE, Short.MAX_VALUE);
                case INT -> intInRange(value, Integer.MIN_VALUE, Integer.MAX_VALUE);
                case BIGINT -> integral(value);
                case FLOAT -> value instanceof Float f ? f : ((Number) value).floatValue();
                case DOUBLE -> value instanceof Double d ? d : ((Number) value).doubleValue();
                case DECIMAL -> decimal(value, type.scale());
                case STRING -> ((CharSequence) value).toString().getBytes(StandardCharsets.UTF_8);
                case BINARY -> (byte[]) value;
                case DATE -> (int) ((LocalDate) value).toEpochDay();
                // Flink keeps TIME in milliseconds: compare at that precision.
                case TIME -> (((LocalTime) value).toNanoOfDay() / 1_000_000L) * 1_000_000L;
                case TIMESTAMP -> timestamp(((LocalDateTime) value).toInstant(ZoneOffset.UTC));
                case TIMESTAMP_LTZ -> timestamp((Instant) value);
                case ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                        throw new IllegalArgumentException(
                                "column '"
                                        + column
                                        + "' of type "
                                        + type
                                        + " cannot be a key: keys are top-level columns of"
                                        + " primitive types");
            };
        } catch (ClassCastException e) {
            throw new IllegalArgumentException(
                    String.format(
                            "Key column '%s' is %s in the files, but the key function returned a"
                                    + " %s (%s); return %s instead.",
                            column, type, value.getClass().getName(), value, expected(type)),
                    e);
        }
    }

    private static Object intInRange(Object value, long min, long max) {
        long v = integral(value);
        if (v < min || v > max) {
            return NO_MATCH;
        }
        return (int) v;
    }

    private static long integral(Object value) {
        if (value instanceof Long
                || value instanceof Integer
                || value instanceof Short
                || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        throw new ClassCastException(value.getClass().getName());
    }

    private static Object decimal(Object value, int scale) {
        BigDecimal d;
        if (value instanceof BigDecimal b) {
            d = b;
        } else if (value instanceof BigInteger i) {
            d = new BigDecimal(i);
        } else {
            d = BigDecimal.valueOf(integral(value));
        }
        try {
            return d.setScale(scale, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            return NO_MATCH; // more fractional digits than the column holds: equals nothing
        }
    }

    private static Object timestamp(Instant instant) {
        try {
            return TimestampValue.of(instant);
        } catch (ArithmeticException e) {
            return NO_MATCH; // beyond epoch milliseconds in a long: no stored timestamp is there
        }
    }

    private static String expected(ValueType type) {
        return switch (type.kind()) {
            case BOOLEAN -> "a Boolean";
            case TINYINT, SMALLINT, INT -> "an Integer";
            case BIGINT -> "a Long";
            case FLOAT -> "a Float";
            case DOUBLE -> "a Double";
            case DECIMAL -> "a BigDecimal";
            case STRING -> "a String";
            case BINARY -> "a byte[]";
            case DATE -> "a LocalDate";
            case TIME -> "a LocalTime";
            case TIMESTAMP -> "a LocalDateTime";
            case TIMESTAMP_LTZ -> "an Instant";
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED -> "nothing (this column cannot be a key)";
        };
    }

    /** Field {@code pos} of Flink internal data as the external value of {@code type}. */
    @Nullable
    static Object toExternal(RowData row, int pos, LogicalType type) {
        if (row.isNullAt(pos)) {
            return null;
        }
        return switch (type.getTypeRoot()) {
            case BOOLEAN -> row.getBoolean(pos);
            case TINYINT -> row.getByte(pos);
            case SMALLINT -> row.getShort(pos);
            case INTEGER -> row.getInt(pos);
            case BIGINT -> row.getLong(pos);
            case FLOAT -> row.getFloat(pos);
            case DOUBLE -> row.getDouble(pos);
            case DECIMAL -> {
                DecimalType d = (DecimalType) type;
                yield row.getDecimal(pos, d.getPrecision(), d.getScale()).toBigDecimal();
            }
            case CHAR, VARCHAR -> row.getString(pos).toString();
            case BINARY, VARBINARY -> row.getBinary(pos);
            case DATE -> LocalDate.ofEpochDay(row.getInt(pos));
            case TIME_WITHOUT_TIME_ZONE -> LocalTime.ofNanoOfDay(row.getInt(pos) * 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE ->
                    row.getTimestamp(pos, ((TimestampType) type).getPrecision()).toLocalDateTime();
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                    row.getTimestamp(pos, ((LocalZonedTimestampType) type).getPrecision())
                            .toInstant();
            case ARRAY -> list(row.getArray(pos), ((ArrayType) type).getElementType());
            case MAP -> {
                MapType map = (MapType) type;
                MapData data = row.getMap(pos);
                List<Object> keys = list(data.keyArray(), map.getKeyType());
                List<Object> values = list(data.valueArray(), map.getValueType());
                Map<Object, Object> result = new LinkedHashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                    result.put(keys.get(i), values.get(i));
                }
                yield result;
            }
            case ROW -> {
                RowType rowType = (RowType) type;
                RowData data = row.getRow(pos, rowType.getFieldCount());
                Object[] fields = new Object[rowType.getFieldCount()];
                LinkedHashMap<String, Integer> positions = new LinkedHashMap<>();
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = toExternal(data, i, rowType.getTypeAt(i));
                    positions.put(rowType.getFieldNames().get(i), i);
                }
                yield RowUtils.createRowWithNamedPositions(RowKind.INSERT, fields, positions);
            }
            default -> throw new UnsupportedOperationException("values of type " + type);
        };
    }

    /** The elements of {@code data} as external values. */
    private static List<Object> list(ArrayData data, LogicalType elementType) {
        ArrayData.ElementGetter getter = ArrayData.createElementGetter(elementType);
        GenericRowData one = new GenericRowData(1);
        List<Object> result = new ArrayList<>(data.size());
        for (int i = 0; i < data.size(); i++) {
            one.setField(0, getter.getElementOrNull(data, i));
            result.add(toExternal(one, 0, elementType));
        }
        return result;
    }
}
