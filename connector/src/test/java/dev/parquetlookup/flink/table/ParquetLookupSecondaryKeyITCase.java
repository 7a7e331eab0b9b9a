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

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SQL lookup joins on columns that are not the sort key (secondary keys) of a table sorted by
 * {@code id}: a non-unique e-mail address with NULL rows, a composite {@code (country, n)} key, a
 * BIGINT and a DATE column; events with NULL keys and keys no row has. Every joined row is compared
 * with DuckDB's own join over the same files. With {@code 'secondary-keys' = 'refuse'} the join is
 * refused at planning.
 */
class ParquetLookupSecondaryKeyITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir static Path dir;

    private static Path table;

    @BeforeAll
    static void writeTable() throws Exception {
        table = Files.createDirectory(dir.resolve("dim"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            for (int f = 0; f < 2; f++) {
                st.execute(
                        "COPY (SELECT i::BIGINT AS id,"
                                + " CASE WHEN i % 40 = 0 THEN NULL"
                                + " ELSE 'user' || (i % 3000) || '@example.org' END AS email,"
                                + " (['DE', 'FR', 'US'])[1 + i % 3] AS country,"
                                + " (i % 11)::INTEGER AS n,"
                                + " (i % 997)::BIGINT * 1000 AS code,"
                                + " DATE '2021-01-01' + (i % 500)::INTEGER AS d,"
                                + " 'name-' || i AS name"
                                + " FROM range("
                                + (f * 4000)
                                + ", "
                                + (f * 4000 + 4000)
                                + ") t(i) ORDER BY i) TO '"
                                + table.resolve("part-" + f + ".parquet")
                                + "' (FORMAT parquet, ROW_GROUP_SIZE 1000)");
            }
        }
    }

    private static TableEnvironment tEnv(List<Row> events, String extra) {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "email", "country", "n", "code", "d"},
                        new TypeInformation<?>[] {
                            Types.LONG,
                            Types.STRING,
                            Types.STRING,
                            Types.INT,
                            Types.LONG,
                            Types.LOCAL_DATE
                        });
        SqlTestSupport.createDim(
                tEnv,
                "id BIGINT, email STRING, country STRING, n INT, code BIGINT, d DATE, name STRING",
                table,
                dir.resolve("local"),
                extra);
        return tEnv;
    }

    private static List<Row> events() {
        List<Row> events = new ArrayList<>();
        Random random = new Random(27);
        for (long e = 0; e < 120; e++) {
            int i = random.nextInt(8200); // some beyond the table: keys no row has
            events.add(
                    Row.of(
                            e,
                            e % 17 == 0 ? null : "user" + (i % 3000) + "@example.org",
                            e % 19 == 0
                                    ? null
                                    : (e % 23 == 0 ? "XX" : List.of("DE", "FR", "US").get(i % 3)),
                            i % 11 + (e % 29 == 0 ? 100 : 0),
                            (long) (i % 1100) * 1000,
                            LocalDate.of(2021, 1, 1).plusDays(i % 520)));
        }
        return events;
    }

    /** DuckDB's LEFT JOIN of the events on {@code condition} (over {@code e} and {@code d}). */
    private static List<Row> expected(List<Row> events, String condition) throws Exception {
        List<Row> expected = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "CREATE TABLE e (eid BIGINT, email VARCHAR, country VARCHAR, n INTEGER,"
                            + " code BIGINT, d DATE)");
            try (PreparedStatement insert =
                    c.prepareStatement("INSERT INTO e VALUES (?, ?, ?, ?, ?, ?)")) {
                for (Row event : events) {
                    for (int i = 0; i < 6; i++) {
                        Object v = event.getField(i);
                        insert.setObject(
                                i + 1, v instanceof LocalDate ld ? java.sql.Date.valueOf(ld) : v);
                    }
                    insert.execute();
                }
            }
            try (ResultSet rs =
                    st.executeQuery(
                            "SELECT e.eid, d.id, d.name FROM e LEFT JOIN read_parquet('"
                                    + table
                                    + "/*.parquet') d ON "
                                    + condition)) {
                while (rs.next()) {
                    long id = rs.getLong(2);
                    Long found = rs.wasNull() ? null : id;
                    expected.add(Row.of(rs.getLong(1), found, rs.getString(3)));
                }
            }
        }
        return expected;
    }

    @Test
    void joinsOnOtherColumnsMatchDuckDb() throws Exception {
        List<Row> events = events();
        List<String> conditions =
                List.of(
                        "e.email = d.email",
                        "e.country = d.country AND e.n = d.n",
                        "e.code = d.code",
                        "e.d = d.d");
        for (String condition : conditions) {
            List<Row> expected = expected(events, condition);
            List<Row> rows =
                    SqlTestSupport.collect(
                            tEnv(events, ""),
                            "SELECT e.eid, d.id, d.name FROM events AS e LEFT JOIN dim FOR"
                                    + " SYSTEM_TIME AS OF e.proc AS d ON "
                                    + condition);
            // As sorted text: AssertJ's any-order comparison of 30k Rows is quadratic (20 s).
            assertThat(sorted(rows)).as(condition).isEqualTo(sorted(expected));
            // Several rows per key, and misses (NULL keys, keys no row has).
            assertThat(expected).as(condition).hasSizeGreaterThan(events.size());
            assertThat(expected).as(condition).anyMatch(r -> r.getField(1) == null);
        }
        try (Stream<Path> indexes = Files.list(dir.resolve("local/parquet-lookup-index"))) {
            // Two files, four key column sets.
            assertThat(indexes.filter(p -> p.toString().endsWith(".pli"))).hasSize(8);
        }
    }

    private static List<String> sorted(List<Row> rows) {
        return rows.stream().map(Row::toString).sorted().toList();
    }

    @Test
    void refuseKeepsTheRefusalAtPlanning() {
        TableEnvironment tEnv = tEnv(events(), ", 'secondary-keys' = 'refuse'");
        assertThatThrownBy(
                        () ->
                                SqlTestSupport.collect(
                                        tEnv,
                                        "SELECT e.eid, d.name FROM events AS e JOIN dim FOR"
                                                + " SYSTEM_TIME AS OF e.proc AS d ON e.email ="
                                                + " d.email"))
                .rootCause()
                .hasMessageContaining("'secondary-keys' = 'refuse'")
                .hasMessageContaining("Fix: join on [id]");
    }
}
