package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.lookup.RowDataConverter;
import dev.parquetlookup.types.ValueType;

import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Which Flink SQL types a column of each engine type may be declared as, and what to suggest when
 * the declaration does not fit.
 *
 * <pre>
 * engine type (Parquet)                          accepted SQL types
 * BOOLEAN                                        BOOLEAN
 * TINYINT / SMALLINT / INT / BIGINT              the same
 * FLOAT / DOUBLE                                 the same
 * DECIMAL(p, s)                                  DECIMAL(q, s) with q >= p
 * STRING                                         STRING, VARCHAR(n), CHAR(n)
 * BINARY                                         BYTES, VARBINARY(n), BINARY(n)
 * DATE                                           DATE
 * TIME(p)                                        TIME(q) (Flink keeps milliseconds)
 * TIMESTAMP(p)                                   TIMESTAMP(q), truncated to q digits
 * TIMESTAMP_LTZ(p)                               TIMESTAMP_LTZ(q), truncated to q digits
 * ARRAY&lt;E&gt; (LIST, repeated field)           ARRAY&lt;F&gt; where F accepts E
 * MAP&lt;K, V&gt; (MAP)                            MAP&lt;L, W&gt; where L accepts K and W accepts V
 * ROW&lt;f T, ...&gt; (group)                      ROW&lt;f U, ...&gt;: the same field names in file order,
 *                                                each U accepting T
 * NESTED (a MAP without values, a nested        none: leave the column out of the table
 *   unsupported type), UNSUPPORTED
 *   (INTERVAL, FLOAT16, unsigned 64-bit)
 * </pre>
 *
 * Nullability inside nested types is not checked: elements, values and fields may be null in the
 * files whatever the declaration says (declare them nullable).
 *
 * <p>Example: {@code TypeMapping.accepts(new ValueType(DECIMAL, 12, 2), new DecimalType(10, 2))} is
 * false and {@code TypeMapping.suggest(...)} is {@code "DECIMAL(12, 2)"}.
 */
public final class TypeMapping {

    private TypeMapping() {}

    /** Whether values of {@code fileType} can be read as {@code declared}. */
    public static boolean accepts(ValueType fileType, LogicalType declared) {
        return switch (fileType.kind()) {
            case DECIMAL ->
                    declared instanceof DecimalType d
                            && d.getScale() == fileType.scale()
                            && d.getPrecision() >= fileType.precision();
            case STRING ->
                    is(declared, LogicalTypeRoot.VARCHAR) || is(declared, LogicalTypeRoot.CHAR);
            case BINARY ->
                    is(declared, LogicalTypeRoot.VARBINARY) || is(declared, LogicalTypeRoot.BINARY);
            case ARRAY ->
                    declared instanceof ArrayType a
                            && accepts(fileType.fields().get(0).type(), a.getElementType());
            case MAP ->
                    declared instanceof MapType m
                            && accepts(fileType.fields().get(0).type(), m.getKeyType())
                            && accepts(fileType.fields().get(1).type(), m.getValueType());
            case ROW -> declared instanceof RowType r && acceptsRow(fileType, r);
            case NESTED, UNSUPPORTED -> false;
            // The others by their kind alone: precisions are truncated to the declared one.
            default -> is(declared, RowDataConverter.logicalType(fileType).getTypeRoot());
        };
    }

    private static boolean acceptsRow(ValueType fileType, RowType declared) {
        List<ValueType.Field> fields = fileType.fields();
        if (declared.getFieldCount() != fields.size()) {
            return false;
        }
        for (int i = 0; i < fields.size(); i++) {
            if (!declared.getFieldNames().get(i).equals(fields.get(i).name())
                    || !accepts(fields.get(i).type(), declared.getTypeAt(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The SQL type to declare for a column of {@code fileType}, or null if there is none: the type
     * it is read as ({@link RowDataConverter#logicalType}), e.g. {@code STRING}, {@code DECIMAL(12,
     * 2)}, {@code ROW<`a` INT>}.
     */
    @Nullable
    public static String suggest(ValueType fileType) {
        LogicalType type = RowDataConverter.logicalType(fileType);
        return type == null ? null : type.asSummaryString();
    }

    private static boolean is(LogicalType type, LogicalTypeRoot root) {
        return type.getTypeRoot() == root;
    }
}
