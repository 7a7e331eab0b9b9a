package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;

import java.io.Serializable;
import java.math.BigDecimal;
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
        switch (type.getTypeRoot()) {
            case BOOLEAN:
            case INTEGER:
            case DATE:
            case BIGINT:
            case FLOAT:
            case DOUBLE:
            case BINARY:
            case VARBINARY:
                return value;
            case TINYINT:
                return ((Number) value).byteValue();
            case SMALLINT:
                return ((Number) value).shortValue();
            case CHAR:
            case VARCHAR:
                return value instanceof byte[] bytes
                        ? StringData.fromBytes(bytes)
                        : StringData.fromString(value.toString());
            case DECIMAL:
                {
                    int precision = decimalPrecision(type);
                    int scale = decimalScale(type);
                    BigDecimal decimal = (BigDecimal) value;
                    DecimalData data = DecimalData.fromBigDecimal(decimal, precision, scale);
                    if (data == null) {
                        throw new ArithmeticException(
                                "value " + decimal + " does not fit the declared " + type);
                    }
                    return data;
                }
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (((Long) value) / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    return truncate((TimestampValue) value, timestampPrecision(type));
                }
            case ARRAY:
                return array((List<?>) value, ((ArrayType) type).getElementType());
            case MAP:
                {
                    MapType map = (MapType) type;
                    Map<Object, Object> converted = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                        converted.put(
                                orNull(e.getKey(), map.getKeyType()),
                                orNull(e.getValue(), map.getValueType()));
                    }
                    return new GenericMapData(converted);
                }
            case ROW:
                {
                    RowType row = (RowType) type;
                    Object[] fields = (Object[]) value;
                    GenericRowData data = new GenericRowData(fields.length);
                    for (int i = 0; i < fields.length; i++) {
                        data.setField(i, orNull(fields[i], row.getTypeAt(i)));
                    }
                    return data;
                }
            default:
                throw new UnsupportedOperationException(
                        "values of type " + type + " are not supported");
        }
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
