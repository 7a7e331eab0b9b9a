package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SQL lookup join (MiniCluster, parallelism 4) over a file as DuckDB writes it by default (one
 * page per 122,880-row column chunk, no page index): the first job is served the slow way while the
 * TaskManagers build the file's local form once (the MiniCluster's TaskManagers share this JVM, so
 * one build for every slot); a second job reads the form and builds nothing. Both jobs' answers
 * equal the rows DuckDB was given.
 */
class ParquetLookupRepageITCase {

    private static final long SEED = 1205L;
    private static final int ROWS = 300_000;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir Path dir;

    @Test
    void lookupJoinOnADuckDbDefaultFileBeforeAndAfterItsLocalForm() throws Exception {
        Path file = dir.resolve("dim").resolve("duck.parquet");
        Files.createDirectories(file.getParent());
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY (SELECT i * 2 AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'name-' || i"
                            + " END AS name, (i * 0.25)::DECIMAL(18,2) AS amount FROM range("
                            + ROWS
                            + ") t(i) ORDER BY i) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
        Path cacheDir = dir.resolve("cache");
        long maxBytes = 1L << 30;
        String ddl =
                "CREATE TABLE dim (id BIGINT, name STRING, amount DECIMAL(18, 2)) WITH"
                        + " ('connector' = 'parquet-lookup', 'path' = '"
                        + file.getParent().toUri()
                        + "', 'sort-key' = 'id', 'local-cache.dir' = '"
                        + cacheDir
                        + "', 'repage.max-bytes' = '"
                        + maxBytes
                        + "b')";

        Random random = new Random(SEED);
        List<Row> events = new ArrayList<>();
        List<Row> expected = new ArrayList<>();
        for (long eid = 0; eid < 400; eid++) {
            long id = random.nextInt(2 * ROWS + 100);
            events.add(Row.of(eid, id));
            if (id % 2 == 0 && id / 2 < ROWS) {
                long i = id / 2;
                expected.add(
                        Row.of(
                                eid,
                                i % 7 == 0 ? null : "name-" + i,
                                BigDecimal.valueOf(i * 25, 2)));
            } else {
                expected.add(Row.of(eid, null, null));
            }
        }
        String query =
                "SELECT e.eid, d.name, d.amount FROM events AS e LEFT JOIN dim FOR SYSTEM_TIME AS"
                        + " OF e.proc AS d ON e.k = d.id";

        StreamTableEnvironment first = environment(events);
        first.executeSql(ddl);
        assertThat(SqlTestSupport.collect(first, query))
                .as("first job, seed %d", SEED)
                .containsExactlyInAnyOrderElementsOf(expected);

        // The same JVM-wide forms the TaskManagers used: wait for the one build to settle.
        LocalForms forms =
                LocalForms.shared(cacheDir.resolve(LocalForms.DEFAULT_DIRECTORY_NAME), maxBytes);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toString());
            assertThat(forms.settle(id, store, List.of("id")).get(5, TimeUnit.MINUTES).kind())
                    .isEqualTo(LocalForms.Kind.READY);
        }
        assertThat(forms.stats().built()).isEqualTo(1);
        assertThat(forms.stats().rowsBuilt()).isEqualTo(ROWS);

        StreamTableEnvironment second = environment(events);
        second.executeSql(ddl);
        assertThat(SqlTestSupport.collect(second, query))
                .as("second job, seed %d", SEED)
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(forms.stats().built()).as("built once for both jobs").isEqualTo(1);

        StreamTableEnvironment off = environment(events);
        off.executeSql(ddl.replace("'sort-key' = 'id'", "'sort-key' = 'id', 'repage' = 'off'"));
        assertThat(SqlTestSupport.collect(off, query))
                .as("repage off, seed %d", SEED)
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static StreamTableEnvironment environment(List<Row> events) {
        return SqlTestSupport.streamingWithEvents(
                events,
                new String[] {"eid", "k"},
                new TypeInformation<?>[] {Types.LONG, Types.LONG});
    }
}
