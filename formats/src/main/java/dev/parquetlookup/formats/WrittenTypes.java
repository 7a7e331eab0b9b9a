package dev.parquetlookup.formats;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * Parquet types as the Delta and Iceberg writers give them, shared by their column bindings.
 * Example: {@code decimal(12, 2, OPTIONAL).named("credit")} is {@code optional int64 credit
 * (DECIMAL(12,2))}.
 */
final class WrittenTypes {

    private WrittenTypes() {}

    /** A decimal as parquet-java writes it: INT32 up to 9 digits, INT64 up to 18, else FIXED. */
    static Types.PrimitiveBuilder<PrimitiveType> decimal(
            int precision, int scale, Repetition repetition) {
        LogicalTypeAnnotation annotation = LogicalTypeAnnotation.decimalType(scale, precision);
        if (precision <= 9) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation);
        }
        if (precision <= 18) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation);
        }
        // Bytes of a FIXED decimal of that many digits, with its sign.
        int bytes = (int) Math.ceil((precision * Math.log(10) / Math.log(2) + 1) / 8);
        return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                .length(bytes)
                .as(annotation);
    }
}
