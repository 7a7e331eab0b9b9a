package dev.parquetlookup.tools;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.ColumnSpec.DecimalStorage;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * The column spec that writes an input file's Parquet column again with the same logical type
 * ({@code prepare} keeps the types it reads): the engine's type of the column ({@link ColumnTypes})
 * with the file's storage of decimals and unit of times; nested columns get the ARRAY, MAP or ROW
 * type the engine reads them as; unsupported columns are refused with the fix ({@code --columns}).
 */
final class InputTypes {

    private InputTypes() {}

    /** The spec that writes a column of this Parquet type with the same logical type. */
    static ColumnSpec spec(Type field) {
        String name = field.getName();
        boolean nullable = !field.isRepetition(Type.Repetition.REQUIRED);
        if (!field.isPrimitive() || field.isRepetition(Type.Repetition.REPEATED)) {
            ValueType type = ColumnTypes.valueType(field);
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
        PrimitiveTypeName physical = p.getPrimitiveTypeName();
        LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
        // The engine's type of one value: the same primitive, not repeated.
        ValueType type =
                ColumnTypes.valueType(
                        new PrimitiveType(
                                        Type.Repetition.OPTIONAL,
                                        physical,
                                        p.getTypeLength(),
                                        p.getName())
                                .withLogicalTypeAnnotation(logical));
        if (type.kind() == Kind.UNSUPPORTED) {
            throw new IllegalArgumentException(
                    "column '"
                            + name
                            + "' has type "
                            + p.toString().trim()
                            + ", which lookup files do not support; leave it out with --columns");
        }
        DecimalStorage storage =
                type.kind() != Kind.DECIMAL
                        ? null
                        : switch (physical) {
                            case INT32 -> DecimalStorage.INT32;
                            case INT64 -> DecimalStorage.INT64;
                            case BINARY -> DecimalStorage.BINARY;
                            default -> DecimalStorage.FIXED_LEN_BYTE_ARRAY;
                        };
        LogicalTypeAnnotation.TimeUnit unit =
                logical instanceof TimestampLogicalTypeAnnotation t
                        ? t.getUnit()
                        : logical instanceof TimeLogicalTypeAnnotation t ? t.getUnit() : null;
        TimeUnit stored =
                physical == PrimitiveTypeName.INT96
                        ? TimeUnit.INT96
                        : unit == null ? null : TimeUnit.valueOf(unit.name());
        return new ColumnSpec(name, type, nullable, storage, stored);
    }
}
