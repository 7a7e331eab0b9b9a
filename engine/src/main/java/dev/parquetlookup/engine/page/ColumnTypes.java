package dev.parquetlookup.engine.page;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.EnumLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.JsonLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.StringLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Maps Parquet column types to {@link ValueType}s and reads values in the engine's representation.
 *
 * <p>Example: {@code optional int64 ts (TIMESTAMP(MICROS,true))} is {@code TIMESTAMP_LTZ(6)} and
 * its value {@code 1_000_001} is read as {@code new TimestampValue(1000, 1000)}.
 */
public final class ColumnTypes {

    private ColumnTypes() {}

    /** Reads one non-null value from a positioned Parquet values reader. */
    @FunctionalInterface
    public interface ValueReader {
        Object read(ValuesReader in);
    }

    /**
     * The engine type of a top-level column: nested columns (groups, LIST, MAP, repeated fields)
     * are ARRAY, MAP or ROW types as {@link NestedShape} reads them, or NESTED when it cannot.
     */
    public static ValueType valueType(Type field) {
        if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
            NestedShape shape = NestedShape.of(field);
            return shape == null ? ValueType.of(Kind.NESTED) : shape.type();
        }
        return primitiveType(field.asPrimitiveType());
    }

    /** The engine type of a primitive column, whatever its repetition. */
    static ValueType primitiveType(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        switch (type.getPrimitiveTypeName()) {
            case BOOLEAN:
                return ValueType.of(Kind.BOOLEAN);
            case FLOAT:
                return ValueType.of(Kind.FLOAT);
            case DOUBLE:
                return ValueType.of(Kind.DOUBLE);
            case INT96:
                return new ValueType(Kind.TIMESTAMP, 9, 0);
            case INT32:
                if (logical == null) {
                    return ValueType.of(Kind.INT);
                }
                if (logical instanceof IntLogicalTypeAnnotation i) {
                    int bits = i.getBitWidth() + (i.isSigned() ? 0 : 1);
                    return ValueType.of(
                            bits <= 8
                                    ? Kind.TINYINT
                                    : bits <= 16
                                            ? Kind.SMALLINT
                                            : bits <= 32 ? Kind.INT : Kind.BIGINT);
                }
                if (logical instanceof DateLogicalTypeAnnotation) {
                    return ValueType.of(Kind.DATE);
                }
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    return new ValueType(Kind.DECIMAL, d.getPrecision(), d.getScale());
                }
                if (logical instanceof TimeLogicalTypeAnnotation) {
                    return new ValueType(Kind.TIME, 3, 0);
                }
                return ValueType.of(Kind.UNSUPPORTED);
            case INT64:
                if (logical == null) {
                    return ValueType.of(Kind.BIGINT);
                }
                if (logical instanceof IntLogicalTypeAnnotation i) {
                    return i.isSigned()
                            ? ValueType.of(Kind.BIGINT)
                            : ValueType.of(Kind.UNSUPPORTED);
                }
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    return new ValueType(Kind.DECIMAL, d.getPrecision(), d.getScale());
                }
                if (logical instanceof TimestampLogicalTypeAnnotation t) {
                    return new ValueType(
                            t.isAdjustedToUTC() ? Kind.TIMESTAMP_LTZ : Kind.TIMESTAMP,
                            digits(t.getUnit()),
                            0);
                }
                if (logical instanceof TimeLogicalTypeAnnotation t) {
                    return new ValueType(Kind.TIME, digits(t.getUnit()), 0);
                }
                return ValueType.of(Kind.UNSUPPORTED);
            case BINARY:
            case FIXED_LEN_BYTE_ARRAY:
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    return new ValueType(Kind.DECIMAL, d.getPrecision(), d.getScale());
                }
                if (logical instanceof StringLogicalTypeAnnotation
                        || logical instanceof EnumLogicalTypeAnnotation
                        || logical instanceof JsonLogicalTypeAnnotation) {
                    return ValueType.of(Kind.STRING);
                }
                if (logical == null
                        || logical instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation
                        || logical instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
                    return ValueType.of(Kind.BINARY);
                }
                return ValueType.of(Kind.UNSUPPORTED);
            default:
                return ValueType.of(Kind.UNSUPPORTED);
        }
    }

    private static int digits(TimeUnit unit) {
        return switch (unit) {
            case MILLIS -> 3;
            case MICROS -> 6;
            case NANOS -> 9;
        };
    }

    /** A reader producing {@link ValueType}'s representation for a supported primitive column. */
    public static ValueReader reader(PrimitiveType type) {
        LogicalTypeAnnotation logical = type.getLogicalTypeAnnotation();
        switch (type.getPrimitiveTypeName()) {
            case BOOLEAN:
                return ValuesReader::readBoolean;
            case FLOAT:
                return ValuesReader::readFloat;
            case DOUBLE:
                return ValuesReader::readDouble;
            case INT96:
                return in -> TimestampValue.ofInt96(in.readBytes().toByteBuffer());
            case INT32:
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return in -> BigDecimal.valueOf(in.readInteger(), scale);
                }
                if (logical instanceof TimeLogicalTypeAnnotation) {
                    return in -> in.readInteger() * 1_000_000L;
                }
                if (logical instanceof IntLogicalTypeAnnotation i
                        && !i.isSigned()
                        && i.getBitWidth() == 32) {
                    return in -> Integer.toUnsignedLong(in.readInteger());
                }
                return ValuesReader::readInteger;
            case INT64:
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return in -> BigDecimal.valueOf(in.readLong(), scale);
                }
                if (logical instanceof TimestampLogicalTypeAnnotation t) {
                    return switch (t.getUnit()) {
                        case MILLIS -> in -> new TimestampValue(in.readLong(), 0);
                        case MICROS -> in -> TimestampValue.ofEpochMicros(in.readLong());
                        case NANOS -> in -> TimestampValue.ofEpochNanos(in.readLong());
                    };
                }
                if (logical instanceof TimeLogicalTypeAnnotation t) {
                    return t.getUnit() == TimeUnit.MICROS
                            ? in -> in.readLong() * 1000L
                            : ValuesReader::readLong;
                }
                return ValuesReader::readLong;
            default:
                if (logical instanceof DecimalLogicalTypeAnnotation d) {
                    int scale = d.getScale();
                    return in -> new BigDecimal(new BigInteger(in.readBytes().getBytes()), scale);
                }
                return in -> in.readBytes().getBytes();
        }
    }
}
