package dev.parquetlookup.writer;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Field;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.format.SortingColumn;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link LookupFileWriter} with ARRAY, MAP and ROW columns: NULLs at every level round-trip through
 * the engine, the sort key's column chunk index counts the leaves of nested columns before it, and
 * values that do not fit are refused naming the column.
 */
class NestedColumnsWriterTest {

    @TempDir Path tmp;

    private static final ValueType TAGS = ValueType.array(ValueType.of(Kind.STRING));
    private static final ValueType ATTRS =
            ValueType.map(ValueType.of(Kind.STRING), ValueType.of(Kind.BIGINT));
    private static final ValueType DEEP =
            ValueType.array(
                    ValueType.row(
                            List.of(
                                    new Field("a", ValueType.of(Kind.INT)),
                                    new Field(
                                            "xs",
                                            ValueType.array(new ValueType(Kind.DECIMAL, 10, 2))))));

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.optional("tags", TAGS),
                    ColumnSpec.optional("attrs", ATTRS),
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("deep", DEEP));

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Row i: NULLs and empties at every level, in turn. */
    private static Object[] row(long k) {
        int i = (int) k;
        List<Object> tags = i % 5 == 0 ? null : new ArrayList<>(Arrays.asList(utf8("t" + i), null));
        if (tags != null && i % 5 == 1) {
            tags.clear(); // an empty list
        }
        Map<Object, Object> attrs = null;
        if (i % 4 != 0) {
            attrs = new LinkedHashMap<>();
            for (int x = 0; x < i % 3; x++) {
                attrs.put(utf8("a" + x), x == 1 ? null : (long) x * i);
            }
        }
        List<Object> deep = null;
        if (i % 6 != 0) {
            deep = new ArrayList<>();
            deep.add(null);
            deep.add(new Object[] {null, null});
            deep.add(
                    new Object[] {
                        i, Arrays.asList(BigDecimal.valueOf(i, 2), null, BigDecimal.valueOf(-i, 2))
                    });
            deep.add(new Object[] {i, List.of()});
        }
        return new Object[] {tags, attrs, k, deep};
    }

    @Test
    void nullsAtEveryLevelRoundTripAndTheKeyIndexCountsLeaves() throws Exception {
        Path file = tmp.resolve("nested.parquet");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        COLUMNS,
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(16).build())) {
            for (long k = 0; k < 500; k++) {
                writer.write(row(k));
            }
        }
        // tags has one leaf, attrs two: k is column chunk 3.
        assertThat(ParquetTestFiles.rawFooter(file).getRow_groups().get(0).getSorting_columns())
                .containsExactly(new SortingColumn(3, false, true));
        try (DimensionTable table =
                DimensionTable.open(TableConfig.builder(file.toString()).build())) {
            assertThat(table.columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .containsExactly(
                            "tags ARRAY<STRING>",
                            "attrs MAP<STRING, BIGINT>",
                            "k BIGINT",
                            "deep ARRAY<ROW<`a` INT, `xs` ARRAY<DECIMAL(10, 2)>>>");
            LookupPlan plan = table.plan(List.of("k"), List.of("tags", "attrs", "k", "deep"));
            for (long k = 0; k < 500; k++) {
                List<Object[]> rows = table.lookup(plan, new Object[] {k});
                assertThat(rows).hasSize(1);
                assertThat(text(rows.get(0))).as("k = %d", k).isEqualTo(text(row(k)));
            }
        }
    }

    /** A comparable text of nested values (byte[] as UTF-8, Object[] as lists). */
    private static String text(Object v) {
        if (v instanceof byte[] b) {
            return "'" + new String(b, StandardCharsets.UTF_8) + "'";
        }
        if (v instanceof Object[] row) {
            return text(Arrays.asList(row));
        }
        if (v instanceof List<?> list) {
            List<String> parts = new ArrayList<>();
            for (Object e : list) {
                parts.add(text(e));
            }
            return parts.toString();
        }
        if (v instanceof Map<?, ?> map) {
            List<String> parts = new ArrayList<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                parts.add(text(e.getKey()) + "=" + text(e.getValue()));
            }
            return "map" + parts;
        }
        return String.valueOf(v);
    }

    @Test
    void valuesThatDoNotFitAreRefusedNamingTheColumn() throws IOException {
        Path file = tmp.resolve("bad.parquet");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), COLUMNS, List.of("k"), WriterOptions.builder().build())) {
            Map<Object, Object> nullKey = new LinkedHashMap<>();
            nullKey.put(null, 1L);
            assertThatThrownBy(() -> writer.write(new Object[] {null, nullKey, 1L, null}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'attrs'")
                    .hasMessageContaining("map key is null");
            assertThatThrownBy(() -> writer.write(new Object[] {"x", null, 1L, null}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'tags'")
                    .hasMessageContaining("java.util.List");
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            new Object[] {
                                                null, null, 1L, List.<Object[]>of(new Object[] {1})
                                            }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'deep'")
                    .hasMessageContaining("2 fields");
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            new Object[] {
                                                null,
                                                null,
                                                1L,
                                                List.<Object[]>of(
                                                        new Object[] {
                                                            1, List.of(new BigDecimal("1.234"))
                                                        })
                                            }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'deep'")
                    .hasMessageContaining("rounding");
            writer.write(row(1)); // still usable
        }
    }

    @Test
    void aNestedSortKeyIsRefused() {
        assertThatThrownBy(
                        () ->
                                LookupFileWriter.open(
                                        tmp.resolve("x.parquet").toString(),
                                        COLUMNS,
                                        List.of("tags"),
                                        WriterOptions.builder().build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sort key column 'tags' is nested");
    }
}
