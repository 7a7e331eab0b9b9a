package dev.parquetlookup.examples;

import org.apache.flink.types.Row;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the README's SQL example at a small size and checks every enriched row. */
class SqlEnrichmentExampleITCase {

    private static final long CUSTOMERS = 5_000;
    private static final long ORDERS = 4_000;

    @TempDir Path dir;

    @Test
    void everyOrderIsEnrichedWithItsCustomerOrNulls() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Set<Long> orderIds = new HashSet<>();
        long[] misses = {0};
        EnrichmentReport report =
                SqlEnrichmentExample.run(
                        new SqlEnrichmentExample.Settings(dir, CUSTOMERS, ORDERS, 5),
                        new PrintStream(printed, true, StandardCharsets.UTF_8),
                        row -> check(row, orderIds, misses));

        assertThat(orderIds).hasSize((int) ORDERS); // each order exactly once (left join)
        assertThat(report.enriched()).isEqualTo(ORDERS);
        assertThat(report.withoutCustomer()).isEqualTo(misses[0]);
        assertThat(misses[0]).isPositive().isLessThan(ORDERS / 4); // ids above 5,000: ~9%
        assertThat(report.sample()).hasSize(5);
        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(output)
                .contains("Customer dimension: 5,000 rows")
                .contains("LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time")
                .contains("Enriched 4,000 orders")
                .contains("planning and submitting the job")
                .contains("events/s over the second half of the orders")
                .contains("time to first enriched row");
        assertThat(report.submitSeconds()).isPositive();
        assertThat(report.firstRowSeconds()).isGreaterThan(report.submitSeconds());
        assertThat(report.seconds()).isGreaterThanOrEqualTo(report.firstRowSeconds());
        assertThat(report.warmEventsPerSecond()).isPositive();
    }

    private static void check(Row row, Set<Long> orderIds, long[] misses) {
        long orderId = (Long) row.getField(0);
        long customerId = (Long) row.getField(1);
        assertThat(orderIds.add(orderId)).as("order %d seen twice", orderId).isTrue();
        assertThat(orderId).isBetween(1L, ORDERS);
        assertThat((BigDecimal) row.getField(2)).isBetween(BigDecimal.ONE, new BigDecimal(500));
        if (customerId <= CUSTOMERS) {
            assertThat(row.getField(3)).isEqualTo(CustomerDimension.name(customerId));
            assertThat(row.getField(4)).isEqualTo(CustomerDimension.country(customerId));
            assertThat(row.getField(5)).isEqualTo(CustomerDimension.credit(customerId));
        } else {
            misses[0]++;
            assertThat(row.getField(3)).isNull();
            assertThat(row.getField(4)).isNull();
            assertThat(row.getField(5)).isNull();
        }
    }
}
