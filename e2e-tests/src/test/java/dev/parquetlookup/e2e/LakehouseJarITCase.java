package dev.parquetlookup.e2e;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lakehouse in one jar (docs/formats.md, "Dependencies"): on a running multi-process cluster
 * (Flink 2.x, and 1.20 with that line's jar: the {@code flink-1.20} execution), one {@code ADD JAR}
 * of the SQL jar and nothing else serves a Delta table written by the Delta kernel ({@code 'format'
 * = 'delta'}, {@code 'sort-key' = 'id'}) and an Iceberg table written by Iceberg's generic writers
 * ({@code 'format' = 'iceberg'}, no {@code sort-key}: the table's sort order names it) in a lookup
 * join whose rows must equal the enrichment computed here.
 */
class LakehouseJarITCase {

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

    private static final long SEED = 20_261_205L;
    private static final long CUSTOMERS = 8_000; // even ids 0 .. 15_998
    private static final int EVENTS = 3_000;

    @ParameterizedTest(name = "format = {0}")
    @ValueSource(strings = {"delta", "iceberg"})
    @Timeout(300)
    void tableServedThroughTheSqlJarAlone(String format) throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        Path data = FLINK.dataDir().resolve(format);
        Path tableDir = data.resolve("lake/customers");
        if (format.equals("delta")) {
            LakehouseTables.writeDelta(tableDir, CUSTOMERS, 4);
        } else {
            LakehouseTables.writeIceberg(tableDir, CUSTOMERS, 4);
        }
        assertThat(tableDir.resolve(format.equals("delta") ? "_delta_log" : "metadata"))
                .as("a %s table", format)
                .isDirectory();
        List<long[]> events = EnrichmentJob.events(new Random(SEED), EVENTS, 18_000);
        Path eventsDir = data.resolve("events");
        EnrichmentJob.writeEventsCsv(eventsDir, events);
        Path out = data.resolve("enriched");

        Path jar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        assertThat(jar).isRegularFile();
        try (SqlGatewayClient.Session sql =
                cluster.gateway().openSession(Map.of("parallelism.default", "2"))) {
            sql.execute("ADD JAR '" + jar + "'");
            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'format' = '"
                            + format
                            + "',"
                            + (format.equals("delta") ? " 'sort-key' = 'id'," : "")
                            + " 'path' = '"
                            + tableDir.toUri()
                            + "')");
            EnrichmentJob.run(sql, cluster, eventsDir, out);
        }

        EnrichmentJob.assertEnriched(out, events, CUSTOMERS, SEED);
    }
}
