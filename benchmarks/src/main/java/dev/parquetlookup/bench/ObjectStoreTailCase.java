package dev.parquetlookup.bench;

import dev.parquetlookup.bench.WindowedJoin.Job;
import dev.parquetlookup.bench.WindowedJoin.Window;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.s3proxy.Faults;
import dev.parquetlookup.s3proxy.LatencyProxy;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code objectstore} suite's tail case: every lookup goes to S3 (no page cache, {@code
 * local-cache.max-bytes} = 0, {@code warmup} = none) at D = {@value #DELAY_MS} ms, and the proxy
 * holds 1 in {@value #HOLD_ONE_IN} ranged GETs a further 3-8 s (seeded), as object stores' tails
 * do. Six jobs, uniform keys: no spikes (hedging on), spikes with hedging on (the default), spikes
 * with hedging off ({@code hadoop.parquet-lookup.hedge.enabled} = false), then the same three with
 * Flink's unordered asynchronous output ({@code table.exec.async-lookup.output-mode} = {@code
 * ALLOW_UNORDERED}). Per job: enriched events/s of the warm window, GETs, hedges sent (the extra
 * requests), hedges won, and the lookups' p99 latency (the lookup functions' {@code
 * lookupLatencyMicros}, last 1,024 lookups per subtask at the job's end) over the median GET
 * latency the hedging reader learnt (and the hedge delay it learnt), and the window's events/s over
 * the bound the suite's other S3 cases state ({@link #bound}: {@code ours_over_bound} in the RESULT
 * line, {@code ours/bound} in the NOTE line). {@code RATIO} lines: events/s with spikes over
 * without, hedged and unhedged, ordered and not.
 *
 * <p>Those jobs run as fast as the machine goes, so their GETs queue. {@link #runPaced} runs the
 * ordered ones again on a key stream paced to a total rate (issue 26's held-out check: 400
 * events/s), with every figure taken from the warm window alone.
 */
final class ObjectStoreTailCase {

    static final int DELAY_MS = 20;
    static final int HOLD_ONE_IN = 50;
    static final Duration HOLD_MIN = Duration.ofSeconds(3);
    static final Duration HOLD_MAX = Duration.ofSeconds(8);
    static final long SEED = 20_261_205L;
    static final String CASE = "tail-d20-uniform";

    private final Report report;
    private final PrintStream log;

    ObjectStoreTailCase(Report report, PrintStream log) {
        this.report = report;
        this.log = log;
    }

    /**
     * A job's variant: its dimension table, whether the proxy holds responses, and whether Flink
     * may emit lookups out of order ({@code table.exec.async-lookup.output-mode} = {@code
     * ALLOW_UNORDERED}).
     */
    private record Variant(String name, String dim, boolean spikes, boolean unordered) {

        /** The proxy's faults for this job: with spikes, some GETs held (seeded); else none. */
        Faults faults() {
            return spikes
                    ? Faults.none().withHolds(HOLD_ONE_IN, HOLD_MIN, HOLD_MAX, SEED)
                    : Faults.none();
        }
    }

    static final String OUTPUT_MODE = "table.exec.async-lookup.output-mode";

    private static final org.apache.flink.configuration.ConfigOption<String> OUTPUT_MODE_OPTION =
            org.apache.flink.configuration.ConfigOptions.key(OUTPUT_MODE)
                    .stringType()
                    .defaultValue("ORDERED");

    /**
     * Runs the three jobs; {@code hedged} and {@code unhedged} are dimension tables on the S3 file
     * with every lookup going to S3, the latter with hedging off.
     */
    void run(
            StreamTableEnvironment tables,
            LatencyProxy proxy,
            String hedged,
            String unhedged,
            long window,
            long gap)
            throws Exception {
        Variant[] variants = {
            new Variant("no-spikes", hedged, false, false),
            new Variant("spikes-hedged", hedged, true, false),
            new Variant("spikes-unhedged", unhedged, true, false),
            new Variant("unordered-no-spikes", hedged, false, true),
            new Variant("unordered-spikes-hedged", hedged, true, true),
            new Variant("unordered-spikes-unhedged", unhedged, true, true)
        };
        Map<String, Double> eventsPerSecond = new LinkedHashMap<>();
        long medianGetMicros = 0;
        long delayMicros = 0;
        proxy.setDelay(Duration.ofMillis(DELAY_MS));
        for (Variant v : variants) {
            proxy.setFaults(v.faults());
            HedgeStatistics h = HedgeStatistics.shared();
            long gets0 = h.gets();
            long sent0 = h.hedgesSent();
            long won0 = h.hedgesWon();
            long over0 = h.hedgesOverBudget();
            LookupLatencyReporter.reset();
            String mode = tables.getConfig().get(OUTPUT_MODE_OPTION);
            if (v.unordered()) {
                tables.getConfig().set(OUTPUT_MODE, "ALLOW_UNORDERED");
            }
            Job job;
            try {
                job = WindowedJoin.run(tables, "keys_uniform", v.dim(), proxy, window, gap);
            } finally {
                tables.getConfig().set(OUTPUT_MODE, mode);
            }
            double[] q = LookupLatencyReporter.quantiles(0.5, 0.99);
            if (v.dim().equals(hedged)) {
                medianGetMicros = h.medianMicros();
                delayMicros = h.delayMicros();
            }
            // The counters are the JVM's (every hedging reader of every table and job): the
            // unhedged table's reader is not hedging and counts nothing, so what they move during
            // its job is earlier jobs' readers finishing their GETs. Its figures are 0 by design.
            boolean hedging = v.dim().equals(hedged);
            long gets = hedging ? h.gets() - gets0 : 0;
            long sent = hedging ? h.hedgesSent() - sent0 : 0;
            long won = hedging ? h.hedgesWon() - won0 : 0;
            long over = hedging ? h.hedgesOverBudget() - over0 : 0;
            Faults.Counts faults = proxy.faultCounts();
            double eps = job.warm().eventsPerSecond();
            eventsPerSecond.put(v.name(), eps);
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("variant", v.name());
            extra.putAll(
                    hedgeFigures(
                            job,
                            faults.held(),
                            new long[] {gets, sent, won, over},
                            medianGetMicros,
                            delayMicros,
                            q[1],
                            0));
            extra.put("first_row_ms", ResultRow.fmt0(job.firstRowMillis()));
            extra.put("load", ObjectStoreSuite.loadAverage());
            result(v.name(), job, eps, q[0], q[1], extra);
            log.printf(
                    Locale.ROOT,
                    "NOTE objectstore tail %s %s warm=%.0f/s cold=%.0f/s held=%d gets=%d"
                            + " hedges=%d won=%d over_budget=%d p50_lookup_us=%.0f"
                            + " p99_lookup_us=%.0f median_get_us=%d hedge_delay_us=%d"
                            + " ours/bound=%s load=%s%n",
                    v.name(),
                    v.dim(),
                    eps,
                    job.cold().eventsPerSecond(),
                    faults.held(),
                    gets,
                    sent,
                    won,
                    over,
                    q[0],
                    q[1],
                    medianGetMicros,
                    delayMicros,
                    extra.get("ours_over_bound"),
                    ObjectStoreSuite.loadAverage());
        }
        proxy.setFaults(Faults.none());
        double base = eventsPerSecond.get("no-spikes");
        ratio("spikes_hedged/no_spikes", eventsPerSecond.get("spikes-hedged") / base);
        ratio("spikes_unhedged/no_spikes", eventsPerSecond.get("spikes-unhedged") / base);
        double unorderedBase = eventsPerSecond.get("unordered-no-spikes");
        ratio(
                "unordered_spikes_hedged/unordered_no_spikes",
                eventsPerSecond.get("unordered-spikes-hedged") / unorderedBase);
        ratio(
                "unordered_spikes_unhedged/unordered_no_spikes",
                eventsPerSecond.get("unordered-spikes-unhedged") / unorderedBase);
        ratio("unordered_no_spikes/no_spikes", unorderedBase / base);
    }

    /**
     * The paced jobs: the same jobs (every lookup to S3, D = {@value #DELAY_MS} ms, ordered output)
     * on {@code keys}, a key stream paced to {@code rate} events/s in total ({@link PacedKeys}),
     * without spikes, with spikes hedged, with spikes hedged on {@code tuned} (a table with other
     * hedging settings, when given) and with spikes unhedged. Every figure is of the warm window
     * alone, read while the job runs ({@link WindowedJoin.WarmProbe}): events/s, GETs and hedges,
     * held GETs, and the lookups' latencies kept at the window's end (the last {@value
     * LookupLatencyReporter#KEPT} lookups of each subtask; {@code samples_in_window} says whether
     * all of them ended in the window). {@code RATIO}: events/s with spikes over without.
     */
    void runPaced(
            StreamTableEnvironment tables,
            LatencyProxy proxy,
            String keys,
            String hedged,
            String unhedged,
            @Nullable String tuned,
            int rate,
            long window,
            long gap)
            throws Exception {
        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant("paced-no-spikes", hedged, false, false));
        variants.add(new Variant("paced-spikes-hedged", hedged, true, false));
        if (tuned != null) {
            variants.add(new Variant("paced-spikes-hedged-tuned", tuned, true, false));
        }
        variants.add(new Variant("paced-spikes-unhedged", unhedged, true, false));
        Map<String, Double> eventsPerSecond = new LinkedHashMap<>();
        long medianGetMicros = 0;
        long delayMicros = 0;
        proxy.setDelay(Duration.ofMillis(DELAY_MS));
        for (Variant v : variants) {
            proxy.setFaults(v.faults());
            LookupLatencyReporter.reset();
            WarmReadings warm = new WarmReadings(proxy);
            Job job = WindowedJoin.run(tables, keys, v.dim(), proxy, window, gap, warm);
            boolean hedging = !v.dim().equals(unhedged);
            if (hedging) {
                medianGetMicros = warm.medianGetMicros;
                delayMicros = warm.delayMicros;
            }
            // As in run(): the unhedged table's reader counts nothing; its figures are 0.
            long gets = hedging ? warm.gets : 0;
            long sent = hedging ? warm.sent : 0;
            long won = hedging ? warm.won : 0;
            long over = hedging ? warm.over : 0;
            LookupLatencyReporter.Sample lat = warm.latencies;
            double p50 = lat.quantile(0.5);
            double p99 = lat.quantile(0.99);
            double eps = job.warm().eventsPerSecond();
            eventsPerSecond.put(v.name(), eps);
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("variant", v.name());
            extra.put("rate_target", Integer.toString(rate));
            extra.put("window_ms", Long.toString(window));
            extra.putAll(
                    hedgeFigures(
                            job,
                            warm.held,
                            new long[] {gets, sent, won, over},
                            medianGetMicros,
                            delayMicros,
                            p99,
                            rate));
            extra.put("p90_lookup_us", ResultRow.fmt0(lat.quantile(0.9)));
            extra.put("p95_lookup_us", ResultRow.fmt0(lat.quantile(0.95)));
            extra.put("p98_lookup_us", ResultRow.fmt0(lat.quantile(0.98)));
            extra.put("p999_lookup_us", ResultRow.fmt0(lat.quantile(0.999)));
            extra.put("max_lookup_us", ResultRow.fmt0(lat.quantile(1)));
            extra.put("lookups", Long.toString(lat.lookups()));
            extra.put("latency_samples", Integer.toString(lat.sorted().length));
            extra.put("samples_in_window", Boolean.toString(lat.inWindow()));
            extra.put(
                    "store_gets_per_lookup",
                    ResultRow.fmt2(
                            lat.lookups() == 0 ? Double.NaN : gets / (double) lat.lookups()));
            extra.put("request_ms", ResultRow.fmt1(job.warm().meanRequestMillis()));
            extra.put("inflight_mean", ResultRow.fmt1(job.warm().meanInFlight()));
            extra.put("inflight_max", Integer.toString(job.warm().maxInFlight()));
            extra.put("connections_opened", Long.toString(warm.connections));
            extra.put("first_row_ms", ResultRow.fmt0(job.firstRowMillis()));
            extra.put("load", ObjectStoreSuite.loadAverage());
            result(v.name(), job, eps, p50, p99, extra);
            log.printf(
                    Locale.ROOT,
                    "NOTE objectstore tail %s %s warm=%.0f/s target=%d/s cold=%.0f/s held=%d"
                            + " gets=%d hedges=%d won=%d over_budget=%d p50_lookup_us=%.0f"
                            + " p90_lookup_us=%.0f p95_lookup_us=%.0f p98_lookup_us=%.0f"
                            + " p99_lookup_us=%.0f p999_lookup_us=%.0f"
                            + " max_lookup_us=%.0f median_get_us=%d hedge_delay_us=%d"
                            + " lookups=%d samples=%d in_window=%s ours/bound=%s load=%s%n",
                    v.name(),
                    v.dim(),
                    eps,
                    rate,
                    job.cold().eventsPerSecond(),
                    warm.held,
                    gets,
                    sent,
                    won,
                    over,
                    p50,
                    lat.quantile(0.9),
                    lat.quantile(0.95),
                    lat.quantile(0.98),
                    p99,
                    lat.quantile(0.999),
                    lat.quantile(1),
                    medianGetMicros,
                    delayMicros,
                    lat.lookups(),
                    lat.sorted().length,
                    lat.inWindow(),
                    extra.get("ours_over_bound"),
                    ObjectStoreSuite.loadAverage());
        }
        proxy.setFaults(Faults.none());
        double base = eventsPerSecond.get("paced-no-spikes");
        ratio(
                "paced_spikes_hedged/paced_no_spikes",
                eventsPerSecond.get("paced-spikes-hedged") / base);
        if (tuned != null) {
            ratio(
                    "paced_spikes_hedged_tuned/paced_no_spikes",
                    eventsPerSecond.get("paced-spikes-hedged-tuned") / base);
        }
        ratio(
                "paced_spikes_unhedged/paced_no_spikes",
                eventsPerSecond.get("paced-spikes-unhedged") / base);
    }

    private void ratio(String name, double value) {
        report.ratioLine(ObjectStoreSuite.SUITE, CASE, 1, name, value);
    }

    /**
     * The figures every tail job reports after its variant: cold events/s, held GETs, the hedging
     * counters ({@code counters}: GETs, hedges sent, won, over budget), the learnt median GET and
     * delay, and the p99 lookup over that median.
     */
    private static Map<String, String> hedgeFigures(
            Job job,
            long held,
            long[] counters,
            long medianGetMicros,
            long delayMicros,
            double p99,
            int rate) {
        long gets = counters[0];
        long sent = counters[1];
        Map<String, String> extra = new LinkedHashMap<>();
        extra.putAll(bound(job.warm(), rate));
        extra.put("cold_events_per_s", ResultRow.fmt0(job.cold().eventsPerSecond()));
        extra.put("held", Long.toString(held));
        extra.put("store_gets", Long.toString(gets));
        extra.put("hedges", Long.toString(sent));
        extra.put("hedges_won", Long.toString(counters[2]));
        extra.put("hedges_over_budget", Long.toString(counters[3]));
        extra.put("extra_requests_pct", ResultRow.fmt2(gets == 0 ? 0 : 100.0 * sent / gets));
        extra.put("median_get_us", Long.toString(medianGetMicros));
        extra.put("hedge_delay_us", Long.toString(delayMicros));
        extra.put(
                "p99_lookup_over_median_get",
                ResultRow.fmt2(medianGetMicros == 0 ? Double.NaN : p99 / medianGetMicros));
        return extra;
    }

    /**
     * The events/s the warm window could reach, as the suite's other S3 cases state it: the
     * concurrency bound (the most requests seen in flight, each taking D ms, over the window's GETs
     * per event), and for a paced job at most its {@code rate} (0: not paced); {@code
     * ours_over_bound} is the window's events/s over that bound.
     */
    static Map<String, String> bound(Window w, int rate) {
        double g = w.events() == 0 ? 0 : w.getsPerEvent();
        double concurrency =
                g > 0 && w.maxInFlight() > 0
                        ? w.maxInFlight() * 1000.0 / DELAY_MS / g
                        : Double.POSITIVE_INFINITY;
        boolean paced = rate > 0 && rate < concurrency;
        double bound = paced ? rate : concurrency;
        Map<String, String> figures = new LinkedHashMap<>();
        figures.put("bound", Double.isInfinite(bound) ? "NA" : ResultRow.fmt0(bound));
        figures.put(
                "binding_bound",
                Double.isInfinite(bound) ? "none" : paced ? "rate" : "concurrency");
        figures.put(
                "ours_over_bound",
                Double.isInfinite(bound) ? "NA" : ResultRow.fmt2(w.eventsPerSecond() / bound));
        return figures;
    }

    /** The job's RESULT row: its warm window's events/s, lookup latencies, bytes and GETs. */
    private void result(
            String variant,
            Job job,
            double eps,
            double p50,
            double p99,
            Map<String, String> extra) {
        Window warm = job.warm();
        report.result(
                new ResultRow(
                        ObjectStoreSuite.SUITE,
                        ObjectStoreSuite.S3 + "-" + variant,
                        CASE,
                        1,
                        eps,
                        p50,
                        p99,
                        warm.events() == 0 ? 0 : warm.responseBytes() / (double) warm.events(),
                        // No event in a short window (the smoke test's): no ratio.
                        warm.events() == 0 ? null : warm.getsPerEvent(),
                        null,
                        eps,
                        eps,
                        1,
                        extra));
    }

    /**
     * What a paced job did in its warm window: the hedging readers' counters (differences), the
     * median GET and hedge delay learnt at its end, the GETs the proxy held, and the lookups'
     * latencies at its end.
     */
    private static final class WarmReadings implements WindowedJoin.WarmProbe {
        private final LatencyProxy proxy;
        private final HedgeStatistics h = HedgeStatistics.shared();
        private long gets;
        private long sent;
        private long won;
        private long over;
        private long held;
        private long connections;
        private long medianGetMicros;
        private long delayMicros;
        private Map<org.apache.flink.metrics.Histogram, Long> counts = Map.of();
        private LookupLatencyReporter.Sample latencies =
                new LookupLatencyReporter.Sample(new long[0], 0, false);

        WarmReadings(LatencyProxy proxy) {
            this.proxy = proxy;
        }

        @Override
        public void start() {
            gets = h.gets();
            sent = h.hedgesSent();
            won = h.hedgesWon();
            over = h.hedgesOverBudget();
            held = proxy.faultCounts().held();
            counts = LookupLatencyReporter.counts();
        }

        @Override
        public void end() {
            latencies = LookupLatencyReporter.sample(counts);
            gets = h.gets() - gets;
            sent = h.hedgesSent() - sent;
            won = h.hedgesWon() - won;
            over = h.hedgesOverBudget() - over;
            held = proxy.faultCounts().held() - held;
            connections = proxy.stats().connections(); // the proxy's window is the warm one
            medianGetMicros = h.medianMicros();
            delayMicros = h.delayMicros();
        }
    }
}
