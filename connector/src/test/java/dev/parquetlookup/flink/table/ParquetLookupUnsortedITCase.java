package dev.parquetlookup.flink.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A SQL lookup join over a table whose files are not sorted by the key (DuckDB exports of shuffled
 * rows, several row groups, one key twice): served through key indexes by default, every joined row
 * compared with DuckDB's own answer; with {@code 'unsorted-files' = 'refuse'} the table is refused
 * with the clear message of before.
 */
class ParquetLookupUnsortedITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir Path dir;

    private Path shuffledTable() throws Exception {
        Path table = Files.createDirectory(dir.resolve("dim"));
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            for (int f = 0; f < 2; f++) {
                st.execute(
                        "COPY (SELECT (i * 2 + "
                                + f
                                + ")::BIGINT AS id, 'n' || i || '-' || "
                                + f
                                + " AS name FROM range(5000) t(i)"
                                + " UNION ALL SELECT 10::BIGINT, 'again-"
                                + f
                                + "' ORDER BY hash(id, name)) TO '"
                                + table.resolve("part-" + f + ".parquet")
                                + "' (FORMAT parquet, ROW_GROUP_SIZE 1000)");
            }
        }
        return table;
    }

    private TableEnvironment tEnv(Path table, List<Row> events, String extra) {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "id"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        SqlTestSupport.createDim(
                tEnv, "id BIGINT, name STRING", table, dir.resolve("local"), extra);
        return tEnv;
    }

    @Test
    void aJoinOnAnUnsortedTableMatchesDuckDb() throws Exception {
        Path table = shuffledTable();
        List<Row> events = new ArrayList<>();
        Random random = new Random(27);
        events.add(Row.of(0L, 10L)); // two files, one row each plus the pair's own
        for (long e = 1; e <= 150; e++) {
            events.add(Row.of(e, (long) random.nextInt(10_050) - 20));
        }
        List<Row> expected = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                PreparedStatement q =
                        c.prepareStatement(
                                "SELECT id, name FROM read_parquet('"
                                        + table
                                        + "/*.parquet') WHERE id = ?")) {
            for (Row event : events) {
                q.setLong(1, (Long) event.getField(1));
                boolean any = false;
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        any = true;
                        expected.add(Row.of(event.getField(0), rs.getLong(1), rs.getString(2)));
                    }
                }
                if (!any) {
                    expected.add(Row.of(event.getField(0), null, null));
                }
            }
        }
        List<Row> rows =
                SqlTestSupport.collect(
                        tEnv(table, events, ""),
                        "SELECT e.eid, d.id, d.name FROM events AS e LEFT JOIN dim FOR"
                                + " SYSTEM_TIME AS OF e.proc AS d ON e.id = d.id");
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).filteredOn(r -> r.getField(1) != null).hasSizeGreaterThan(100);
        try (Stream<Path> indexes = Files.list(dir.resolve("local/parquet-lookup-index"))) {
            assertThat(indexes.filter(p -> p.toString().endsWith(".pli"))).hasSize(2);
        }
    }

    @Test
    void refuseKeepsTheClearRefusal() throws Exception {
        Path table = shuffledTable();
        TableEnvironment tEnv =
                tEnv(table, List.of(Row.of(1L, 10L)), ", 'unsorted-files' = 'refuse'");
        assertThatThrownBy(
                        () ->
                                SqlTestSupport.collect(
                                        tEnv,
                                        "SELECT e.eid, d.name FROM events AS e JOIN dim FOR"
                                                + " SYSTEM_TIME AS OF e.proc AS d ON e.id = d.id"))
                .rootCause()
                .hasMessageContaining("is not sorted by 'id'")
                .hasMessageContaining("Set 'unsorted-files' = 'index'");
    }
}
