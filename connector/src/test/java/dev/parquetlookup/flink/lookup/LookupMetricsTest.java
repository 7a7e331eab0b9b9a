package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.io.ReadStatistics;

import org.apache.flink.metrics.testutils.MetricListener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LookupMetricsTest {

    @Test
    void countsLookupsRowsMissesAndLatency() {
        MetricListener listener = new MetricListener();
        ReadStatistics statistics = new ReadStatistics();
        LookupMetrics metrics = new LookupMetrics(listener.getMetricGroup(), () -> statistics);

        metrics.recordLookup(12_000, 3);
        metrics.recordLookup(8_000, 0);
        metrics.recordFailure();

        assertThat(listener.getCounter(LookupMetrics.GROUP, "numLookups").get().getCount())
                .isEqualTo(3);
        assertThat(listener.getCounter(LookupMetrics.GROUP, "numRowsReturned").get().getCount())
                .isEqualTo(3);
        assertThat(listener.getCounter(LookupMetrics.GROUP, "numMisses").get().getCount())
                .isEqualTo(1);
        assertThat(listener.getCounter(LookupMetrics.GROUP, "numFailedLookups").get().getCount())
                .isEqualTo(1);
        assertThat(
                        listener.getHistogram(LookupMetrics.GROUP, "lookupLatencyMicros")
                                .get()
                                .getStatistics()
                                .getMax())
                .isEqualTo(12);
        assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, "bytesRead").get().getValue())
                .isZero();
        assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, "readRequests").get().getValue())
                .isZero();
    }
}
