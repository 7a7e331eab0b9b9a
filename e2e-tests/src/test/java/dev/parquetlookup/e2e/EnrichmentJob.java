package dev.parquetlookup.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enrichment the lookup-join tests run through the SQL Gateway: CSV events {@code (event_id,
 * customer_id, amount)} LEFT JOIN a {@code customers} dimension (created by the test, wherever its
 * files are) into a CSV filesystem sink, and the rows that sink must hold.
 */
final class EnrichmentJob {

    private EnrichmentJob() {}

    /**
     * {@code count} events with customer ids below {@code customerIdBound}, amounts below 1,000.
     */
    static List<long[]> events(Random random, int count, int customerIdBound) {
        List<long[]> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(new long[] {i, random.nextInt(customerIdBound), random.nextInt(1_000)});
        }
        return events;
    }

    static void writeEventsCsv(Path dir, List<long[]> events) throws IOException {
        Files.createDirectories(dir);
        StringBuilder csv = new StringBuilder();
        for (long[] e : events) {
            csv.append(e[0]).append(',').append(e[1]).append(',').append(e[2]).append('\n');
        }
        Files.writeString(dir.resolve("events.csv"), csv, StandardCharsets.UTF_8);
    }

    /**
     * Creates the {@code events} and {@code enriched} tables, runs the LEFT lookup join against the
     * session's {@code customers} table to the end, and checks that the plan is a lookup join.
     */
    static void run(SqlGatewayClient.Session sql, FlinkCluster cluster, Path eventsDir, Path out)
            throws Exception {
        sql.execute(
                "CREATE TABLE events (event_id BIGINT, customer_id BIGINT, amount INT,"
                        + " proc_time AS PROCTIME()) WITH ("
                        + " 'connector' = 'filesystem', 'format' = 'csv',"
                        + " 'path' = '"
                        + eventsDir.toUri()
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

    /** The sink's rows equal the enrichment computed here from {@link DimensionFiles}. */
    static void assertEnriched(Path out, List<long[]> events, long customers, long seed)
            throws IOException {
        List<String> expected = new ArrayList<>();
        for (long[] e : events) {
            String enrichment =
                    DimensionFiles.customer(e[1], customers)
                            .map(c -> c.name() + "," + c.tier())
                            .orElse(","); // LEFT JOIN miss: two empty (null) fields
            expected.add(e[0] + "," + e[1] + "," + e[2] + "," + enrichment);
        }
        assertThat(expected)
                .as("the events hit and miss")
                .anyMatch(l -> l.endsWith(",,"))
                .anyMatch(l -> !l.endsWith(",,"));
        assertThat(SinkFiles.lines(out))
                .as("enriched rows (seed %d)", seed)
                .containsExactlyInAnyOrderElementsOf(expected);
    }
}
