package dev.parquetlookup.tools;

import org.apache.parquet.schema.ColumnOrder;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code inspect} prints a column's type as a schema reads, without parquet-java's internals. */
class LayoutReportTypeTextTest {

    @Test
    void columnOrderIsNotPrinted() {
        // Found by a user: "optional double name columnorder(TYPE_DEFINED_ORDER)".
        PrimitiveType price =
                Types.primitive(PrimitiveTypeName.DOUBLE, Repetition.OPTIONAL)
                        .columnOrder(ColumnOrder.typeDefined())
                        .named("price");
        assertThat(price.toString()).contains("columnorder");
        assertThat(LayoutReport.typeText(price.toString())).isEqualTo("optional double price");

        PrimitiveType name =
                Types.primitive(PrimitiveTypeName.BINARY, Repetition.REQUIRED)
                        .as(LogicalTypeAnnotation.stringType())
                        .named("name");
        assertThat(LayoutReport.typeText(name.toString()))
                .isEqualTo("required binary name (STRING)");
    }
}
