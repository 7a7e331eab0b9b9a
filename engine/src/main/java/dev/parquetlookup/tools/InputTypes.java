package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.ColumnSpec.DecimalStorage;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

/**
 * The column spec that writes an input file's Parquet column again with the same logical type
 * ({@code prepare} keeps the types it reads); nested columns get the ARRAY, MAP or ROW type the
 * engine reads them as; unsupported columns are refused with the fix ({@code --columns}).
 */
final class InputTypes {

    private InputTypes() {}

    /** The spec that writes a column of this Parquet type with the same logical type. */
    static ColumnSpec spec(Type field) {
        String name = field.getName();
        boolean nullable = !field.isRepetition(Type.Repetition.REQUIRED);
        if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
            ValueType type = TableSchema.columnsOf(new MessageType("input", field)).get(0).type();
            if (!type.isNested()) {
                throw new IllegalArgumentException(
                        "column '"
                                + name
                                + "' is nested in a shape lookup files cannot hold ("
                                + field.toString().trim().replaceAll("\\s+", " ")
                                + "): leave it out with --columns");
            }
            return new ColumnSpec(name, type, nullable, null, null);
        }
        return primitiveSpec(name, field.asPrimitiveType(), nullable);
    }

    /** The spec of a primitive column or part of a nested column, whatever its repetition. */
    static ColumnSpec primitiveSpec(String name, PrimitiveType p, boolean nullable) {
        Type field = p;
        LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
        ColumnSpec spec =
                switch (p.getPrimitiveTypeName()) {
                    case BOOLEAN -> simple(name, Kind.BOOLEAN, nullable);
                    case FLOAT -> simple(name, Kind.FLOAT, nullable);
                    case DOUBLE -> simple(name, Kind.DOUBLE, nullable);
                    case INT96 ->
                            new ColumnSpec(
                                    name,
                                    new ValueType(Kind.TIMESTAMP, 9, 0),
                                    nullable,
                                    null,
                                    TimeUnit.INT96);
                    case INT32 -> int32Spec(name, logical, nullable);
                    case INT64 -> int64Spec(name, logical, nullable);
                    case BINARY, FIXED_LEN_BYTE_ARRAY -> binarySpec(name, p, logical, nullable);
                };
        if (spec == null) {
            throw new IllegalArgumentException(
                    "column '"
                            + name
                            + "' has type "
                            + field.toString().trim()
                            + ", which lookup files do not support; leave it out with --columns");
        }
        return spec;
    }

    @Nullable
    private static ColumnSpec int32Spec(
            String name, @Nullable LogicalTypeAnnotation logical, boolean nullable) {
        if (logical == null) {
            return simple(name, Kind.INT, nullable);
        }
        if (logical instanceof IntLogicalTypeAnnotation i) {
            int bits = i.getBitWidth() + (i.isSigned() ? 0 : 1);
            return simple(
                    name,
                    bits <= 8
                            ? Kind.TINYINT
                            : bits <= 16 ? Kind.SMALLINT : bits <= 32 ? Kind.INT : Kind.BIGINT,
                    nullable);
        }
        if (logical instanceof DateLogicalTypeAnnotation) {
            return simple(name, Kind.DATE, nullable);
        }
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
            return decimal(name, d, nullable, DecimalStorage.INT32);
        }
        if (logical instanceof TimeLogicalTypeAnnotation) {
            return new ColumnSpec(
                    name, new ValueType(Kind.TIME, 3, 0), nullable, null, TimeUnit.MILLIS);
        }
        return null;
    }

    @Nullable
    private static ColumnSpec int64Spec(
            String name, @Nullable LogicalTypeAnnotation logical, boolean nullable) {
        if (logical == null) {
            return simple(name, Kind.BIGINT, nullable);
        }
        if (logical instanceof IntLogicalTypeAnnotation i) {
            return i.isSigned() ? simple(name, Kind.BIGINT, nullable) : null;
        }
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
            return decimal(name, d, nullable, DecimalStorage.INT64);
        }
        if (logical instanceof TimestampLogicalTypeAnnotation t) {
            return new ColumnSpec(
                    name,
                    new ValueType(
                            t.isAdjustedToUTC() ? Kind.TIMESTAMP_LTZ : Kind.TIMESTAMP,
                            digits(t.getUnit()),
                            0),
                    nullable,
                    null,
                    unit(t.getUnit()));
        }
        if (logical instanceof TimeLogicalTypeAnnotation t) {
            return new ColumnSpec(
                    name,
                    new ValueType(Kind.TIME, digits(t.getUnit()), 0),
                    nullable,
                    null,
                    unit(t.getUnit()));
        }
        return null;
    }

    @Nullable
    private static ColumnSpec binarySpec(
            String name,
            PrimitiveType p,
            @Nullable LogicalTypeAnnotation logical,
            boolean nullable) {
        if (logical instanceof DecimalLogicalTypeAnnotation d) {
            return decimal(
                    name,
                    d,
                    nullable,
                    p.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.BINARY
                            ? DecimalStorage.BINARY
                            : DecimalStorage.FIXED_LEN_BYTE_ARRAY);
        }
        if (logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.EnumLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.JsonLogicalTypeAnnotation) {
            return simple(name, Kind.STRING, nullable);
        }
        if (logical == null
                || logical instanceof LogicalTypeAnnotation.BsonLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.UUIDLogicalTypeAnnotation) {
            return simple(name, Kind.BINARY, nullable);
        }
        return null;
    }

    private static ColumnSpec simple(String name, Kind kind, boolean nullable) {
        return new ColumnSpec(name, ValueType.of(kind), nullable, null, null);
    }

    private static ColumnSpec decimal(
            String name, DecimalLogicalTypeAnnotation d, boolean nullable, DecimalStorage storage) {
        return new ColumnSpec(
                name,
                new ValueType(Kind.DECIMAL, d.getPrecision(), d.getScale()),
                nullable,
                storage,
                null);
    }

    private static int digits(LogicalTypeAnnotation.TimeUnit unit) {
        return switch (unit) {
            case MILLIS -> 3;
            case MICROS -> 6;
            case NANOS -> 9;
        };
    }

    private static TimeUnit unit(LogicalTypeAnnotation.TimeUnit unit) {
        return switch (unit) {
            case MILLIS -> TimeUnit.MILLIS;
            case MICROS -> TimeUnit.MICROS;
            case NANOS -> TimeUnit.NANOS;
        };
    }
}
