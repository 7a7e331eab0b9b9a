package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts a result row of the engine (values as documented in {@code
 * dev.parquetlookup.types.ValueType}) into Flink's internal {@link RowData} of the declared types.
 *
 * <pre>
 * engine value                   declared SQL type          Flink internal value
 * byte[] (UTF-8)                 STRING / VARCHAR / CHAR    StringData.fromBytes (no decoding)
 * BigDecimal                     DECIMAL(p, s)              DecimalData
 * Integer (days)                 DATE                       int
 * Long (nanos of day)            TIME(p)                    int millis of day
 * TimestampValue                 TIMESTAMP(p)               TimestampData, truncated to p digits
 * Integer                        TINYINT / SMALLINT         byte / short
 * java.util.List                 ARRAY&lt;T&gt;                   GenericArrayData of T's values
 * java.util.Map                  MAP&lt;K, V&gt;                  GenericMapData (insertion order)
 * Object[]                       ROW&lt;...&gt;                   GenericRowData of the fields
 * </pre>
 *
 * Example: {@code new RowDataConverter(List.of(new BigIntType(), new VarCharType(10)))
 * .toRowData(new Object[] {42L, "a".getBytes(UTF_8)})} is the row {@code (42, "a")}.
 */
public final class RowDataConverter implements Serializable {

    private static final long serialVersionUID = 1L;

    private final LogicalType[] types;

    public RowDataConverter(List<LogicalType> types) {
        this.types = types.toArray(new LogicalType[0]);
    }

    /**
     * The Flink type a column of {@code type} is read as: the file's precision is kept, except
     * TIME, which Flink holds in milliseconds. Null for nested and unsupported columns.
     */
    @Nullable
    public static LogicalType logicalType(ValueType type) {
        return switch (type.kind()) {
            case BOOLEAN -> new BooleanType();
            case TINYINT -> new TinyIntType();
            case SMALLINT -> new SmallIntType();
            case INT -> new IntType();
            case BIGINT -> new BigIntType();
            case FLOAT -> new FloatType();
            case DOUBLE -> new DoubleType();
            case DECIMAL -> new DecimalType(type.precision(), type.scale());
            case STRING -> new VarCharType(VarCharType.MAX_LENGTH);
            case BINARY -> new VarBinaryType(VarBinaryType.MAX_LENGTH);
            case DATE -> new DateType();
            case TIME -> new TimeType(Math.min(type.precision(), 3));
            case TIMESTAMP -> new TimestampType(timestampPrecision(type));
            case TIMESTAMP_LTZ -> new LocalZonedTimestampType(timestampPrecision(type));
            case ARRAY -> {
                LogicalType element = logicalType(type.fields().get(0).type());
                yield element == null ? null : new ArrayType(element);
            }
            case MAP -> {
                LogicalType key = logicalType(type.fields().get(0).type());
                LogicalType value = logicalType(type.fields().get(1).type());
                yield key == null || value == null ? null : new MapType(key, value);
            }
            case ROW -> {
                List<RowType.RowField> fields = new ArrayList<>();
                for (ValueType.Field field : type.fields()) {
                    LogicalType t = logicalType(field.type());
                    if (t == null) {
                        yield null;
                    }
                    fields.add(new RowType.RowField(field.name(), t));
                }
                yield new RowType(fields);
            }
            case NESTED, UNSUPPORTED -> null;
        };
    }

    private static int timestampPrecision(ValueType type) {
        return Math.max(0, Math.min(type.precision(), 9));
    }

    /** A new row holding {@code values} (one per declared type, in order) as Flink data. */
    public GenericRowData toRowData(Object[] values) {
        if (values.length != types.length) {
            throw new IllegalArgumentException(
                    "engine row has " + values.length + " values, expected " + types.length);
        }
        GenericRowData row = new GenericRowData(types.length);
        for (int i = 0; i < types.length; i++) {
            Object v = values[i];
            row.setField(i, v == null ? null : toFlink(v, types[i]));
        }
        return row;
    }

    /** One engine value as Flink internal data of {@code type}. */
    static Object toFlink(Object value, LogicalType type) {
        return switch (type.getTypeRoot()) {
            case BOOLEAN, INTEGER, DATE, BIGINT, FLOAT, DOUBLE, BINARY, VARBINARY -> value;
            case TINYINT -> ((Number) value).byteValue();
            case SMALLINT -> ((Number) value).shortValue();
            case CHAR, VARCHAR ->
                    value instanceof byte[] bytes
                            ? StringData.fromBytes(bytes)
                            : StringData.fromString(value.toString());
            case DECIMAL -> {
                BigDecimal decimal = (BigDecimal) value;
                DecimalData data =
                        DecimalData.fromBigDecimal(
                                decimal, decimalPrecision(type), decimalScale(type));
                if (data == null) {
                    throw new ArithmeticException(
                            "value " + decimal + " does not fit the declared " + type);
                }
                yield data;
            }
            case TIME_WITHOUT_TIME_ZONE -> (int) (((Long) value) / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
                    truncate((TimestampValue) value, timestampPrecision(type));
            case ARRAY -> array((List<?>) value, ((ArrayType) type).getElementType());
            case MAP -> {
                MapType map = (MapType) type;
                Map<Object, Object> converted = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    converted.put(
                            orNull(e.getKey(), map.getKeyType()),
                            orNull(e.getValue(), map.getValueType()));
                }
                yield new GenericMapData(converted);
            }
            case ROW -> {
                RowType row = (RowType) type;
                Object[] fields = (Object[]) value;
                GenericRowData data = new GenericRowData(fields.length);
                for (int i = 0; i < fields.length; i++) {
                    data.setField(i, orNull(fields[i], row.getTypeAt(i)));
                }
                yield data;
            }
            default ->
                    throw new UnsupportedOperationException(
                            "values of type " + type + " are not supported");
        };
    }

    private static GenericArrayData array(List<?> values, LogicalType elementType) {
        Object[] elements = new Object[values.size()];
        for (int i = 0; i < elements.length; i++) {
            elements[i] = orNull(values.get(i), elementType);
        }
        return new GenericArrayData(elements);
    }

    private static Object orNull(Object value, LogicalType type) {
        return value == null ? null : toFlink(value, type);
    }

    /**
     * Keeps the first {@code precision} (0..9) fractional-second digits, as a file written with
     * microseconds read into a {@code TIMESTAMP(3)} column must not carry hidden microseconds.
     */
    static TimestampData truncate(TimestampValue t, int precision) {
        if (precision >= 3) {
            int unit = POWERS_OF_TEN[9 - precision];
            int nanos = t.nanoOfMillisecond();
            return TimestampData.fromEpochMillis(t.epochMillis(), nanos - nanos % unit);
        }
        long unit = POWERS_OF_TEN[3 - precision];
        return TimestampData.fromEpochMillis(
                t.epochMillis() - Math.floorMod(t.epochMillis(), unit));
    }

    private static final int[] POWERS_OF_TEN = {1, 10, 100, 1000, 10_000, 100_000, 1_000_000};

    static int decimalPrecision(LogicalType type) {
        return ((DecimalType) type).getPrecision();
    }

    static int decimalScale(LogicalType type) {
        return ((DecimalType) type).getScale();
    }

    static int timestampPrecision(LogicalType type) {
        return type instanceof TimestampType ts
                ? ts.getPrecision()
                : ((LocalZonedTimestampType) type).getPrecision();
    }
}
