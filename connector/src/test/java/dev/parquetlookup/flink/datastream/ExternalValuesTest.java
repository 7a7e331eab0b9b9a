package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.flink.lookup.RowDataConverter;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExternalValuesTest {

    private static Object key(Object value, ValueType type) {
        return ExternalValues.toEngineKey(value, type, "c");
    }

    @Test
    void integralKeysWidenAndOutOfRangeValuesMatchNothing() {
        assertThat(key(7, ValueType.of(Kind.BIGINT))).isEqualTo(7L);
        assertThat(key((short) 7, ValueType.of(Kind.INT))).isEqualTo(7);
        assertThat(key(300L, ValueType.of(Kind.TINYINT))).isSameAs(ExternalValues.NO_MATCH);
        assertThat(key(1L << 40, ValueType.of(Kind.INT))).isSameAs(ExternalValues.NO_MATCH);
    }

    @Test
    void decimalKeysTakeTheColumnScaleOrMatchNothing() {
        ValueType type = new ValueType(Kind.DECIMAL, 12, 2);
        assertThat(key(new BigDecimal("7.5"), type)).isEqualTo(new BigDecimal("7.50"));
        assertThat(key(3L, type)).isEqualTo(new BigDecimal("3.00"));
        assertThat(key(new BigDecimal("7.505"), type)).isSameAs(ExternalValues.NO_MATCH);
    }

    @Test
    void textDateAndTimestampKeysTakeTheEngineForm() {
        assertThat((byte[]) key("é", ValueType.of(Kind.STRING)))
                .isEqualTo("é".getBytes(StandardCharsets.UTF_8));
        assertThat(key(LocalDate.of(1970, 1, 3), ValueType.of(Kind.DATE))).isEqualTo(2);
        assertThat(
                        key(
                                LocalDateTime.of(1970, 1, 1, 0, 0, 1, 2_000_003),
                                new ValueType(Kind.TIMESTAMP, 9, 0)))
                .isEqualTo(new TimestampValue(1002, 3));
        assertThat(
                        key(
                                Instant.ofEpochSecond(-1, 999_000_000),
                                new ValueType(Kind.TIMESTAMP_LTZ, 3, 0)))
                .isEqualTo(new TimestampValue(-1, 0));
        assertThat(key(LocalTime.of(0, 0, 1, 1_500_000), new ValueType(Kind.TIME, 6, 0)))
                .isEqualTo(1_001_000_000L);
    }

    @Test
    void timestampsBeyondEpochMillisecondsInALongMatchNothing() {
        // Instant.MAX's milliseconds overflow a long: no stored timestamp can equal it (it used to
        // wrap around to some other instant's milliseconds).
        assertThat(key(Instant.MAX, new ValueType(Kind.TIMESTAMP_LTZ, 6, 0)))
                .isSameAs(ExternalValues.NO_MATCH);
        assertThat(key(LocalDateTime.MIN, new ValueType(Kind.TIMESTAMP, 6, 0)))
                .isSameAs(ExternalValues.NO_MATCH);
        assertThat(
                        key(
                                Instant.ofEpochMilli(Long.MAX_VALUE),
                                new ValueType(Kind.TIMESTAMP_LTZ, 3, 0)))
                .isEqualTo(new TimestampValue(Long.MAX_VALUE, 0));
    }

    @Test
    void aKeyOfTheWrongJavaTypeNamesColumnTypeAndFix() {
        assertThatThrownBy(() -> ExternalValues.toEngineKey("42", ValueType.of(Kind.BIGINT), "id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Key column 'id' is BIGINT in the files, but the key function returned a"
                                + " java.lang.String (42); return a Long instead.");
        assertThatThrownBy(
                        () ->
                                ExternalValues.toEngineKey(
                                        LocalDateTime.now(), ValueType.of(Kind.DATE), "d"))
                .hasMessageContaining("return a LocalDate instead");
    }

    @Test
    void rowValuesBecomeExternalJavaTypes() {
        GenericRowData row =
                GenericRowData.of(
                        StringData.fromString("a"),
                        DecimalData.fromBigDecimal(new BigDecimal("1.25"), 12, 2),
                        2,
                        1001,
                        TimestampData.fromEpochMillis(1002, 3),
                        TimestampData.fromEpochMillis(-1),
                        (byte) 4,
                        null);
        ValueType[] types = {
            ValueType.of(Kind.STRING),
            new ValueType(Kind.DECIMAL, 12, 2),
            ValueType.of(Kind.DATE),
            new ValueType(Kind.TIME, 3, 0),
            new ValueType(Kind.TIMESTAMP, 9, 0),
            new ValueType(Kind.TIMESTAMP_LTZ, 3, 0),
            ValueType.of(Kind.TINYINT),
            ValueType.of(Kind.BIGINT)
        };
        Object[] expected = {
            "a",
            new BigDecimal("1.25"),
            LocalDate.of(1970, 1, 3),
            LocalTime.of(0, 0, 1, 1_000_000),
            LocalDateTime.of(1970, 1, 1, 0, 0, 1, 2_000_003),
            Instant.ofEpochMilli(-1),
            (byte) 4,
            null
        };
        for (int i = 0; i < types.length; i++) {
            assertThat(ExternalValues.toExternal(row, i, RowDataConverter.logicalType(types[i])))
                    .as("field %d (%s)", i, types[i])
                    .isEqualTo(expected[i]);
        }
        assertThat(RowDataConverter.logicalType(ValueType.of(Kind.NESTED))).isNull();
    }

    @Test
    void nestedValuesBecomeListsMapsAndNamedRows() {
        ValueType row =
                ValueType.row(
                        List.of(
                                new ValueType.Field("city", ValueType.of(Kind.STRING)),
                                new ValueType.Field(
                                        "zips", ValueType.array(ValueType.of(Kind.SMALLINT)))));
        ValueType type = ValueType.map(ValueType.of(Kind.STRING), ValueType.array(row));
        LogicalType logical = RowDataConverter.logicalType(type);
        VarCharType string = new VarCharType(VarCharType.MAX_LENGTH);
        assertThat(logical)
                .isEqualTo(
                        new MapType(
                                string,
                                new ArrayType(
                                        new RowType(
                                                List.of(
                                                        new RowType.RowField("city", string),
                                                        new RowType.RowField(
                                                                "zips",
                                                                new ArrayType(
                                                                        new SmallIntType())))))));
        java.util.Map<Object, Object> engine = new java.util.LinkedHashMap<>();
        engine.put(
                "b".getBytes(StandardCharsets.UTF_8),
                java.util.Arrays.asList(
                        new Object[] {"x".getBytes(StandardCharsets.UTF_8), List.of(1, 2)},
                        null,
                        new Object[] {null, java.util.Arrays.asList(3, null)}));
        engine.put("a".getBytes(StandardCharsets.UTF_8), null);
        GenericRowData data =
                new RowDataConverter(List.of(logical)).toRowData(new Object[] {engine});
        Object external = ExternalValues.toExternal(data, 0, logical);
        assertThat(external).isInstanceOf(java.util.Map.class);
        java.util.Map<?, ?> map = (java.util.Map<?, ?>) external;
        assertThat(new java.util.ArrayList<Object>(map.keySet())).containsExactly("b", "a");
        assertThat(map.get("a")).isNull();
        List<?> rows = (List<?>) map.get("b");
        assertThat(rows).hasSize(3);
        Row first = (Row) rows.get(0);
        assertThat(first.getField("city")).isEqualTo("x");
        assertThat(first.getField(1)).isEqualTo(List.of((short) 1, (short) 2));
        assertThat(rows.get(1)).isNull();
        Row third = (Row) rows.get(2);
        assertThat(third.getField("city")).isNull();
        assertThat(third.getField("zips")).isEqualTo(java.util.Arrays.asList((short) 3, null));
        assertThatThrownBy(() -> ExternalValues.toEngineKey(List.of(), type, "m"))
                .hasMessageContaining("cannot be a key");
    }
}
