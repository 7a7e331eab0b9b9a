package dev.parquetlookup.e2e;

import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deployment path users take: the shaded SQL jar is added to a running multi-process cluster
 * with {@code ADD JAR} through the SQL Gateway, a {@code parquet-lookup} dimension over generated
 * sorted Parquet files enriches a bounded CSV stream of events with a lookup join, and the
 * filesystem sink's rows must equal the enrichment computed here.
 */
class LookupJoinITCase {

    @RegisterExtension
    static final FlinkClusterExtension FLINK = new FlinkClusterExtension(2, Map.of());

    private static final long SEED = 20_261_130L;
    private static final long CUSTOMERS = 20_000; // even ids 0 .. 39_998
    private static final int EVENTS = 5_000;

    private static Path jar;

    @BeforeAll
    static void locateJar() {
        jar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        assertThat(jar).as("the shaded SQL jar").isRegularFile();
    }

    @Test
    @Timeout(240)
    void lookupJoinThroughTheGatewayEnrichesEveryEvent() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        Path data = cluster.home().resolve("data");
        Path customers = data.resolve("customers");
        DimensionFiles.write(customers, CUSTOMERS, 4, WriterOptions.Codec.ZSTD);
        System.out.println("events seed " + SEED);
        List<long[]> events = events(new Random(SEED));
        Path eventsDir = data.resolve("events");
        writeEventsCsv(eventsDir, events);
        Path out = data.resolve("enriched");

        try (SqlGatewayClient.Session sql =
                cluster.gateway().openSession(Map.of("parallelism.default", "4"))) {
            sql.execute("ADD JAR '" + jar + "'");
            assertThat(sql.execute("SHOW JARS").rows().toString())
                    .contains(jar.getFileName().toString());
            sql.execute(
                    "CREATE TABLE events (event_id BIGINT, customer_id BIGINT, amount INT,"
                            + " proc_time AS PROCTIME()) WITH ("
                            + " 'connector' = 'filesystem', 'format' = 'csv',"
                            + " 'path' = '"
                            + eventsDir.toUri()
                            + "')");
            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + customers.toUri()
                            + "')");
            sql.execute(
                    "CREATE TABLE enriched (event_id BIGINT, customer_id BIGINT, amount INT,"
                            + " name STRING, tier INT) WITH ("
                            + " 'connector' = 'filesystem', 'format' = 'csv',"
                            + " 'path' = '"
                            + out.toUri()
                            + "')");
            String jobId =
                    sql.execute(
                                    "INSERT INTO enriched"
                                            + " SELECT e.event_id, e.customer_id, e.amount,"
                                            + " c.name, c.tier"
                                            + " FROM events AS e"
                                            + " LEFT JOIN customers FOR SYSTEM_TIME AS OF"
                                            + " e.proc_time AS c ON e.customer_id = c.id")
                            .jobId();
            cluster.waitForJob(jobId, Duration.ofMinutes(3), "FINISHED");
            assertThat(cluster.jobManager().get("/jobs/" + jobId).path("vertices").toString())
                    .as("the plan runs a lookup join")
                    .containsIgnoringCase("LookupJoin");
        }

        List<String> expected = new ArrayList<>();
        for (long[] e : events) {
            String enrichment =
                    DimensionFiles.customer(e[1], CUSTOMERS)
                            .map(c -> c.name() + "," + c.tier())
                            .orElse(","); // LEFT JOIN miss: two empty (null) fields
            expected.add(e[0] + "," + e[1] + "," + e[2] + "," + enrichment);
        }
        assertThat(expected)
                .as("the events hit and miss")
                .anyMatch(l -> l.endsWith(",,"))
                .anyMatch(l -> !l.endsWith(",,"));
        assertThat(SinkFiles.lines(out))
                .as("enriched rows (seed %d)", SEED)
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Events {@code (event_id, customer_id, amount)}: customer ids drawn from 0..44_999, so about
     * 44% hit (even and below 40_000) and the rest miss; some customers repeat.
     */
    private static List<long[]> events(Random random) {
        List<long[]> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add(new long[] {i, random.nextInt(45_000), random.nextInt(1_000)});
        }
        return events;
    }

    private static void writeEventsCsv(Path dir, List<long[]> events) throws IOException {
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder();
        for (long[] e : events) {
            csv.append(e[0]).append(',').append(e[1]).append(',').append(e[2]).append('\n');
        }
        Files.writeString(dir.resolve("events.csv"), csv, StandardCharsets.UTF_8);
    }
}
