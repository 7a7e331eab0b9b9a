package dev.parquetlookup.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The DataStream example job ({@code examples/}, {@code DataStreamEnrichmentExample}) submitted as
 * a jar with Flink's command line ({@code flink run}) to the multi-process cluster, with the shaded
 * SQL jar on the job's class path ({@code -C}): it must enrich every generated order, and the rows
 * it prints must carry their customer's name (or none for unknown customers).
 */
class DataStreamExampleITCase {

    @RegisterExtension static final FlinkClusterExtension FLINK = new FlinkClusterExtension();

    private static final long CUSTOMERS = 20_000;
    private static final long ORDERS = 30_000;

    /** The report line of {@code EnrichmentReport.print}. */
    private static final Pattern REPORT =
            Pattern.compile("Enriched ([\\d,]+) orders \\(([\\d,]+) without a known customer\\)");

    /** A printed row: order id, customer id, amount, name, country, credit. */
    private static final Pattern ROW =
            Pattern.compile(
                    "^\\s*(\\d+)\\s+(\\d+)\\s+([\\d.]+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s*$");

    @Test
    @Timeout(240)
    void exampleJarRunsOnTheCluster() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        Path examplesJar = Path.of(FlinkCluster.requiredProperty("e2e.examples.jar"));
        Path connectorJar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        assertThat(examplesJar).as("the examples jar (built by the reactor)").isRegularFile();
        Path dataDir = FLINK.dataDir().resolve("example");

        FlinkCluster.ClientRun run =
                cluster.runClient(
                        List.of(
                                "run",
                                "-c",
                                "dev.parquetlookup.examples.DataStreamEnrichmentExample",
                                "-C",
                                connectorJar.toUri().toString(),
                                examplesJar.toString(),
                                "--customers",
                                Long.toString(CUSTOMERS),
                                "--orders",
                                Long.toString(ORDERS),
                                "--print",
                                "50",
                                "--dir",
                                dataDir.toString()),
                        Duration.ofMinutes(3));

        assertThat(run.exitCode()).as("flink run exit code; output in %s", run.log()).isZero();
        assertThat(run.output()).contains("Job has been submitted with JobID");
        Matcher report = REPORT.matcher(run.output());
        assertThat(report.find()).as("report line in %s", run.log()).isTrue();
        long enriched = Long.parseLong(report.group(1).replace(",", ""));
        long withoutCustomer = Long.parseLong(report.group(2).replace(",", ""));
        assertThat(enriched).isEqualTo(ORDERS);
        assertThat(withoutCustomer).isBetween(1L, ORDERS / 5);

        List<String> rows = new ArrayList<>();
        for (String line : run.output().lines().toList()) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                long customerId = Long.parseLong(row.group(2));
                String expectedName = customerId <= CUSTOMERS ? "customer-" + customerId : "null";
                assertThat(row.group(4))
                        .as("name in printed row: %s", line)
                        .isEqualTo(expectedName);
                rows.add(line);
            }
        }
        assertThat(rows).as("printed sample rows in %s", run.log()).hasSize(50);
    }
}
