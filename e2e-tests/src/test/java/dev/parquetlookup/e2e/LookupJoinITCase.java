package dev.parquetlookup.e2e;

import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
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

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

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
        Path data = FLINK.dataDir();
        Path customers = data.resolve("customers");
        DimensionFiles.write(customers, CUSTOMERS, 4, WriterOptions.Codec.ZSTD);
        System.out.println("events seed " + SEED);
        List<long[]> events = EnrichmentJob.events(new Random(SEED), EVENTS, 45_000);
        Path eventsDir = data.resolve("events");
        EnrichmentJob.writeEventsCsv(eventsDir, events);
        Path out = data.resolve("enriched");

        try (SqlGatewayClient.Session sql =
                cluster.gateway().openSession(Map.of("parallelism.default", "4"))) {
            sql.execute("ADD JAR '" + jar + "'");
            assertThat(sql.execute("SHOW JARS").rows().toString())
                    .contains(jar.getFileName().toString());

            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + customers.toUri()
                            + "')");
            EnrichmentJob.run(sql, cluster, eventsDir, out);
        }

        EnrichmentJob.assertEnriched(out, events, CUSTOMERS, SEED);
    }
}
