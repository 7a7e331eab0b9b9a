package dev.parquetlookup.bench;

import dev.parquetlookup.bench.ObjectStoreSuite.CaseKey;
import dev.parquetlookup.bench.WindowedJoin.Job;
import dev.parquetlookup.bench.WindowedJoin.Window;

import org.jfree.data.category.DefaultCategoryDataset;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Owns the {@code objectstore} suite's output: the server ceiling's {@code RESULT} line, one line
 * per system, case and window (median job, min and max), the two bounds of each S3 window (server
 * ceiling and in-flight limit / D, turned into events/s by the window's GETs per event), the {@code
 * RATIO} lines (ours/bound, ours/bound_1get, ours/local) and the chart {@code
 * objectstore-events.png}.
 */
final class ObjectStoreReport {

    private final BenchOptions options;
    private final Report report;

    /** Rows by {@code system/case}, for the ratios and the chart. */
    private final Map<String, ResultRow> rows = new LinkedHashMap<>();

    /** Bounds by {@code case/bound} and {@code case/bound_1get}, events/s. */
    private final Map<String, Double> bounds = new LinkedHashMap<>();

    ObjectStoreReport(BenchOptions options, Report report) {
        this.options = options;
        this.report = report;
    }

    /** Writes every line and the chart; the better of the two ceilings counts. */
    void write(
            Map<CaseKey, List<Job>> jobs,
            List<Integer> delays,
            long window,
            S3Ceiling.Result start,
            S3Ceiling.Result end) {
        S3Ceiling.Result ceiling = start.getsPerSecond() >= end.getsPerSecond() ? start : end;
        ceilingRow(ceiling, start, end);
        for (Map.Entry<CaseKey, List<Job>> e : jobs.entrySet()) {
            for (boolean cold : new boolean[] {true, false}) {
                caseRow(e.getKey(), e.getValue(), cold, ceiling);
            }
        }
        ratiosAndChart(delays, window);
    }

    private void ceilingRow(S3Ceiling.Result c, S3Ceiling.Result start, S3Ceiling.Result end) {
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("range_bytes", Integer.toString(c.rangeBytes()));
        extra.put("clients", Integer.toString(c.clients()));
        extra.put("request_ms", ResultRow.fmt2(c.meanRequestMillis()));
        extra.put("inflight_mean", ResultRow.fmt1(c.meanInFlight()));
        extra.put("inflight_max", Integer.toString(c.maxInFlight()));
        extra.put("gets", Long.toString(c.gets()));
        extra.put("window_ms", Long.toString(c.window().toMillis()));
        extra.put("gets_per_s_start", ResultRow.fmt0(start.getsPerSecond()));
        extra.put("gets_per_s_end", ResultRow.fmt0(end.getsPerSecond()));
        report.result(
                new ResultRow(
                        ObjectStoreSuite.SUITE,
                        ObjectStoreSuite.CEILING,
                        "d0-ranged-get-" + c.rangeBytes() / 1024 + "k",
                        c.clients(),
                        c.getsPerSecond(),
                        c.meanRequestMillis() * 1e3,
                        c.meanRequestMillis() * 1e3,
                        (double) c.rangeBytes(),
                        1.0,
                        null,
                        Math.min(start.getsPerSecond(), end.getsPerSecond()),
                        c.getsPerSecond(),
                        2,
                        extra));
    }

    /** One window of one case: the median job's, with the min and max over the jobs. */
    private void caseRow(CaseKey key, List<Job> jobs, boolean cold, S3Ceiling.Result ceiling) {
        List<Job> list = new ArrayList<>(jobs);
        list.sort(
                (a, b) ->
                        Double.compare(
                                window(a, cold).eventsPerSecond(),
                                window(b, cold).eventsPerSecond()));
        Job median = list.get(list.size() / 2);
        Window w = window(median, cold);
        double min = window(list.get(0), cold).eventsPerSecond();
        double max = window(list.get(list.size() - 1), cold).eventsPerSecond();
        double[] firsts = jobs.stream().mapToDouble(Job::firstRowMillis).sorted().toArray();
        String caseName = key.caseName() + "-" + (cold ? "cold" : "warm");
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("first_row_ms", ResultRow.fmt1(firsts[firsts.length / 2]));
        extra.put("events", Long.toString(w.events()));
        extra.put("window_ms", ResultRow.fmt0(w.seconds() * 1e3));
        Double getsPerEvent = null;
        Double bytesPerEvent = null;
        if (key.system().equals(ObjectStoreSuite.S3)) {
            getsPerEvent = w.events() == 0 ? null : w.getsPerEvent();
            bytesPerEvent = w.events() == 0 ? null : w.responseBytes() / (double) w.events();
            s3Fields(caseName, delayOf(key.caseName()), median, w, ceiling, extra);
        }
        ResultRow row =
                new ResultRow(
                        ObjectStoreSuite.SUITE,
                        key.system(),
                        caseName,
                        options.parallelism(),
                        w.eventsPerSecond(),
                        1e6 / Math.max(1e-9, w.eventsPerSecond()),
                        1e6 / Math.max(1e-9, min),
                        bytesPerEvent,
                        getsPerEvent,
                        null,
                        min,
                        max,
                        list.size(),
                        extra);
        report.result(row);
        rows.put(key.system() + "/" + caseName, row);
    }

    private static Window window(Job job, boolean cold) {
        return cold ? job.cold() : job.warm();
    }

    /** The S3 window's requests, in flight figures and bounds. */
    private void s3Fields(
            String caseName,
            int d,
            Job median,
            Window w,
            S3Ceiling.Result c,
            Map<String, String> extra) {
        extra.put("delay_ms", Integer.toString(d));
        extra.put("open_gets", Long.toString(median.openGets()));
        extra.put("gets_per_s", ResultRow.fmt0(w.gets() / w.seconds()));
        extra.put("request_ms", ResultRow.fmt2(w.meanRequestMillis()));
        extra.put("inflight_mean", ResultRow.fmt2(w.meanInFlight()));
        extra.put("inflight_max", Integer.toString(w.maxInFlight()));
        int limit = options.inflightLimit() > 0 ? options.inflightLimit() : w.maxInFlight();
        extra.put("inflight_limit", Integer.toString(limit));
        extra.put("inflight_limit_from", options.inflightLimit() > 0 ? "option" : "observed_max");
        double concurrencyGets =
                d == 0 || limit == 0 ? Double.POSITIVE_INFINITY : limit * 1000.0 / d;
        double g = w.events() == 0 ? 0 : w.getsPerEvent();
        double serverBound = g > 0 ? c.getsPerSecond() / g : Double.POSITIVE_INFINITY;
        double concBound = g > 0 ? concurrencyGets / g : Double.POSITIVE_INFINITY;
        double bound = Math.min(serverBound, concBound);
        extra.put("bound_server", fmtBound(serverBound));
        extra.put("bound_concurrency", fmtBound(concBound));
        extra.put(
                "binding_bound",
                Double.isInfinite(bound)
                        ? "none"
                        : serverBound <= concBound ? "server" : "concurrency");
        double served = w.gets() / w.seconds();
        extra.put(
                "server_utilisation",
                c.getsPerSecond() > 0 ? ResultRow.fmt2(served / c.getsPerSecond()) : "NA");
        if (served > c.getsPerSecond()) {
            report.note(
                    String.format(
                            Locale.ROOT,
                            "ceiling suite=objectstore case=%s served %.0f GETs/s, more than the"
                                    + " measured server ceiling (%.0f): the ceiling was taken"
                                    + " under heavier load, so bounds from it are too low",
                            caseName,
                            served,
                            c.getsPerSecond()));
        }
        bounds.put(caseName + "/bound", bound);
        bounds.put(caseName + "/bound_1get", Math.min(c.getsPerSecond(), concurrencyGets));
    }

    private void ratiosAndChart(List<Integer> delays, long window) {
        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        for (String mix : List.of("uniform", "skewed")) {
            for (String phase : List.of("cold", "warm")) {
                String series = mix + " " + phase;
                ResultRow local = rows.get(ObjectStoreSuite.LOCAL + "/" + mix + "-" + phase);
                if (local != null) {
                    chart.addValue(Math.max(1, local.opsPerSec()), series, "local");
                }
                for (int d : delays) {
                    String caseName = "d" + d + "-" + mix + "-" + phase;
                    ResultRow ours = rows.get(ObjectStoreSuite.S3 + "/" + caseName);
                    if (ours != null) {
                        chart.addValue(Math.max(1, ours.opsPerSec()), series, "D=" + d + "ms");
                        ratios(caseName, ours, local);
                    }
                }
            }
        }
        for (int d : delays) {
            Double b = bounds.get("d" + d + "-uniform-cold/bound_1get");
            if (b != null && !b.isInfinite()) {
                chart.addValue(b, "bound at 1 GET/event", "D=" + d + "ms");
            }
        }
        try {
            Charts.bars(
                    report.out().resolve("objectstore-events.png"),
                    "SQL lookup join, dimension on S3Proxy at first-byte delay D: enriched events/s"
                            + " (p="
                            + options.parallelism()
                            + ", "
                            + options.rows()
                            + " rows, window "
                            + window
                            + " ms)",
                    "events/s",
                    chart,
                    true);
        } catch (Exception e) {
            throw new IllegalStateException("cannot write objectstore-events.png", e);
        }
    }

    private void ratios(String caseName, ResultRow ours, ResultRow local) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        ratios.put("ours/bound", ratio(ours.opsPerSec(), bounds.get(caseName + "/bound")));
        ratios.put(
                "ours/bound_1get", ratio(ours.opsPerSec(), bounds.get(caseName + "/bound_1get")));
        ratios.put(
                "ours/local",
                local == null ? Double.NaN : ratio(ours.opsPerSec(), local.opsPerSec()));
        report.ratios(ObjectStoreSuite.SUITE, caseName, options.parallelism(), ratios);
    }

    private static int delayOf(String caseName) {
        return Integer.parseInt(caseName.substring(1, caseName.indexOf('-')));
    }

    private static double ratio(double ours, Double bound) {
        if (bound == null || bound.isInfinite() || bound.isNaN() || bound <= 0) {
            return Double.NaN;
        }
        return ours / bound;
    }

    private static String fmtBound(double v) {
        return Double.isInfinite(v) || Double.isNaN(v) ? "NA" : ResultRow.fmt0(v);
    }
}
