package dev.parquetlookup.flink.datastream;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link ParquetEnrichment} returning nested columns of a DuckDB-written file as Java values (List,
 * Map, Row readable by field name), compared with DuckDB's answer for the same keys; a nested key
 * column is refused when the function is built.
 */
class ParquetEnrichmentNestedITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir static Path dir;

    static String path;

    static final String SELECT =
            """
            SELECT (i // 2 * 2)::BIGINT AS k,
              CASE WHEN i % 7 = 0 THEN NULL
                   ELSE [CASE WHEN (x + i) % 3 = 0 THEN NULL ELSE 't' || x END
                         FOR x IN range(i % 4)] END AS tags,
              CASE WHEN i % 5 = 0 THEN NULL
                   ELSE map_from_entries([{'k': 'a' || x, 'v': CASE WHEN x = 1 THEN NULL
                                                               ELSE (x * i)::INTEGER END}
                                          FOR x IN range(i % 3)]) END AS attrs,
              CASE WHEN i % 6 = 0 THEN NULL
                   ELSE {'city': CASE WHEN i % 4 = 0 THEN NULL ELSE 'c' || i END,
                         'zips': [i::INTEGER, NULL]} END AS addr
            FROM range(400) t(i)
            """;

    @BeforeAll
    static void writeDimension() throws Exception {
        path = dir.resolve("nested.parquet").toString();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY ("
                            + SELECT
                            + " ORDER BY k) TO '"
                            + path
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 64)");
        }
    }

    @Test
    void nestedColumnsComeBackAsListsMapsAndRows() throws Exception {
        List<Long> keys = new ArrayList<>();
        for (long k = -1; k < 402; k += 3) {
            keys.add(k);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<Long> events = env.fromData(keys);
        ParquetEnrichmentFunction<Long, String> function =
                ParquetEnrichment.<Long>from(path)
                        .sortKey("k")
                        .key(k -> k)
                        .columns("k", "tags", "attrs", "addr")
                        .join(
                                (Long k, Row d) ->
                                        d == null
                                                ? k + " miss"
                                                : text(d.getField("k"))
                                                        + " "
                                                        + text(d.getField("tags"))
                                                        + " "
                                                        + text(d.getField("attrs"))
                                                        + " "
                                                        + text(d.getField("addr"))
                                                        + city(d))
                        .returns(String.class)
                        .build();
        List<String> actual = new ArrayList<>();
        try (CloseableIterator<String> it =
                AsyncDataStream.unorderedWait(events, function, 30, TimeUnit.SECONDS, 20)
                        .executeAndCollect()) {
            it.forEachRemaining(actual::add);
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(duckAnswer(keys));
    }

    /** The ROW's field read by name, as a DataStream job would. */
    private static String city(Row d) {
        Row addr = (Row) d.getField("addr");
        return addr == null ? "" : " city=" + addr.getField("city");
    }

    private static List<String> duckAnswer(List<Long> keys) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            for (long k : keys) {
                try (ResultSet rs =
                        st.executeQuery(
                                "SELECT k, tags, attrs, addr FROM read_parquet('"
                                        + path
                                        + "', file_row_number = true) WHERE k = "
                                        + k
                                        + " ORDER BY file_row_number")) {
                    boolean any = false;
                    while (rs.next()) {
                        any = true;
                        java.sql.Struct addr = (java.sql.Struct) rs.getObject(4);
                        out.add(
                                text(rs.getObject(1))
                                        + " "
                                        + text(rs.getObject(2))
                                        + " "
                                        + text(rs.getObject(3))
                                        + " "
                                        + text(addr)
                                        + (addr == null ? "" : " city=" + addr.getAttributes()[0]));
                    }
                    if (!any) {
                        out.add(k + " miss");
                    }
                }
            }
        }
        return out;
    }

    /** One text form for DataStream values and DuckDB's JDBC values. */
    static String text(Object v) {
        try {
            if (v instanceof java.sql.Array a) {
                v = java.util.Arrays.asList((Object[]) a.getArray());
            }
            if (v instanceof java.sql.Struct s) {
                v = s.getAttributes();
            }
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        if (v instanceof Object[] a) {
            List<String> out = new ArrayList<>();
            for (Object e : a) {
                out.add(text(e));
            }
            return "row" + out;
        }
        if (v instanceof List<?> l) {
            List<String> out = new ArrayList<>();
            for (Object e : l) {
                out.add(text(e));
            }
            return out.toString();
        }
        if (v instanceof Row r) {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < r.getArity(); i++) {
                out.add(text(r.getField(i)));
            }
            return "row" + out;
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, String> sorted = new TreeMap<>();
            m.forEach((key, value) -> sorted.put(text(key), text(value)));
            return "map" + sorted;
        }
        return String.valueOf(v);
    }

    @Test
    void aNestedKeyColumnIsRefused() {
        assertThatThrownBy(
                        () ->
                                ParquetEnrichment.<Long>from(path)
                                        .sortKey("k")
                                        .key("k", k -> k)
                                        .key("tags", k -> List.of("x"))
                                        .columns("k")
                                        .join((Long k, Row d) -> "")
                                        .returns(String.class)
                                        .build())
                .hasMessageContaining("tags")
                .hasMessageContaining("cannot be a lookup key");
    }
}
