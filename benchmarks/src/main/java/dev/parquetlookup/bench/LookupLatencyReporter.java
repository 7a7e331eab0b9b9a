package dev.parquetlookup.bench;

import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A metric reporter of the embedded cluster (same JVM) that keeps the lookup functions' {@code
 * lookupLatencyMicros} histograms (the last 1,024 lookups of each subtask), so the {@code
 * objectstore} suite's tail case can read the lookups' latency percentiles at a job's end: the
 * values of a histogram are kept when the job ends and it is removed. Registered through {@link
 * Factory} ({@code metrics.reporter.lookuplatency.factory.class}).
 */
public final class LookupLatencyReporter implements MetricReporter {

    private static final Set<Histogram> LIVE = ConcurrentHashMap.newKeySet();
    private static final List<long[]> ENDED = new ArrayList<>();

    /** Forgets every histogram seen so far: call before a job. */
    static synchronized void reset() {
        LIVE.clear();
        ENDED.clear();
    }

    /**
     * The {@code q}-quantiles (0..1) of the lookups' latencies in microseconds over the histograms
     * since {@link #reset()} (live ones and those of ended jobs), or NaN without any value.
     */
    static synchronized double[] quantiles(double... q) {
        List<long[]> all = new ArrayList<>(ENDED);
        for (Histogram h : LIVE) {
            all.add(h.getStatistics().getValues());
        }
        long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        double[] result = new double[q.length];
        for (int i = 0; i < q.length; i++) {
            result[i] =
                    merged.length == 0
                            ? Double.NaN
                            : merged[
                                    (int)
                                            Math.min(
                                                    merged.length - 1,
                                                    Math.round(q[i] * (merged.length - 1)))];
        }
        return result;
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Histogram h && name.equals("lookupLatencyMicros")) {
            LIVE.add(h);
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        if (metric instanceof Histogram h && LIVE.remove(h)) {
            synchronized (LookupLatencyReporter.class) {
                ENDED.add(h.getStatistics().getValues());
            }
        }
    }

    /** The factory Flink finds through {@code META-INF/services}. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new LookupLatencyReporter();
        }
    }
}
