package dev.parquetlookup.examples;

import dev.parquetlookup.examples.DataStreamEnrichmentExample.EnrichedOrder;
import dev.parquetlookup.examples.DataStreamEnrichmentExample.Order;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the DataStream example at a small size and checks every enriched order. */
class DataStreamEnrichmentExampleITCase {

    private static final long CUSTOMERS = 5_000;
    private static final long ORDERS = 4_000;

    @TempDir Path dir;

    @Test
    void everyOrderIsEnrichedWithItsCustomerOrNulls() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Set<Long> orderIds = new HashSet<>();
        long[] misses = {0};
        EnrichmentReport report =
                DataStreamEnrichmentExample.run(
                        new SqlEnrichmentExample.Settings(dir, CUSTOMERS, ORDERS, 5),
                        new PrintStream(printed, true, StandardCharsets.UTF_8),
                        e -> check(e, orderIds, misses));

        assertThat(orderIds).hasSize((int) ORDERS);
        assertThat(report.enriched()).isEqualTo(ORDERS);
        assertThat(report.withoutCustomer()).isEqualTo(misses[0]);
        assertThat(misses[0]).isPositive().isLessThan(ORDERS / 4);
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("Enriched 4,000 orders")
                .contains("time to first enriched row");
    }

    private static void check(EnrichedOrder e, Set<Long> orderIds, long[] misses) {
        assertThat(orderIds.add(e.orderId)).as("order %d seen twice", e.orderId).isTrue();
        Order expected = Order.generate(e.orderId - 1, CUSTOMERS);
        assertThat(e.customerId).isEqualTo(expected.customerId);
        assertThat(e.amount).isEqualTo(expected.amount);
        if (e.customerId <= CUSTOMERS) {
            assertThat(e.name).isEqualTo(CustomerDimension.name(e.customerId));
            assertThat(e.country).isEqualTo(CustomerDimension.country(e.customerId));
            assertThat(e.credit).isEqualTo(CustomerDimension.credit(e.customerId));
        } else {
            misses[0]++;
            assertThat(e.name).isNull();
            assertThat(e.country).isNull();
            assertThat(e.credit).isNull();
        }
    }
}
