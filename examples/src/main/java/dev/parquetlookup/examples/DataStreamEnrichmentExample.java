package dev.parquetlookup.examples;

import dev.parquetlookup.flink.datastream.ParquetEnrichment;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The SQL example's story in the DataStream API: generated orders enriched with {@link
 * ParquetEnrichment} and {@code AsyncDataStream.unorderedWait}, on an embedded Flink cluster.
 *
 * <p>Run: {@code mvn -B -q -Prun-example -pl examples -am package -DskipTests
 * -Dexample.main=dev.parquetlookup.examples.DataStreamEnrichmentExample}.
 */
public final class DataStreamEnrichmentExample {

    /** An order event (a Flink POJO: public fields, no-argument constructor). */
    public static final class Order {
        public long orderId;
        public long customerId;
        public BigDecimal amount;

        public Order() {}

        /** Order {@code i} (0-based): deterministic customer and amount, ~10% unknown customers. */
        static Order generate(long i, long customers) {
            Order o = new Order();
            o.orderId = i + 1;
            long range = customers + Math.max(1, customers / 10);
            o.customerId = 1 + Math.floorMod(i * 0x9E3779B97F4A7C15L, range);
            o.amount = BigDecimal.valueOf(100 + Math.floorMod(i * 7919, 49_900), 2);
            return o;
        }
    }

    /** An order with its customer's columns, null when the customer is unknown. */
    public static final class EnrichedOrder {
        public long orderId;
        public long customerId;
        public BigDecimal amount;
        public String name;
        public String country;
        public BigDecimal credit;

        public EnrichedOrder() {}

        static EnrichedOrder of(Order order, Row customer) {
            EnrichedOrder e = new EnrichedOrder();
            e.orderId = order.orderId;
            e.customerId = order.customerId;
            e.amount = order.amount;
            if (customer != null) {
                e.name = (String) customer.getField("name");
                e.country = (String) customer.getField("country");
                e.credit = (BigDecimal) customer.getField("credit");
            }
            return e;
        }

        @Override
        public String toString() {
            return String.format(
                    "%8d  %11d  %8s  %-17s  %-7s  %10s",
                    orderId, customerId, amount, name, country, credit);
        }
    }

    private DataStreamEnrichmentExample() {}

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args, Set.of("customers", "orders", "dir", "print"));
        SqlEnrichmentExample.Settings settings =
                new SqlEnrichmentExample.Settings(
                        a.path(
                                "dir",
                                Path.of(
                                        System.getProperty("java.io.tmpdir"),
                                        "parquet-lookup-example")),
                        a.count("customers", 1_000_000),
                        a.count("orders", 200_000),
                        (int) a.count("print", 10));
        run(settings, System.out, e -> {});
        System.exit(0); // the embedded cluster's non-daemon threads must not keep the JVM alive
    }

    /** Runs the example, printing to {@code out}; {@code each} sees every enriched order. */
    public static EnrichmentReport run(
            SqlEnrichmentExample.Settings settings, PrintStream out, Consumer<EnrichedOrder> each)
            throws Exception {
        out.println("parquet-lookup: DataStream enrichment example");
        Path customers = CustomerDimension.ensure(settings.dataDir(), settings.customers());
        out.printf("Customer dimension: %,d rows in %s%n", settings.customers(), customers);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        long customerCount = settings.customers();
        DataGeneratorSource<Order> source =
                new DataGeneratorSource<>(
                        i -> Order.generate(i, customerCount),
                        settings.orders(),
                        TypeInformation.of(Order.class));
        DataStream<Order> orders =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders");

        DataStream<EnrichedOrder> enriched =
                AsyncDataStream.unorderedWait(
                        orders,
                        ParquetEnrichment.<Order>from(customers.toUri().toString())
                                .name("customers")
                                .key(order -> order.customerId)
                                .columns("name", "country", "credit")
                                .join(
                                        (Order order, Row customer) ->
                                                EnrichedOrder.of(order, customer))
                                .build(),
                        30,
                        TimeUnit.SECONDS,
                        1000);

        out.printf(
                "Enriching %,d generated orders with AsyncDataStream.unorderedWait%n",
                settings.orders());
        List<String> sample = new ArrayList<>();
        long count = 0;
        long misses = 0;
        EnrichmentReport.Clock clock = new EnrichmentReport.Clock(settings.orders());
        try (CloseableIterator<EnrichedOrder> it = enriched.executeAndCollect("enrichment")) {
            clock.submitted();
            while (it.hasNext()) {
                EnrichedOrder e = it.next();
                if (clock.row()) {
                    out.printf(
                            "%8s  %11s  %8s  %-17s  %-7s  %10s%n",
                            "order_id", "customer_id", "amount", "name", "country", "credit");
                }
                count++;
                if (e.name == null) {
                    misses++;
                }
                if (sample.size() < settings.print()) {
                    sample.add(e.toString());
                    out.println(e);
                }
                each.accept(e);
            }
        }
        return clock.finish(count, misses, sample, out);
    }
}
