package dev.parquetlookup.examples;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A stream of orders enriched with customer data by a SQL lookup join on a sorted Parquet file, on
 * an embedded Flink cluster:
 *
 * <ol>
 *   <li>writes a customer dimension of {@code --customers} rows (default 1,000,000) once, with
 *       {@code LookupFileWriter};
 *   <li>generates {@code --orders} orders (default 200,000) with Flink's {@code datagen} connector,
 *       about 10% of them for unknown customers;
 *   <li>joins them {@code FOR SYSTEM_TIME AS OF o.proc_time} with the {@code parquet-lookup} table,
 *       prints the first rows, the throughput and the time to the first enriched row.
 * </ol>
 *
 * Run: {@code mvn -B -q -Prun-example -pl examples -am package -DskipTests}, or with arguments
 * {@code -Dexample.args="--orders 1m --dir /tmp/data"}.
 */
public final class SqlEnrichmentExample {

    /** The run's sizes. */
    public record Settings(Path dataDir, long customers, long orders, int print) {}

    private SqlEnrichmentExample() {}

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args, Set.of("customers", "orders", "dir", "print"));
        Settings settings =
                new Settings(
                        a.path(
                                "dir",
                                Path.of(
                                        System.getProperty("java.io.tmpdir"),
                                        "parquet-lookup-example")),
                        a.count("customers", 1_000_000),
                        a.count("orders", 200_000),
                        (int) a.count("print", 10));
        run(settings, System.out, row -> {});
        System.exit(0); // the embedded cluster's non-daemon threads must not keep the JVM alive
    }

    /**
     * Runs the example, printing to {@code out}; {@code eachRow} sees every enriched row {@code
     * (order_id, customer_id, amount, name, country, credit)}.
     */
    public static EnrichmentReport run(Settings settings, PrintStream out, Consumer<Row> eachRow)
            throws Exception {
        out.println("parquet-lookup: SQL lookup join example");
        long writeStart = System.nanoTime();
        Path customers = CustomerDimension.ensure(settings.dataDir(), settings.customers());
        out.printf(
                "Customer dimension: %,d rows sorted by id in %s (%,d bytes; ready in %.1f s)%n",
                settings.customers(),
                customers,
                Files.size(customers.resolve("part-00000.parquet")),
                (System.nanoTime() - writeStart) / 1e9);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tableEnv = StreamTableEnvironment.create(env);

        // About 10% of the orders name a customer id above the dimension's range: a miss.
        long maxCustomerId = settings.customers() + Math.max(1, settings.customers() / 10);
        tableEnv.executeSql(
                String.format(
                        "CREATE TEMPORARY TABLE orders ("
                                + " order_id BIGINT, customer_id BIGINT, amount DECIMAL(10, 2),"
                                + " proc_time AS PROCTIME()"
                                + ") WITH ("
                                + " 'connector' = 'datagen',"
                                + " 'number-of-rows' = '%d',"
                                + " 'rows-per-second' = '1000000000',"
                                + " 'fields.order_id.kind' = 'sequence',"
                                + " 'fields.order_id.start' = '1',"
                                + " 'fields.order_id.end' = '%d',"
                                + " 'fields.customer_id.min' = '1',"
                                + " 'fields.customer_id.max' = '%d',"
                                + " 'fields.amount.min' = '1',"
                                + " 'fields.amount.max' = '500')",
                        settings.orders(), settings.orders(), maxCustomerId));
        tableEnv.executeSql(
                "CREATE TEMPORARY TABLE customers ("
                        + CustomerDimension.SQL_COLUMNS
                        + ") WITH ("
                        + " 'connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + customers.toUri()
                        + "')");
        String query =
                "SELECT o.order_id, o.customer_id, o.amount, c.name, c.country, c.credit\n"
                        + "FROM orders AS o\n"
                        + "LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c\n"
                        + "  ON o.customer_id = c.id";
        out.printf("Enriching %,d generated orders:%n%s%n", settings.orders(), query);

        List<String> sample = new ArrayList<>();
        long enriched = 0;
        long misses = 0;
        EnrichmentReport.Clock clock = new EnrichmentReport.Clock(settings.orders());
        TableResult result = tableEnv.executeSql(query);
        clock.submitted();
        try (CloseableIterator<Row> rows = result.collect()) {
            while (rows.hasNext()) {
                Row row = rows.next();
                if (clock.row()) {
                    out.printf(
                            "%8s  %11s  %8s  %-17s  %-7s  %10s%n",
                            "order_id", "customer_id", "amount", "name", "country", "credit");
                }
                enriched++;
                if (row.getField(3) == null) {
                    misses++;
                }
                if (sample.size() < settings.print()) {
                    String line =
                            String.format(
                                    "%8s  %11s  %8s  %-17s  %-7s  %10s",
                                    row.getField(0),
                                    row.getField(1),
                                    row.getField(2),
                                    row.getField(3),
                                    row.getField(4),
                                    row.getField(5));
                    sample.add(line);
                    out.println(line);
                }
                eachRow.accept(row);
            }
        }
        return clock.finish(enriched, misses, sample, out);
    }
}
