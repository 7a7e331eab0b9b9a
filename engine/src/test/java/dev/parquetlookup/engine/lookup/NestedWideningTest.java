package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.Widening;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Widening inside nested types: a DuckDB file with {@code INTEGER[]}, {@code STRUCT(zip INTEGER,
 * score FLOAT)} and {@code MAP(VARCHAR, FLOAT)} and a parquet-java file with the same columns of
 * int64 and double parts are one table of {@code ARRAY<BIGINT>}, {@code ROW<zip BIGINT, score
 * DOUBLE>} and {@code MAP<STRING, DOUBLE>}. Every lookup equals DuckDB's answer over each file with
 * its columns cast to the wide types, NULLs at every level included, and the narrow file's values
 * come out as Long and Double. Parts that truly disagree are refused naming both files.
 */
class NestedWideningTest {

    @TempDir static Path tmp;

    private static Connection duck;

    private static final List<String> COLUMNS = List.of("k", "nums", "addr", "attrs");

    private static final List<String> WIDE =
            List.of(
                    "k",
                    "nums::BIGINT[]",
                    "addr::STRUCT(zip BIGINT, score DOUBLE)",
                    "attrs::MAP(VARCHAR, DOUBLE)");

    @BeforeAll
    static void openDuckDb() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
        }
    }

    @AfterAll
    static void closeDuckDb() throws SQLException {
        if (duck != null) {
            duck.close();
        }
    }

    /** DuckDB, narrow parts: keys 0, 3, 6, ...; NULL lists, elements, structs, fields, values. */
    private static void duckDbNarrow(Path file, String numsType) throws SQLException {
        try (Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT (i * 3)::BIGINT AS k,"
                            + " CASE WHEN i % 7 = 0 THEN NULL ELSE [CASE WHEN (x + i) % 4 = 0"
                            + " THEN NULL ELSE (x * i)::"
                            + numsType
                            + " END FOR x IN range(i % 4)] END AS nums,"
                            + " CASE WHEN i % 5 = 0 THEN NULL ELSE {'zip': CASE WHEN i % 3 = 0"
                            + " THEN NULL ELSE (i * 7)::INTEGER END, 'score': CASE WHEN i % 4 = 0"
                            + " THEN NULL ELSE (i * 0.25)::FLOAT END} END AS addr,"
                            + " CASE WHEN i % 6 = 0 THEN NULL ELSE map_from_entries([{'k': 'a' ||"
                            + " x, 'v': CASE WHEN x % 2 = 1 THEN NULL ELSE (x * 0.5 + i)::FLOAT"
                            + " END} FOR x IN range(i % 3)]) END AS attrs"
                            + " FROM range(3000) t(i) ORDER BY k) TO '"
                            + file
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 1000)");
        }
    }

    private static final String WIDE_SCHEMA =
            """
            message m {
              required int64 k;
              optional group nums (LIST) { repeated group list { optional int64 element; } }
              optional group addr { optional int64 zip; optional double score; }
              optional group attrs (MAP) {
                repeated group key_value { required binary key (STRING); optional double value; }
              }
            }
            """;

    /** parquet-java, wide parts: keys 0, 2, 4, ... (half of them also in the DuckDB file). */
    private static void parquetJavaWide(Path file) throws IOException {
        MessageType type = MessageTypeParser.parseMessageType(WIDE_SCHEMA);
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(type)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .withPageRowCountLimit(300)
                        .build()) {
            for (int i = 0; i < 4000; i++) {
                Group g = groups.newGroup().append("k", 2L * i);
                if (i % 5 != 0) {
                    Group nums = g.addGroup("nums");
                    for (int x = 0; x < i % 4; x++) {
                        Group element = nums.addGroup("list");
                        if ((x + i) % 3 != 0) {
                            element.append("element", 5_000_000_000L + x * i);
                        }
                    }
                }
                if (i % 7 != 0) {
                    Group addr = g.addGroup("addr");
                    if (i % 2 == 0) {
                        addr.append("zip", 3_000_000_000L + i);
                    }
                    if (i % 3 != 0) {
                        addr.append("score", i * 0.1);
                    }
                }
                if (i % 4 != 0) {
                    Group attrs = g.addGroup("attrs");
                    for (int x = 0; x < i % 3; x++) {
                        Group entry = attrs.addGroup("key_value").append("key", "b" + x);
                        if (x != 1) {
                            entry.append("value", i + x * 0.3);
                        }
                    }
                }
                writer.write(g);
            }
        }
    }

    @Test
    void narrowAndWideNestedPartsAreOneTableMatchingDuckDb() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("mixed"));
        Path narrow = dir.resolve("a-duckdb.parquet");
        Path wide = dir.resolve("b-java.parquet");
        duckDbNarrow(narrow, "INTEGER");
        parquetJavaWide(wide);
        TableConfig config = TableConfig.builder(dir.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            assertThat(table.columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .containsExactly(
                            "k BIGINT",
                            "nums ARRAY<BIGINT>",
                            "addr ROW<`zip` BIGINT, `score` DOUBLE>",
                            "attrs MAP<STRING, DOUBLE>");
            LookupPlan plan = table.plan(List.of("k"), COLUMNS);
            int both = 0;
            for (long k = -1; k < 9_010; k += 1) {
                List<String> expected = new ArrayList<>();
                expected.addAll(NestedAnswers.duckRows(duck, narrow, WIDE, k));
                expected.addAll(NestedAnswers.duckRows(duck, wide, WIDE, k));
                List<Object[]> rows = table.lookup(plan, new Object[] {k});
                assertThat(NestedAnswers.canonical(rows)).as("k = %d", k).isEqualTo(expected);
                both += rows.size() == 2 ? 1 : 0;
                for (Object[] row : rows) {
                    assertWide(row);
                }
                if (k > 600) {
                    k += 97; // every key near the start, a sample after
                }
            }
            assertThat(both).as("keys in both files").isGreaterThan(50);
        }
    }

    /**
     * The values are in the wide types' representation: Long and Double, never Integer or Float.
     */
    private static void assertWide(Object[] row) {
        if (row[1] instanceof List<?> nums) {
            assertThat(nums).allMatch(e -> e == null || e instanceof Long);
        }
        if (row[2] instanceof Object[] addr) {
            if (addr[1] != null) {
                assertThat(addr[1]).isInstanceOf(Double.class);
            }
            if (addr[0] != null) {
                assertThat(addr[0]).isInstanceOf(Long.class);
            }
        }
        if (row[3] instanceof Map<?, ?> attrs) {
            assertThat(attrs.values()).allMatch(v -> v == null || v instanceof Double);
        }
    }

    @Test
    void commonTypesOfNestedParts() {
        ValueType i = ValueType.of(ValueType.Kind.INT);
        ValueType l = ValueType.of(ValueType.Kind.BIGINT);
        ValueType f = ValueType.of(ValueType.Kind.FLOAT);
        ValueType d = ValueType.of(ValueType.Kind.DOUBLE);
        ValueType s = ValueType.of(ValueType.Kind.STRING);
        assertThat(Widening.common(ValueType.array(i), ValueType.array(l)))
                .isEqualTo(ValueType.array(l));
        assertThat(Widening.common(ValueType.map(s, f), ValueType.map(s, d)))
                .isEqualTo(ValueType.map(s, d));
        assertThat(
                        Widening.common(
                                ValueType.array(ValueType.map(i, ValueType.array(f))),
                                ValueType.array(ValueType.map(l, ValueType.array(d)))))
                .isEqualTo(ValueType.array(ValueType.map(l, ValueType.array(d))));
        ValueType narrowRow =
                ValueType.row(List.of(new ValueType.Field("a", i), new ValueType.Field("b", f)));
        ValueType wideRow =
                ValueType.row(List.of(new ValueType.Field("a", l), new ValueType.Field("b", d)));
        assertThat(Widening.common(narrowRow, wideRow)).isEqualTo(wideRow);
        assertThat(Widening.changesValues(narrowRow, wideRow)).isTrue();
        assertThat(Widening.changesValues(wideRow, wideRow)).isFalse();
        // Other names, another order, another arity, a part without a common type: none.
        assertThat(
                        Widening.common(
                                narrowRow,
                                ValueType.row(
                                        List.of(
                                                new ValueType.Field("b", d),
                                                new ValueType.Field("a", l)))))
                .isNull();
        assertThat(Widening.common(narrowRow, ValueType.row(List.of(new ValueType.Field("a", l)))))
                .isNull();
        assertThat(Widening.common(ValueType.array(i), ValueType.array(s))).isNull();
        assertThat(Widening.common(ValueType.array(i), ValueType.map(i, i))).isNull();
        // Values: new containers of the wide representation; nulls stay at every level.
        Object[] row = {1, null};
        Map<Object, Object> map = new java.util.LinkedHashMap<>();
        map.put(1, row);
        map.put(2, null);
        Object wide =
                Widening.widen(
                        java.util.Arrays.asList(map, null),
                        ValueType.array(ValueType.map(l, wideRow)));
        assertThat(NestedAnswersText.of(wide)).isEqualTo("[{1L=row[1L, null], 2L=null}, null]");
        assertThat(row[0]).isEqualTo(1); // the input is left as it was
    }

    /** Values with their Java classes shown: {@code 1L} for a Long, {@code 1} for an Integer. */
    private static final class NestedAnswersText {
        static String of(Object v) {
            if (v == null) {
                return "null";
            }
            if (v instanceof Long x) {
                return x + "L";
            }
            if (v instanceof List<?> list) {
                List<String> parts = new ArrayList<>();
                list.forEach(e -> parts.add(of(e)));
                return "[" + String.join(", ", parts) + "]";
            }
            if (v instanceof Object[] fields) {
                return "row" + of(java.util.Arrays.asList(fields));
            }
            if (v instanceof Map<?, ?> m) {
                List<String> parts = new ArrayList<>();
                m.forEach((k, x) -> parts.add(of(k) + "=" + of(x)));
                return "{" + String.join(", ", parts) + "}";
            }
            return v.toString();
        }
    }

    @Test
    void partsThatDisagreeAreRefusedNamingBothFiles() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("disagree"));
        duckDbNarrow(dir.resolve("a-duckdb.parquet"), "VARCHAR");
        parquetJavaWide(dir.resolve("b-java.parquet"));
        TableConfig config = TableConfig.builder(dir.toString()).sortKey(List.of("k")).build();
        assertThatThrownBy(() -> DimensionTable.open(config).close())
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("nums")
                .hasMessageContaining("a-duckdb.parquet")
                .hasMessageContaining("b-java.parquet");
    }
}
