package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.math.BigInteger;

/**
 * The Parquet type of each {@link ColumnSpec}: physical type, logical annotation, repetition, and
 * the fixed length of decimals stored as FIXED_LEN_BYTE_ARRAY.
 */
final class WriterSchema {

    private WriterSchema() {}

    static Type parquetType(ColumnSpec c) {
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
            case ARRAY, MAP, ROW -> NestedValues.parquetType(c.name(), rep, t);
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
}
