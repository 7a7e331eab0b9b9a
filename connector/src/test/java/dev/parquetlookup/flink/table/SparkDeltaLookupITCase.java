package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.index.KeyIndexes;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SQL lookup join over a Delta table that Apache Spark wrote and then compacted with {@code
 * OPTIMIZE} (the formats module's fixture {@code spark-delta/tables/optimize}: its newest version
 * is one file not sorted by id, served through a key index): every id Spark wrote, and absent ones,
 * joined at parallelism 4, each output row equal to Spark's own read of that version.
 */
class SparkDeltaLookupITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster(2);

    /** The formats module's fixtures, from this module's directory (where surefire runs). */
    private static Path fixtures() {
        Path dir =
                Path.of("")
                        .toAbsolutePath()
                        .resolveSibling("formats")
                        .resolve("src/test/resources/spark-delta");
        assertThat(dir.resolve("tables/optimize/_delta_log")).isDirectory();
        return dir;
    }

    @Test
    void everyRowOfASparkOptimizedTableJoinsAsSparkReadsIt() throws Exception {
        Path fixtures = fixtures();
        // Spark's read of the newest version (v2, OPTIMIZE): id, name, region, score, ts (micros).
        Map<Long, List<String>> expected = new HashMap<>();
        try (BufferedReader in =
                new BufferedReader(
                        new InputStreamReader(
                                new GZIPInputStream(
                                        Files.newInputStream(
                                                fixtures.resolve("expected/optimize/v2.tsv.gz"))),
                                StandardCharsets.UTF_8))) {
            assertThat(in.readLine()).isEqualTo("id\tname\tregion\tscore\tts");
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] v = line.split("\t", -1);
                expected.computeIfAbsent(Long.parseLong(v[0]), k -> new ArrayList<>())
                        .add(String.join("|", v).replace("\\N", "null"));
            }
        }
        assertThat(expected).hasSizeGreaterThan(2_000);
        long maxId = expected.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();

        List<Row> events = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (long id = -3; id <= maxId + 20; id++) {
            events.add(Row.of(id, id));
            List<String> rows = expected.get(id);
            if (rows == null) {
                want.add(id + "|-");
            } else {
                want.addAll(rows);
            }
        }
        StreamTableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "id"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE dim (id BIGINT, name STRING, region STRING, score INT,"
                        + " ts TIMESTAMP(6)) WITH ('connector' = 'parquet-lookup', 'format' ="
                        + " 'delta', 'sort-key' = 'id', 'path' = '"
                        + fixtures.resolve("tables/optimize").toUri()
                        + "')");
        KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
        List<Row> out =
                SqlTestSupport.collect(
                        tEnv,
                        "SELECT e.eid, d.id, d.name, d.region, d.score, d.ts FROM events AS e"
                                + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d ON e.id ="
                                + " d.id");
        List<String> got = new ArrayList<>();
        for (Row r : out) {
            if (r.getField(1) == null) {
                got.add(r.getField(0) + "|-");
                continue;
            }
            LocalDateTime ts = (LocalDateTime) r.getField(5);
            long micros = ts.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + ts.getNano() / 1_000;
            got.add(
                    String.join(
                            "|",
                            String.valueOf(r.getField(1)),
                            String.valueOf(r.getField(2)),
                            String.valueOf(r.getField(3)),
                            String.valueOf(r.getField(4)),
                            Long.toString(micros)));
        }
        assertThat(got).hasSize(want.size()).containsExactlyInAnyOrderElementsOf(want);
        // The compacted file, not sorted by id, went through a key index (the MiniCluster runs in
        // this JVM): built, or reused from an earlier run's index directory.
        KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
        assertThat(
                        after.filesIndexed()
                                + after.indexesReused()
                                - before.filesIndexed()
                                - before.indexesReused())
                .isPositive();
    }
}
