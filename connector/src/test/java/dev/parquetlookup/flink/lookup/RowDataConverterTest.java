package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BinaryType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.CharType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.FloatType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LocalZonedTimestampType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.SmallIntType;
import org.apache.flink.table.types.logical.TimeType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.TinyIntType;
import org.apache.flink.table.types.logical.VarBinaryType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RowDataConverterTest {

    @Test
    void convertsEveryType() {
        List<LogicalType> types =
                List.of(
                        new BooleanType(),
                        new TinyIntType(),
                        new SmallIntType(),
                        new IntType(),
                        new BigIntType(),
                        new FloatType(),
                        new DoubleType(),
                        new DecimalType(12, 2),
                        new VarCharType(VarCharType.MAX_LENGTH),
                        new CharType(3),
                        new VarBinaryType(VarBinaryType.MAX_LENGTH),
                        new BinaryType(2),
                        new DateType(),
                        new TimeType(3),
                        new TimestampType(9),
                        new LocalZonedTimestampType(6));
        long days = LocalDate.of(2024, 2, 29).toEpochDay();
        long timeNanos = LocalTime.of(13, 14, 15, 123_456_789).toNanoOfDay();
        TimestampValue ts = new TimestampValue(1_700_000_000_123L, 456_789);
        Object[] engine = {
            true,
            -7,
            300,
            42,
            1L << 40,
            1.5f,
            2.25,
            new BigDecimal("1234567890.12"),
            "héllo".getBytes(StandardCharsets.UTF_8),
            "abc".getBytes(StandardCharsets.UTF_8),
            new byte[] {1, 2, 3},
            new byte[] {9, 8},
            (int) days,
            timeNanos,
            ts,
            ts
        };

        GenericRowData row = new RowDataConverter(types).toRowData(engine);

        assertThat(row.getArity()).isEqualTo(16);
        assertThat(row.getBoolean(0)).isTrue();
        assertThat(row.getByte(1)).isEqualTo((byte) -7);
        assertThat(row.getShort(2)).isEqualTo((short) 300);
        assertThat(row.getInt(3)).isEqualTo(42);
        assertThat(row.getLong(4)).isEqualTo(1L << 40);
        assertThat(row.getFloat(5)).isEqualTo(1.5f);
        assertThat(row.getDouble(6)).isEqualTo(2.25);
        assertThat(row.getDecimal(7, 12, 2))
                .isEqualTo(DecimalData.fromBigDecimal(new BigDecimal("1234567890.12"), 12, 2));
        assertThat(row.getString(8)).isEqualTo(StringData.fromString("héllo"));
        assertThat(row.getString(9).toString()).isEqualTo("abc");
        assertThat(row.getBinary(10)).containsExactly(1, 2, 3);
        assertThat(row.getBinary(11)).containsExactly(9, 8);
        assertThat(row.getInt(12)).isEqualTo((int) days);
        assertThat(row.getInt(13))
                .isEqualTo(LocalTime.of(13, 14, 15, 123_000_000).toSecondOfDay() * 1000 + 123);
        assertThat(row.getTimestamp(14, 9))
                .isEqualTo(TimestampData.fromEpochMillis(1_700_000_000_123L, 456_789));
        // TIMESTAMP_LTZ(6): nanoseconds beyond the declared precision are dropped.
        assertThat(row.getTimestamp(15, 6))
                .isEqualTo(TimestampData.fromEpochMillis(1_700_000_000_123L, 456_000));
    }

    @Test
    void nullsStayNull() {
        GenericRowData row =
                new RowDataConverter(List.of(new BigIntType(), new VarCharType(5)))
                        .toRowData(new Object[] {null, null});
        assertThat(row.isNullAt(0)).isTrue();
        assertThat(row.isNullAt(1)).isTrue();
    }

    @Test
    void timestampsAreTruncatedToTheDeclaredPrecision() {
        TimestampValue t = new TimestampValue(1_234L, 567_891);
        assertThat(RowDataConverter.truncate(t, 9))
                .isEqualTo(TimestampData.fromEpochMillis(1_234L, 567_891));
        assertThat(RowDataConverter.truncate(t, 6))
                .isEqualTo(TimestampData.fromEpochMillis(1_234L, 567_000));
        assertThat(RowDataConverter.truncate(t, 3))
                .isEqualTo(TimestampData.fromEpochMillis(1_234L));
        assertThat(RowDataConverter.truncate(t, 0))
                .isEqualTo(TimestampData.fromEpochMillis(1_000L));
        // Before 1970 the truncation still goes towards the past, as for any wall-clock reading.
        assertThat(RowDataConverter.truncate(new TimestampValue(-1L, 5), 0))
                .isEqualTo(TimestampData.fromEpochMillis(-1000L));
        assertThat(
                        RowDataConverter.truncate(
                                        new TimestampValue(
                                                TimestampData.fromLocalDateTime(
                                                                LocalDateTime.of(
                                                                        2001,
                                                                        2,
                                                                        3,
                                                                        4,
                                                                        5,
                                                                        6,
                                                                        789_000_000))
                                                        .getMillisecond(),
                                                0),
                                        2)
                                .toLocalDateTime())
                .isEqualTo(LocalDateTime.of(2001, 2, 3, 4, 5, 6, 780_000_000));
    }

    @Test
    void decimalThatDoesNotFitIsAnError() {
        RowDataConverter converter = new RowDataConverter(List.of(new DecimalType(4, 2)));
        assertThatThrownBy(() -> converter.toRowData(new Object[] {new BigDecimal("12345.67")}))
                .isInstanceOf(ArithmeticException.class)
                .hasMessageContaining("12345.67")
                .hasMessageContaining("DECIMAL(4, 2)");
    }

    @Test
    void arityMismatchIsAnError() {
        assertThatThrownBy(
                        () ->
                                new RowDataConverter(List.of(new IntType()))
                                        .toRowData(new Object[] {1, 2}))
                .hasMessageContaining("2 values, expected 1");
    }
}
