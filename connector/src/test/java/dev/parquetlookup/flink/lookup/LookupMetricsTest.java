package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.metrics.testutils.MetricListener;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LookupMetricsTest {

    @Test
    void countsLookupsRowsMissesAndLatency() {
        MetricListener listener = new MetricListener();
        ReadStatistics statistics = new ReadStatistics();
        MetadataCache metadataCache = new MetadataCache(1 << 20);
        PageCache pageCache = new PageCache(1 << 20);
        LookupMetrics metrics =
                new LookupMetrics(
                        listener.getMetricGroup(), () -> statistics, metadataCache, pageCache);

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
        for (String gauge :
                new String[] {
                    "metadataCacheHits",
                    "metadataCacheMisses",
                    "metadataCacheBytes",
                    "pageCacheHits",
                    "pageCacheMisses",
                    "pageCacheBytes"
                }) {
            assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, gauge).get().getValue())
                    .as(gauge)
                    .isZero();
        }
    }

    @Test
    void hedgeGaugesReportTheTaskManagersObjectStoreClients() {
        MetricListener listener = new MetricListener();
        new LookupMetrics(
                listener.getMetricGroup(), ReadStatistics::new, new MetadataCache(1 << 20), null);
        HedgeStatistics shared = HedgeStatistics.shared();
        assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, "storeGets").get().getValue())
                .isEqualTo(shared.gets());
        assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, "hedgesSent").get().getValue())
                .isEqualTo(shared.hedgesSent());
        assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, "hedgesWon").get().getValue())
                .isEqualTo(shared.hedgesWon());
        assertThat(
                        listener.<Long>getGauge(LookupMetrics.GROUP, "hedgesOverBudget")
                                .get()
                                .getValue())
                .isEqualTo(shared.hedgesOverBudget());
        assertThat(
                        listener.<Long>getGauge(LookupMetrics.GROUP, "hedgeDelayMicros")
                                .get()
                                .getValue())
                .isEqualTo(shared.delayMicros());
    }

    @Test
    void pageCacheGaugesOnlyWhenThePageCacheIsOn() {
        MetricListener listener = new MetricListener();
        new LookupMetrics(
                listener.getMetricGroup(), ReadStatistics::new, new MetadataCache(1 << 20), null);
        assertThat(listener.getGauge(LookupMetrics.GROUP, "pageCacheHits")).isEmpty();
        assertThat(listener.getGauge(LookupMetrics.GROUP, "metadataCacheHits")).isPresent();
        // The TaskManager's key indexes (files not sorted by the key): gauges of every function.
        for (String gauge :
                new String[] {"keyIndexFiles", "keyIndexBytes", "keyIndexBuildMillis"}) {
            assertThat(listener.<Long>getGauge(LookupMetrics.GROUP, gauge).get().getValue())
                    .as(gauge)
                    .isNotNegative();
        }
    }
}
