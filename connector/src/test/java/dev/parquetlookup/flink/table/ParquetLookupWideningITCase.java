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
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A SQL lookup join over a directory whose files store {@code id} as INT32 in one file and INT64 in
 * another, and {@code score} as FLOAT and DOUBLE (two DuckDB exports with different column types):
 * declared {@code BIGINT} and {@code DOUBLE}, the join finds rows in both files, keys beyond the
 * INT32 range included. A column that no type holds without loss is refused at planning.
 */
class ParquetLookupWideningITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir Path dir;

    private static void copy(Path file, String select) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute("COPY (" + select + ") TO '" + file + "' (FORMAT parquet)");
        }
    }

    private TableEnvironment tEnv(Path table, List<Row> events) {
        TableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "id"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(
                "CREATE TABLE dim (id BIGINT, score DOUBLE, name STRING) WITH ('connector' ="
                        + " 'parquet-lookup', 'path' = '"
                        + table.toUri()
                        + "', 'sort-key' = 'id')");
        return tEnv;
    }

    @Test
    void int32AndInt64FilesServeOneBigintColumn() throws Exception {
        Path table = Files.createDirectory(dir.resolve("dim"));
        copy(
                table.resolve("a.parquet"),
                "SELECT (i * 2)::INTEGER AS id, (i * 0.5)::FLOAT AS score, 'a' || i AS name"
                        + " FROM range(1000) t(i) ORDER BY id");
        copy(
                table.resolve("b.parquet"),
                "SELECT CASE WHEN i = 999 THEN 5000000000 ELSE i * 3 END::BIGINT AS id,"
                        + " (i * 0.25)::DOUBLE AS score, 'b' || i AS name FROM range(1000) t(i)"
                        + " ORDER BY id");
        TableEnvironment tEnv =
                tEnv(
                        table,
                        List.of(
                                Row.of(1L, 6L), // in both files
                                Row.of(2L, 4L), // a only
                                Row.of(3L, 9L), // b only
                                Row.of(4L, 5_000_000_000L), // b, beyond INT32
                                Row.of(5L, 7L))); // neither
        List<Row> rows =
                SqlTestSupport.collect(
                        tEnv,
                        "SELECT e.eid, d.id, d.score, d.name FROM events AS e LEFT JOIN dim FOR"
                                + " SYSTEM_TIME AS OF e.proc AS d ON e.id = d.id");
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        Row.of(1L, 6L, 1.5d, "a3"),
                        Row.of(1L, 6L, 0.5d, "b2"),
                        Row.of(2L, 4L, 1.0d, "a2"),
                        Row.of(3L, 9L, 0.75d, "b3"),
                        Row.of(4L, 5_000_000_000L, 249.75d, "b999"),
                        Row.of(5L, null, null, null));
    }

    @Test
    void lossyMixIsRefusedAtPlanningNamingColumnAndFiles() throws Exception {
        Path table = Files.createDirectory(dir.resolve("lossy"));
        copy(
                table.resolve("a.parquet"),
                "SELECT i::BIGINT AS id, i::BIGINT AS score, 'a' AS name FROM range(10) t(i)");
        copy(
                table.resolve("b.parquet"),
                "SELECT i::BIGINT AS id, i::DOUBLE AS score, 'b' AS name FROM range(10) t(i)");
        TableEnvironment tEnv = tEnv(table, List.of(Row.of(1L, 1L)));
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM dim"))
                .rootCause()
                .hasMessageContaining("Column 'score' is optional int64 score")
                .hasMessageContaining("a.parquet")
                .hasMessageContaining("but optional double score")
                .hasMessageContaining("b.parquet")
                .hasMessageContaining("rewrite the odd files");
    }
}
