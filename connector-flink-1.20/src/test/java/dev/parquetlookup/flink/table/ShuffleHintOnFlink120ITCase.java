package dev.parquetlookup.flink.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 1.20 only: what the LOOKUP hint {@code 'shuffle' = 'true'} (FLIP-462, Flink 2.x) does on
 * this line, as docs/deployment.md states it.
 */
class ShuffleHintOnFlink120ITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir static Path dir;

    private static TestDimension data;

    @BeforeAll
    static void writeFiles() throws Exception {
        data = TestDimension.generate(20_261_201L, 20, 100);
        data.write(dir, 2);
    }

    /**
     * Flink 1.20 accepts the hint option and ignores it (its planner has no custom shuffle): the
     * plan keeps the input distribution and the rows are those of the join without the hint, so a
     * query written for 2.x runs unchanged.
     */
    @Test
    void shuffleHintIsAcceptedAndIgnored() throws Exception {
        StreamTableEnvironment tEnv = tableEnvironment();
        String join =
                " e.eid, d.v, d.price FROM events AS e JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                        + " ON e.name = d.name AND e.g = d.g";
        String hinted = "SELECT /*+ LOOKUP('table'='d', 'shuffle'='true') */" + join;
        String plain = "SELECT" + join;

        assertThat(tEnv.explainSql(hinted))
                .contains("LookupJoin(")
                .doesNotContain("shuffle=[true]");
        assertThat(tEnv.explainSql(hinted, ExplainDetail.JSON_EXECUTION_PLAN))
                .contains("\"ship_strategy\"")
                .doesNotContainPattern("\"ship_strategy\"\\s*:\\s*\"CUSTOM\"");
        List<Row> expected = SqlTestSupport.collect(tEnv, plain);
        assertThat(expected).as("the reference must not be trivial").isNotEmpty();
        assertThat(SqlTestSupport.collect(tEnv, hinted))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static StreamTableEnvironment tableEnvironment() {
        List<Row> events = new ArrayList<>();
        for (TestDimension.Event e : data.events) {
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
                        + dir.toUri()
                        + "')");
        return tEnv;
    }
}
