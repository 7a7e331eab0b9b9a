package dev.parquetlookup.bench;

import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tail case's window readings: the lookups recorded since a window's start, whether the kept
 * latencies all ended in it, and their quantiles; and the paced jobs' window length.
 */
class LookupLatencyReporterTest {

    private final LookupLatencyReporter reporter = new LookupLatencyReporter();

    @AfterEach
    void forget() {
        LookupLatencyReporter.reset();
    }

    private Histogram subtask() {
        Histogram h = new DescriptiveStatisticsHistogram(LookupLatencyReporter.KEPT);
        reporter.notifyOfAddedMetric(h, "lookupLatencyMicros", new UnregisteredMetricsGroup());
        return h;
    }

    private static void record(Histogram h, int lookups, long micros) {
        for (int i = 0; i < lookups; i++) {
            h.update(micros);
        }
    }

    @Test
    void aWindowLongerThanTheHistogramsKeepsOnlyItsOwnLookups() {
        LookupLatencyReporter.reset();
        Histogram a = subtask();
        Histogram b = subtask();
        record(a, 500, 999_000); // before the window: slow, must not show
        record(b, 500, 999_000);
        Map<Histogram, Long> start = LookupLatencyReporter.counts();
        record(a, 1_100, 20_000);
        record(b, 1_000, 20_000);
        record(b, 100, 80_000);

        LookupLatencyReporter.Sample s = LookupLatencyReporter.sample(start);

        assertThat(s.lookups()).isEqualTo(2_200);
        assertThat(s.sorted()).hasSize(2 * LookupLatencyReporter.KEPT);
        assertThat(s.inWindow()).isTrue();
        assertThat(s.quantile(0.5)).isEqualTo(20_000);
        assertThat(s.quantile(0.99)).isEqualTo(80_000);
        assertThat(s.quantile(1)).isEqualTo(80_000);
    }

    @Test
    void aShortWindowSaysItsLatenciesReachBackBeforeIt() {
        LookupLatencyReporter.reset();
        Histogram a = subtask();
        record(a, 2_000, 999_000);
        Map<Histogram, Long> start = LookupLatencyReporter.counts();
        record(a, 300, 20_000);

        LookupLatencyReporter.Sample s = LookupLatencyReporter.sample(start);

        assertThat(s.lookups()).isEqualTo(300);
        assertThat(s.inWindow()).isFalse();
        assertThat(s.quantile(0.99)).isEqualTo(999_000);
    }

    @Test
    void noLookupsGiveNoQuantile() {
        LookupLatencyReporter.reset();
        LookupLatencyReporter.Sample s = LookupLatencyReporter.sample(Map.of());
        assertThat(s.lookups()).isZero();
        assertThat(s.quantile(0.99)).isNaN();
    }

    @Test
    void pacedWindowsHoldTheKeptLookupsWithHalfAsManyToSpare() {
        // 1,024 lookups per subtask at 200/s take 5.12 s; x 1.5 = 7.68 s, whole seconds: 8 s.
        assertThat(ObjectStoreSuite.pacedWindowMillis(400, 2, 5_000)).isEqualTo(8_000);
        assertThat(ObjectStoreSuite.pacedWindowMillis(400, 2, 10_000)).isEqualTo(10_000);
        assertThat(ObjectStoreSuite.pacedWindowMillis(100, 2, 5_000)).isEqualTo(31_000);
        assertThat(ObjectStoreSuite.pacedWindowMillis(4_000, 2, 5_000)).isEqualTo(5_000);
    }
}
