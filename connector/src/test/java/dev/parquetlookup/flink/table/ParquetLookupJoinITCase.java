package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.lookup.RemoteLocalFileSystem;
import dev.parquetlookup.flink.table.TestDimension.Event;
import dev.parquetlookup.flink.table.TestDimension.KeyMatch;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lookup joins through SQL on a MiniCluster (2 TaskManagers x 2 slots, parallelism 4), every result
 * compared exactly with the in-memory reference of {@link TestDimension}: inner and LEFT joins,
 * projection, composite and prefix keys, non-unique keys, misses, null keys, residual key columns,
 * every row-cache mode sync and async, the retry hint and the key-range shuffle hint; which lookup
 * function the planner gets for local and remote files ({@code lookup.async} unset, true, false).
 */
class ParquetLookupJoinITCase {

    private static final long SEED = 20_260_301L;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir static Path dir;

    private static TestDimension data;

    @BeforeAll
    static void writeFiles() throws Exception {
        data = TestDimension.generate(SEED, 60, 300);
        data.write(dir, 3);
    }

    /** Row-cache mode and sync/async, as table options. */
    enum Mode {
        NONE_SYNC("'lookup.async' = 'false'"),
        NONE_ASYNC("'lookup.async' = 'true', 'lookup.async.threads' = '4'"),
        PARTIAL_SYNC(
                "'lookup.async' = 'false', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '50'"),
        PARTIAL_ASYNC(
                "'lookup.async' = 'true', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '50',"
                        + " 'lookup.partial-cache.cache-missing-key' = 'false'"),
        FULL("'lookup.cache' = 'FULL'");

        final String options;

        Mode(String options) {
            this.options = options;
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void innerJoinOnTheFullCompositeKeyWithProjection(Mode mode) throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(mode.options);
        // The table declares (name, g, ...): the planner's key row is (name, g), the files are
        // sorted by (g, name).
        List<Row> actual =
                collect(
                        tEnv,
                        "SELECT e.eid, d.v, d.price FROM events AS e"
                                + " JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                + " ON e.name = d.name AND e.g = d.g");
        assertSame(actual, data.join(false, KeyMatch.ON_G_AND_NAME, List.of("v", "price")));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void leftJoinOnAKeyPrefixReturnsEveryRowOfTheKey(Mode mode) throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(mode.options);
        List<String> columns = List.of("name", "v", "ts", "d", "flag", "note");
        List<Row> actual =
                collect(
                        tEnv,
                        "SELECT e.eid, d.name, d.v, d.ts, d.d, d.flag, d.note FROM events AS e"
                                + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                + " ON e.g = d.g");
        assertSame(actual, data.join(true, KeyMatch.ON_G, columns));
    }

    @Test
    void fullCacheJoinsOnAKeyThatIsNotASortKeyPrefix() throws Exception {
        // The files are sorted by (g, name); a join on name alone needs the FULL cache.
        StreamTableEnvironment tEnv = tableEnvironment(Mode.FULL.options);
        List<Row> actual =
                collect(
                        tEnv,
                        "SELECT e.eid, d.g, d.v FROM events AS e"
                                + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                + " ON e.name = d.name");
        assertSame(
                actual,
                data.join(
                        true,
                        (e, d) -> e.name() != null && e.name().equals(d.name()),
                        List.of("g", "v")));
    }

    @Test
    void keyColumnsBeyondTheSortPrefixAreFilteredOnTheRows() throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(ASYNC);
        String query =
                "SELECT e.eid, d.name, d.v FROM events AS e"
                        + " JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                        + " ON e.g = d.g AND d.note = 'note-3'";
        // The constant condition is a lookup key of its own: the engine looks up g, the function
        // compares note on the rows.
        assertThat(tEnv.explainSql(query)).containsPattern("lookup=\\[[^]]*note=");
        assertSame(
                collect(tEnv, query),
                data.join(
                        false,
                        KeyMatch.ON_G.and(KeyMatch.constant(TestDimension.Dim::note, "note-3")),
                        List.of("name", "v")));
    }

    @Test
    void retryOnMissHintAsync() throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(ASYNC);
        List<Row> actual =
                collect(
                        tEnv,
                        "SELECT /*+ LOOKUP('table'='d', 'retry-predicate'='lookup_miss',"
                                + " 'retry-strategy'='fixed_delay', 'fixed-delay'='1 ms',"
                                + " 'max-attempts'='2') */ e.eid, d.v FROM events AS e"
                                + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                + " ON e.g = d.g");
        assertSame(actual, data.join(true, KeyMatch.ON_G, List.of("v")));
    }

    @Test
    void retryOnMissHintSyncChosenByTheHint() throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(ASYNC);
        String query =
                "SELECT /*+ LOOKUP('table'='d', 'async'='false', 'retry-predicate'='lookup_miss',"
                        + " 'retry-strategy'='fixed_delay', 'fixed-delay'='1 ms',"
                        + " 'max-attempts'='2') */ e.eid, d.v, d.name FROM events AS e"
                        + " JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                        + " ON e.g = d.g AND e.name = d.name";
        assertThat(tEnv.explainSql(query)).doesNotContain("async=[");
        assertSame(
                collect(tEnv, query),
                data.join(false, KeyMatch.ON_G_AND_NAME, List.of("v", "name")));
    }

    /** Both functions offered, whatever the files: the planner takes the async one. */
    private static final String ASYNC = "'lookup.async' = 'true', 'lookup.async.threads' = '2'";

    private static final String JOIN_ON_G =
            "SELECT e.eid, d.v FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                    + " ON e.g = d.g";

    @Test
    void localFilesGetOnlyTheSynchronousFunctionByDefault() throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment("");
        assertThat(tEnv.explainSql(JOIN_ON_G)).contains("LookupJoin(").doesNotContain("async=[");
        // The hint cannot pick a function that is not offered: the planner keeps the sync one.
        assertThat(tEnv.explainSql(JOIN_ON_G.replace("SELECT", "SELECT " + hint("'async'='true'"))))
                .doesNotContain("async=[");
        assertSame(collect(tEnv, JOIN_ON_G), data.join(false, KeyMatch.ON_G, List.of("v")));
    }

    @Test
    void asyncIsChosenWhenOfferedOnLocalFiles() {
        StreamTableEnvironment tEnv = tableEnvironment(ASYNC);
        assertThat(tEnv.explainSql(JOIN_ON_G)).contains("async=[");
        assertThat(
                        tEnv.explainSql(
                                JOIN_ON_G.replace("SELECT", "SELECT " + hint("'async'='false'"))))
                .doesNotContain("async=[");
    }

    @Test
    void syncOnlyWhenAsyncIsTurnedOff() {
        StreamTableEnvironment tEnv = tableEnvironment("'lookup.async' = 'false'");
        assertThat(tEnv.explainSql(JOIN_ON_G.replace("SELECT", "SELECT " + hint("'async'='true'"))))
                .doesNotContain("async=[");
    }

    @Test
    void remoteFilesGetBothFunctionsByDefaultAndThePlannerTakesAsync() throws Exception {
        // The same files under a scheme the connector treats as remote (not file:).
        StreamTableEnvironment tEnv =
                tableEnvironment(
                        "remote://" + dir.toUri().getPath(),
                        "'hadoop.fs.remote.impl' = '"
                                + RemoteLocalFileSystem.class.getName()
                                + "', 'local-cache.max-bytes' = '0'");
        assertThat(tEnv.explainSql(JOIN_ON_G)).contains("async=[");
        assertThat(
                        tEnv.explainSql(
                                JOIN_ON_G.replace("SELECT", "SELECT " + hint("'async'='false'"))))
                .doesNotContain("async=[");
        assertSame(collect(tEnv, JOIN_ON_G), data.join(false, KeyMatch.ON_G, List.of("v")));
    }

    private static String hint(String options) {
        return "/*+ LOOKUP('table'='d', " + options + ") */";
    }

    /** FLIP-462: Flink 2.x only; the 1.20 line's build leaves out the tag {@code flink2-only}. */
    @Tag("flink2-only")
    @ParameterizedTest
    @EnumSource(
            value = Mode.class,
            names = {"NONE_ASYNC", "PARTIAL_SYNC"})
    void shuffleHintRoutesKeysByRangeAndKeepsResults(Mode mode) throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment(mode.options);
        String query =
                "SELECT /*+ LOOKUP('table'='d', 'shuffle'='true') */ e.eid, d.v, d.price"
                        + " FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                        + " ON e.name = d.name AND e.g = d.g";
        assertThat(tEnv.explainSql(query)).contains("shuffle=[true]");
        // The connector's partitioner sits between the events and the join.
        assertThat(tEnv.explainSql(query, ExplainDetail.JSON_EXECUTION_PLAN))
                .containsPattern("\"ship_strategy\"\\s*:\\s*\"CUSTOM\"");
        assertSame(
                collect(tEnv, query),
                data.join(false, KeyMatch.ON_G_AND_NAME, List.of("v", "price")));
    }

    private static StreamTableEnvironment tableEnvironment(String options) {
        return tableEnvironment(dir.toUri().toString(), options);
    }

    private static StreamTableEnvironment tableEnvironment(String path, String options) {
        List<Row> events = new ArrayList<>();
        for (Event e : data.events) {
            events.add(Row.of(e.eid(), e.g(), e.name()));
        }
        StreamTableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "g", "name"},
                        new TypeInformation<?>[] {Types.LONG, Types.INT, Types.STRING});
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + TestDimension.DDL_COLUMNS
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + path
                        + "'"
                        + (options.isEmpty() ? "" : ", " + options)
                        + ")");
        return tEnv;
    }

    private static List<Row> collect(StreamTableEnvironment tEnv, String query) throws Exception {
        return SqlTestSupport.collect(tEnv, query);
    }

    private static void assertSame(List<Row> actual, List<Row> expected) {
        assertThat(expected).as("the reference must not be trivial").isNotEmpty();
        assertThat(actual)
                .as("seed %d, %d expected rows", SEED, expected.size())
                .containsExactlyInAnyOrderElementsOf(expected);
    }
}
