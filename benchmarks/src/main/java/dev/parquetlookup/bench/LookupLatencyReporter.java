package dev.parquetlookup.bench;

import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    /** The lookups a {@code lookupLatencyMicros} histogram keeps (the connector's window). */
    static final int KEPT = 1024;

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
            result[i] = quantile(merged, q[i]);
        }
        return result;
    }

    /** The {@code q}-quantile (0..1) of {@code sorted}, or NaN when it is empty. */
    private static double quantile(long[] sorted, double q) {
        return sorted.length == 0
                ? Double.NaN
                : sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }

    /**
     * How many lookups each live histogram (one per subtask of the running job) has recorded so
     * far: the start of a window for {@link #sample}.
     */
    static synchronized Map<Histogram, Long> counts() {
        Map<Histogram, Long> counts = new HashMap<>();
        for (Histogram h : LIVE) {
            counts.put(h, h.getCount());
        }
        return counts;
    }

    /**
     * The latencies the live histograms keep now (the last {@value #KEPT} lookups of each subtask),
     * with the lookups they recorded since {@code since} ({@link #counts()} at a window's start).
     * Read while the job runs, at the window's end.
     */
    static synchronized Sample sample(Map<Histogram, Long> since) {
        List<long[]> all = new ArrayList<>();
        long lookups = 0;
        boolean inWindow = true;
        for (Histogram h : LIVE) {
            long count = h.getCount();
            long[] values = h.getStatistics().getValues();
            long recorded = count - since.getOrDefault(h, 0L);
            lookups += recorded;
            // Read after the count: a few lookups recorded in between are newer still.
            inWindow &= values.length <= recorded;
            all.add(values);
        }
        return new Sample(
                all.stream().flatMapToLong(Arrays::stream).sorted().toArray(), lookups, inWindow);
    }

    /**
     * The lookup latencies (microseconds) of a window's end.
     *
     * @param sorted the kept latencies, ascending (at most {@value #KEPT} per subtask)
     * @param lookups the lookups recorded in the window (all of them, kept or not)
     * @param inWindow every kept latency is of a lookup that ended in the window (each subtask
     *     recorded at least as many lookups in the window as its histogram keeps)
     */
    record Sample(long[] sorted, long lookups, boolean inWindow) {

        /** The {@code q}-quantile (0..1), or NaN without any value. */
        double quantile(double q) {
            return LookupLatencyReporter.quantile(sorted, q);
        }
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
