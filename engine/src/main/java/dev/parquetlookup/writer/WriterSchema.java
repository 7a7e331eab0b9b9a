package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
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
        if (t.isNested()) {
            return NestedValues.parquetType(c.name(), rep, t);
        }
        boolean int96 = c.timeUnit() == TimeUnit.INT96;
        PrimitiveTypeName physical =
                switch (t.kind()) {
                    case BOOLEAN -> PrimitiveTypeName.BOOLEAN;
                    case TINYINT, SMALLINT, INT, DATE -> PrimitiveTypeName.INT32;
                    case BIGINT -> PrimitiveTypeName.INT64;
                    case FLOAT -> PrimitiveTypeName.FLOAT;
                    case DOUBLE -> PrimitiveTypeName.DOUBLE;
                    case DECIMAL -> PrimitiveTypeName.valueOf(c.decimalStorage().name());
                    case STRING, BINARY -> PrimitiveTypeName.BINARY;
                    case TIME ->
                            c.timeUnit() == TimeUnit.MILLIS
                                    ? PrimitiveTypeName.INT32
                                    : PrimitiveTypeName.INT64;
                    case TIMESTAMP, TIMESTAMP_LTZ ->
                            int96 ? PrimitiveTypeName.INT96 : PrimitiveTypeName.INT64;
                    default ->
                            throw new IllegalArgumentException(
                                    "cannot write column " + c.name() + " of type " + t);
                };
        LogicalTypeAnnotation logical =
                switch (t.kind()) {
                    case TINYINT -> LogicalTypeAnnotation.intType(8, true);
                    case SMALLINT -> LogicalTypeAnnotation.intType(16, true);
                    case DECIMAL -> LogicalTypeAnnotation.decimalType(t.scale(), t.precision());
                    case STRING -> LogicalTypeAnnotation.stringType();
                    case DATE -> LogicalTypeAnnotation.dateType();
                    case TIME -> LogicalTypeAnnotation.timeType(false, parquetUnit(c.timeUnit()));
                    case TIMESTAMP, TIMESTAMP_LTZ ->
                            int96
                                    ? null
                                    : LogicalTypeAnnotation.timestampType(
                                            t.kind() == Kind.TIMESTAMP_LTZ,
                                            parquetUnit(c.timeUnit()));
                    default -> null;
                };
        return Types.primitive(physical, rep)
                .length(
                        physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                                ? fixedLength(t.precision())
                                : 0)
                .as(logical)
                .named(c.name());
    }

    private static LogicalTypeAnnotation.TimeUnit parquetUnit(TimeUnit unit) {
        return LogicalTypeAnnotation.TimeUnit.valueOf(unit.name());
    }

    /** The fewest bytes whose two's complement range holds every unscaled value of precision p. */
    static int fixedLength(int precision) {
        BigInteger max = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return (max.bitLength() + 1 + 7) / 8;
    }
}
