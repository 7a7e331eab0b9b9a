package dev.parquetlookup.e2e;

import dev.parquetlookup.writer.WriterOptions;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A checkpointed streaming lookup-join job (the shaded SQL jar, added with {@code ADD JAR}) loses a
 * TaskManager ({@code kill -9}) mid-run; a replacement TaskManager starts, the job restores from
 * its last checkpoint, and the exactly-once file sink ends up with every expected enriched row
 * exactly once. It runs last on the test JVM's shared cluster (its {@code Order}, see
 * junit-platform.properties): it kills one of its TaskManagers.
 */
@Order(Integer.MAX_VALUE)
class TaskManagerFailureITCase {

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

    // 15 s of events: the kill comes after the first committed checkpoint (2-5 s in), and the
    // restored job still has rows to read (it checks that none was committed twice or lost).
    private static final long ROWS = 15_000;
    private static final long ROWS_PER_SECOND = 1_000;
    private static final long CUSTOMERS = 5_000; // even ids 0 .. 9_998
    private static final long CUSTOMER_ID_MODULUS = 12_000;

    @Test
    @Timeout(300)
    void jobRecoversFromTaskManagerLossWithExactlyOnceOutput() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        Path out = FLINK.dataDir().resolve("failover-sink");
        Path customers = FLINK.dataDir().resolve("customers");
        DimensionFiles.write(customers, CUSTOMERS, 2, WriterOptions.Codec.SNAPPY);
        Path jar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        String jobId;
        try (SqlGatewayClient.Session sql = cluster.gateway().openSession(jobSettings())) {
            sql.execute("ADD JAR '" + jar + "'");
            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + customers.toUri()
                            + "')");
            sql.execute(
                    "CREATE TABLE events (id BIGINT,"
                            + " customer_id AS MOD(id, "
                            + CUSTOMER_ID_MODULUS
                            + "),"
                            + " proc_time AS PROCTIME()) WITH ("
                            + " 'connector' = 'datagen', 'number-of-rows' = '"
                            + ROWS
                            + "',"
                            + " 'rows-per-second' = '"
                            + ROWS_PER_SECOND
                            + "',"
                            + " 'fields.id.kind' = 'sequence', 'fields.id.start' = '1',"
                            + " 'fields.id.end' = '"
                            + ROWS
                            + "')");
            sql.execute(
                    "CREATE TABLE sink (id BIGINT, customer_id BIGINT, name STRING, tier INT)"
                            + " WITH ("
                            + " 'connector' = 'filesystem', 'format' = 'csv',"
                            + " 'path' = '"
                            + out.toUri()
                            + "')");
            jobId =
                    sql.execute(
                                    "INSERT INTO sink SELECT e.id, e.customer_id, c.name, c.tier"
                                            + " FROM events AS e"
                                            + " LEFT JOIN customers FOR SYSTEM_TIME AS OF"
                                            + " e.proc_time AS c ON e.customer_id = c.id")
                            .jobId();
        }

        // Kill only after a checkpoint committed rows: the restored job must not repeat them.
        cluster.waitForJob(jobId, Duration.ofMinutes(1), "RUNNING");
        Poll.until(
                "a completed checkpoint with committed rows",
                Duration.ofMinutes(1),
                () ->
                        completedCheckpoints(cluster, jobId) >= 1 && !linesOf(out).isEmpty()
                                ? Optional.of(true)
                                : Optional.empty());
        Set<String> busy = cluster.taskManagersOf(jobId);
        assertThat(busy).as("TaskManagers running the job").isNotEmpty();
        String victim = busy.iterator().next();
        long committedBeforeKill = linesOf(out).size();
        cluster.killTaskManager(victim);
        String replacement = cluster.startTaskManager();

        cluster.waitForJob(jobId, Duration.ofMinutes(3), "FINISHED");

        JsonNode exceptions = cluster.jobManager().get("/jobs/" + jobId + "/exceptions");
        assertThat(exceptions.path("exceptionHistory").path("entries"))
                .as("failover recorded after killing %s (replacement %s)", victim, replacement)
                .isNotEmpty();
        assertThat(committedBeforeKill).isLessThan(ROWS);
        List<String> expected =
                LongStream.rangeClosed(1, ROWS)
                        .mapToObj(TaskManagerFailureITCase::enriched)
                        .toList();
        List<String> actual = SinkFiles.lines(out);
        assertThat(actual).hasSize((int) ROWS);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** The sink line for event {@code id}: a LEFT JOIN miss leaves name and tier empty. */
    private static String enriched(long id) {
        long customerId = id % CUSTOMER_ID_MODULUS;
        return id
                + ","
                + customerId
                + ","
                + DimensionFiles.customer(customerId, CUSTOMERS)
                        .map(c -> c.name() + "," + c.tier())
                        .orElse(",");
    }

    private static Map<String, String> jobSettings() {
        return Map.of(
                "parallelism.default", "4", // every slot of both TaskManagers
                "execution.checkpointing.interval", "1 s",
                "execution.checkpointing.mode", "EXACTLY_ONCE",
                "restart-strategy.type", "fixed-delay",
                "restart-strategy.fixed-delay.attempts", "20",
                "restart-strategy.fixed-delay.delay", "1 s");
    }

    private static long completedCheckpoints(FlinkCluster cluster, String jobId) {
        return cluster.jobManager()
                .get("/jobs/" + jobId + "/checkpoints")
                .path("counts")
                .path("completed")
                .asLong();
    }

    private static List<String> linesOf(Path dir) {
        try {
            return SinkFiles.lines(dir);
        } catch (java.io.IOException e) {
            // A part file renamed while listing: try again at the next poll.
            return new ArrayList<>();
        }
    }
}
