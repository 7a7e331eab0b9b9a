package dev.parquetlookup.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Proves the harness: a plain SQL job (datagen to filesystem, no connector of ours) submitted
 * through the SQL Gateway runs on the multi-process cluster and writes exactly the expected rows.
 */
class ClusterHarnessITCase {

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

    @Test
    @Timeout(180)
    void datagenToFilesystemRunsOnTheCluster() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        assertThat(cluster.jobManager().get("/overview").path("slots-total").asInt()).isEqualTo(4);
        Path out = FLINK.dataDir().resolve("harness-sink");
        long rows = 1000;

        try (SqlGatewayClient.Session sql = cluster.gateway().openSession()) {
            sql.execute(
                    "CREATE TABLE src (id BIGINT) WITH ("
                            + " 'connector' = 'datagen', 'number-of-rows' = '"
                            + rows
                            + "',"
                            + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
                            + " 'fields.id.end' = '"
                            + rows
                            + "')");
            sql.execute(
                    "CREATE TABLE sink (id BIGINT, doubled BIGINT, label STRING) WITH ("
                            + " 'connector' = 'filesystem', 'format' = 'csv',"
                            + " 'path' = '"
                            + out.toUri()
                            + "')");
            String jobId =
                    sql.execute(
                                    "INSERT INTO sink SELECT id, id * 2,"
                                            + " CONCAT('k', CAST(id AS STRING)) FROM src")
                            .jobId();
            assertThat(jobId).as("job id of the INSERT").isNotBlank();
            cluster.waitForJob(jobId, Duration.ofMinutes(2), "FINISHED");
        }

        List<String> expected =
                LongStream.rangeClosed(1, rows).mapToObj(i -> i + "," + 2 * i + ",k" + i).toList();
        assertThat(SinkFiles.lines(out)).containsExactlyInAnyOrderElementsOf(expected);
    }
}
