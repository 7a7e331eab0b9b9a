package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.IntType;
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
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyNormalizerTest {

    @Test
    void reordersThePlannersKeyIntoSortKeyOrder() {
        // Table (name STRING, g INT, v DOUBLE) sorted by (g, name): the planner's key row is
        // (name, g), in table order.
        KeyNormalizer normalizer =
                new KeyNormalizer(
                        List.of("name", "g"),
                        List.of(new VarCharType(VarCharType.MAX_LENGTH), new IntType()),
                        List.of("g", "name"));

        Object[] key = normalizer.normalize(GenericRowData.of(StringData.fromString("bob"), 7));

        assertThat(normalizer.keyColumns()).containsExactly("g", "name");
        assertThat(key).hasSize(2);
        assertThat(key[0]).isEqualTo(7);
        assertThat((byte[]) key[1]).isEqualTo("bob".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void leavesResidualColumnsOut() {
        KeyNormalizer normalizer =
                new KeyNormalizer(
                        List.of("id", "country"),
                        List.of(new BigIntType(), new VarCharType(2)),
                        List.of("id"));
        assertThat(normalizer.normalize(GenericRowData.of(5L, StringData.fromString("DE"))))
                .containsExactly(5L);
    }

    @Test
    void nullComponentMatchesNothing() {
        KeyNormalizer normalizer =
                new KeyNormalizer(List.of("id"), List.of(new BigIntType()), List.of("id"));
        assertThat(normalizer.normalize(GenericRowData.of((Object) null))).isNull();
    }

    @Test
    void convertsKeyTypesToTheEngineRepresentation() {
        KeyNormalizer normalizer =
                new KeyNormalizer(
                        List.of("d", "day", "ts", "b"),
                        List.of(
                                new DecimalType(10, 3),
                                new DateType(),
                                new TimestampType(6),
                                new VarBinaryType(10)),
                        List.of("d", "day", "ts", "b"));
        Object[] key =
                normalizer.normalize(
                        GenericRowData.of(
                                DecimalData.fromBigDecimal(new BigDecimal("1.500"), 10, 3),
                                19_000,
                                TimestampData.fromEpochMillis(12L, 345_000),
                                new byte[] {1, 2}));
        assertThat(key[0]).isEqualTo(new BigDecimal("1.500"));
        assertThat(key[1]).isEqualTo(19_000);
        assertThat(key[2]).isEqualTo(new TimestampValue(12L, 345_000));
        assertThat((byte[]) key[3]).containsExactly(1, 2);
    }

    @Test
    void prefixColumnMissingFromTheKeysIsAProgrammingError() {
        assertThatThrownBy(
                        () ->
                                new KeyNormalizer(
                                        List.of("name"),
                                        List.of(new VarCharType(3)),
                                        List.of("g", "name")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sort-key column g is not among the key columns [name]");
    }

    @Test
    void aFlinkValueConvertsAsTheSameValueInARow() {
        // LookupSpec.matchesResidual converts values without a row around them.
        List<Object[]> cases =
                List.of(
                        new Object[] {new BigIntType(), 42L},
                        new Object[] {new IntType(), 7},
                        new Object[] {new SmallIntType(), 3},
                        new Object[] {new TinyIntType(), -2},
                        new Object[] {new BooleanType(), true},
                        new Object[] {new DoubleType(), -0.5},
                        new Object[] {new DateType(), 19_000},
                        new Object[] {new TimeType(3), 3_723_456_789_000L},
                        new Object[] {new VarCharType(10), "köln".getBytes(StandardCharsets.UTF_8)},
                        new Object[] {new VarBinaryType(4), new byte[] {1, 2}},
                        new Object[] {new DecimalType(10, 2), new BigDecimal("12.34")},
                        new Object[] {
                            new TimestampType(3), new TimestampValue(1_700_000L, 456_789)
                        });
        for (Object[] c : cases) {
            LogicalType type = (LogicalType) c[0];
            Object flink = RowDataConverter.toFlink(c[1], type);
            Object fromRow = KeyNormalizer.toEngine(GenericRowData.of(flink), 0, type);
            assertThat(KeyNormalizer.toEngine(flink, type))
                    .as(type.asSummaryString())
                    .usingRecursiveComparison()
                    .isEqualTo(fromRow);
        }
    }
}
