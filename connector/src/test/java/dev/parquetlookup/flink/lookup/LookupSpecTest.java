package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LookupSpecTest {

    private static final List<String> NAMES = List.of("id", "country", "score");
    private static final List<LogicalType> TYPES =
            List.of(new BigIntType(), new VarCharType(2), new DoubleType());

    @Test
    void keysBeyondTheSortPrefixAreComparedOnTheRows() {
        // ON o.cid = c.id AND c.country = 'DE', files sorted by id.
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("id", "country"), List.of("id"));
        GenericRowData key = GenericRowData.of(1L, StringData.fromString("DE"));

        Object[] residual = spec.residualValues(key);

        assertThat(spec.residualKeyPositions()).isNotEmpty();
        assertThat(spec.normalizer().normalize(key)).containsExactly(1L);
        assertThat(spec.matchesResidual(residual, row(1L, "DE", 0.5))).isTrue();
        assertThat(spec.matchesResidual(residual, row(1L, "FR", 0.5))).isFalse();
        assertThat(spec.matchesResidual(residual, row(1L, null, 0.5))).isFalse();
    }

    @Test
    void nullResidualKeyMatchesNothing() {
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("id", "country"), List.of("id"));
        assertThat(spec.residualValues(GenericRowData.of(1L, null))).isNull();
    }

    @Test
    void withoutResidualEveryRowMatches() {
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("id"), List.of("id"));
        Object[] residual = spec.residualValues(GenericRowData.of(1L));
        assertThat(spec.residualKeyPositions()).isEmpty();
        assertThat(residual).isEmpty();
        assertThat(spec.matchesResidual(residual, row(1L, null, null))).isTrue();
    }

    @Test
    void floatingPointResidualKeysUseSqlEquality() {
        assertThat(LookupSpec.sqlEquals(-0.0, 0.0)).isTrue();
        assertThat(LookupSpec.sqlEquals(Double.NaN, Double.NaN)).isFalse();
        assertThat(LookupSpec.sqlEquals(-0.0f, 0.0f)).isTrue();
        assertThat(LookupSpec.sqlEquals(Float.NaN, Float.NaN)).isFalse();
        assertThat(LookupSpec.sqlEquals(new byte[] {1}, new byte[] {1})).isTrue();

        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("id", "score"), List.of("id"));
        Object[] zero = spec.residualValues(GenericRowData.of(1L, -0.0));
        assertThat(spec.matchesResidual(zero, row(1L, "DE", 0.0))).isTrue();
        Object[] nan = spec.residualValues(GenericRowData.of(1L, Double.NaN));
        assertThat(spec.matchesResidual(nan, row(1L, "DE", Double.NaN))).isFalse();
    }

    @Test
    void isSerializable() throws Exception {
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("country", "id"), List.of("id"));
        LookupSpec copy = InstantiationUtil.clone(spec);
        assertThat(copy).isEqualTo(spec);
        assertThat(copy.normalizer().normalize(GenericRowData.of(StringData.fromString("x"), 3L)))
                .containsExactly(3L);
    }

    /** A row as the engine returns it (strings as UTF-8 bytes), before conversion. */
    private static Object[] row(long id, String country, Double score) {
        return new Object[] {
            id, country == null ? null : country.getBytes(StandardCharsets.UTF_8), score
        };
    }

    @Test
    void residualKeysCompareAsTheDeclaredTypes() {
        // A TIMESTAMP(3) residual key: the file's microseconds are not part of the SQL value.
        List<String> names = List.of("id", "at");
        List<LogicalType> types = List.of(new BigIntType(), new TimestampType(3));
        LookupSpec spec = LookupSpec.of(names, types, List.of("id", "at"), List.of("id"));
        Object[] residual =
                spec.residualValues(
                        GenericRowData.of(1L, TimestampData.fromEpochMillis(1_700_000_000_123L)));

        assertThat(spec.matchesResidual(residual, new Object[] {1L, micros(123_456)})).isTrue();
        assertThat(spec.matchesResidual(residual, new Object[] {1L, micros(124_000)})).isFalse();
        assertThat(spec.matchesResidual(residual, new Object[] {1L, null})).isFalse();
    }

    private static TimestampValue micros(int microsOfSecond) {
        return new TimestampValue(
                1_700_000_000_000L + microsOfSecond / 1000, (microsOfSecond % 1000) * 1000);
    }
}
