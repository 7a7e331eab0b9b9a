package dev.parquetlookup.flink.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A SQL lookup join projecting nested columns (ARRAY, MAP, ROW, an ARRAY of ROWs holding an ARRAY)
 * and fields of them ({@code d.addr.city}, {@code d.tags[1]}, {@code d.attrs['a']}) from a file
 * written by DuckDB, NULLs at every level, and conditions on them; a nested sort key is refused at
 * planning.
 */
class ParquetLookupNestedITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir static Path dir;

    static Path file;

    static final String DDL =
            "k BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, INT>, addr ROW<city STRING, zip INT>,"
                    + " items ARRAY<ROW<a INT, b ARRAY<STRING>>>, v STRING";

    @BeforeAll
    static void writeDimension() throws Exception {
        file = dir.resolve("nested.parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    """
                    COPY (SELECT
                      (i * 2)::BIGINT AS k,
                      CASE WHEN i = 3 THEN NULL WHEN i = 4 THEN []::VARCHAR[]
                           ELSE ['t' || i, NULL, 'u' || i] END AS tags,
                      CASE WHEN i = 5 THEN NULL
                           ELSE MAP {'a': i::INTEGER, 'b': NULL::INTEGER} END AS attrs,
                      CASE WHEN i = 6 THEN NULL
                           ELSE {'city': 'c' || i,
                                 'zip': CASE WHEN i = 7 THEN NULL ELSE i * 10 END::INTEGER}
                           END AS addr,
                      CASE WHEN i = 8 THEN NULL
                           ELSE [{'a': i::INTEGER, 'b': ['x' || i, NULL]}, NULL] END AS items,
                      'v' || i AS v
                    FROM range(10) t(i) ORDER BY k) TO '%s' (FORMAT parquet)
                    """
                            .formatted(file));
        }
    }

    private static TableEnvironment tEnv(String ddl) {
        return tEnv(ddl, "");
    }

    private static TableEnvironment tEnv(String ddl, String options) {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        List.of(
                                Row.of(1L, 2L),
                                Row.of(2L, 6L),
                                Row.of(3L, 8L),
                                Row.of(4L, 10L),
                                Row.of(5L, 12L),
                                Row.of(6L, 14L),
                                Row.of(7L, 16L),
                                Row.of(8L, 7L)),
                        new String[] {"eid", "id"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + ddl
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + file.toUri()
                        + "', 'sort-key' = 'k'"
                        + options
                        + ")");
        return tEnv;
    }

    @ParameterizedTest(name = "options [{0}]")
    @ValueSource(strings = {"", ", 'lookup.async' = 'false'", ", 'lookup.cache' = 'FULL'"})
    void lookupJoinProjectsNestedColumnsAndTheirFields(String options) throws Exception {
        List<Row> rows =
                SqlTestSupport.collect(
                        tEnv(DDL, options),
                        "SELECT e.eid, d.tags, d.attrs, d.addr, d.items, d.addr.city, d.tags[1],"
                                + " d.attrs['a'] FROM events AS e LEFT JOIN dim FOR SYSTEM_TIME"
                                + " AS OF e.proc AS d ON e.id = d.k");
        Map<Long, String> actual = new HashMap<>();
        for (Row r : rows) {
            actual.put((Long) r.getField(0), describe(r));
        }
        Map<Long, String> expected = new HashMap<>();
        expected.put(1L, expected(1));
        expected.put(2L, expected(3));
        expected.put(3L, expected(4));
        expected.put(4L, expected(5));
        expected.put(5L, expected(6));
        expected.put(6L, expected(7));
        expected.put(7L, expected(8));
        expected.put(8L, "[8, null, null, null, null, null, null, null]");
        assertThat(rows).hasSize(8);
        assertThat(actual).isEqualTo(expected);
    }

    /** The joined row of dimension row {@code i} (key {@code 2 * i}), as {@link #describe}. */
    private static String expected(int i) {
        long eid = i == 1 ? 1 : i - 1;
        String tags = i == 3 ? "null" : i == 4 ? "[]" : "[t" + i + ", null, u" + i + "]";
        String attrs = i == 5 ? "null" : "{a=" + i + ", b=null}";
        String addr = i == 6 ? "null" : "+I[c" + i + ", " + (i == 7 ? "null" : i * 10) + "]";
        String items = i == 8 ? "null" : "[+I[" + i + ", [x" + i + ", null]], null]";
        String city = i == 6 ? "null" : "c" + i;
        String first = i == 3 || i == 4 ? "null" : "t" + i;
        String a = i == 5 ? "null" : String.valueOf(i);
        return List.of(String.valueOf(eid), tags, attrs, addr, items, city, first, a).toString();
    }

    /** Fields as text, arrays (Flink's external ARRAY values) as lists. */
    private static String describe(Row r) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < r.getArity(); i++) {
            out.add(text(r.getField(i)));
        }
        return out.toString();
    }

    private static String text(Object v) {
        if (v instanceof Object[] a) {
            List<String> out = new ArrayList<>();
            for (Object e : a) {
                out.add(text(e));
            }
            return out.toString();
        }
        if (v instanceof Row row) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < row.getArity(); i++) {
                out.add(text(row.getField(i)));
            }
            return "+I" + out;
        }
        if (v instanceof Map<?, ?> m) {
            return new java.util.TreeMap<>(m).toString();
        }
        return String.valueOf(v);
    }

    @Test
    void aNestedSortKeyIsRefusedAtPlanning() {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        List.of(Row.of(1L, 2L)),
                        new String[] {"eid", "id"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + DDL
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + file.toUri()
                        + "', 'sort-key' = 'addr')");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessageContaining("addr")
                .hasMessageContaining("nested");
    }

    @Test
    void aConditionOnANestedColumnFiltersTheLookedUpRows() throws Exception {
        List<Row> rows =
                SqlTestSupport.collect(
                        tEnv(DDL),
                        "SELECT e.eid, d.v FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.proc"
                                + " AS d ON e.id = d.k AND (d.addr.city = 'c3' OR"
                                + " CARDINALITY(d.tags) = 0)");
        assertThat(rows).containsExactlyInAnyOrder(Row.of(2L, "v3"), Row.of(3L, "v4"));
    }

    @Test
    void aMismatchedNestedDeclarationIsRefusedWithTheTypeToDeclare() {
        TableEnvironment tEnv =
                tEnv("k BIGINT, addr ROW<town STRING, zip INT>, items ARRAY<ROW<a INT>>");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessageContaining("column 'addr': Parquet type 'optional group addr {")
                .hasMessageContaining("declare it as ROW<`city` STRING, `zip` INT>.")
                .hasMessageContaining("declare it as ARRAY<ROW<`a` INT, `b` ARRAY<STRING>>>.");
    }
}
