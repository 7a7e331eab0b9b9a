package dev.parquetlookup.bench;

import dev.parquetlookup.bench.WindowedJoin.Job;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.s3proxy.Faults;
import dev.parquetlookup.s3proxy.LatencyProxy;

import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
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
 * latency the hedging reader learnt (and the hedge delay it learnt). {@code RATIO} lines: events/s
 * with spikes over without, hedged and unhedged, ordered and not.
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
    private record Variant(String name, String dim, boolean spikes, boolean unordered) {}

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
            proxy.setFaults(
                    v.spikes()
                            ? Faults.none().withHolds(HOLD_ONE_IN, HOLD_MIN, HOLD_MAX, SEED)
                            : Faults.none());
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
            extra.put("cold_events_per_s", ResultRow.fmt0(job.cold().eventsPerSecond()));
            extra.put("held", Long.toString(faults.held()));
            extra.put("store_gets", Long.toString(gets));
            extra.put("hedges", Long.toString(sent));
            extra.put("hedges_won", Long.toString(won));
            extra.put("hedges_over_budget", Long.toString(over));
            extra.put("extra_requests_pct", ResultRow.fmt2(gets == 0 ? 0 : 100.0 * sent / gets));
            extra.put("median_get_us", Long.toString(medianGetMicros));
            extra.put("hedge_delay_us", Long.toString(delayMicros));
            extra.put(
                    "p99_lookup_over_median_get",
                    ResultRow.fmt2(medianGetMicros == 0 ? Double.NaN : q[1] / medianGetMicros));
            extra.put("first_row_ms", ResultRow.fmt0(job.firstRowMillis()));
            extra.put("load", ObjectStoreSuite.loadAverage());
            report.result(
                    new ResultRow(
                            ObjectStoreSuite.SUITE,
                            ObjectStoreSuite.S3 + "-" + v.name(),
                            CASE,
                            1,
                            eps,
                            q[0],
                            q[1],
                            job.warm().events() == 0
                                    ? 0
                                    : job.warm().responseBytes() / (double) job.warm().events(),
                            // No event in a short window (the smoke test's): no ratio.
                            job.warm().events() == 0 ? null : job.warm().getsPerEvent(),
                            null,
                            eps,
                            eps,
                            1,
                            extra));
            log.printf(
                    Locale.ROOT,
                    "NOTE objectstore tail %s %s warm=%.0f/s cold=%.0f/s held=%d gets=%d"
                            + " hedges=%d won=%d over_budget=%d p50_lookup_us=%.0f"
                            + " p99_lookup_us=%.0f median_get_us=%d hedge_delay_us=%d load=%s%n",
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
                    ObjectStoreSuite.loadAverage());
        }
        proxy.setFaults(Faults.none());
        double base = eventsPerSecond.get("no-spikes");
        report.ratioLine(
                ObjectStoreSuite.SUITE,
                CASE,
                1,
                "spikes_hedged/no_spikes",
                eventsPerSecond.get("spikes-hedged") / base);
        report.ratioLine(
                ObjectStoreSuite.SUITE,
                CASE,
                1,
                "spikes_unhedged/no_spikes",
                eventsPerSecond.get("spikes-unhedged") / base);
        double unorderedBase = eventsPerSecond.get("unordered-no-spikes");
        report.ratioLine(
                ObjectStoreSuite.SUITE,
                CASE,
                1,
                "unordered_spikes_hedged/unordered_no_spikes",
                eventsPerSecond.get("unordered-spikes-hedged") / unorderedBase);
        report.ratioLine(
                ObjectStoreSuite.SUITE,
                CASE,
                1,
                "unordered_spikes_unhedged/unordered_no_spikes",
                eventsPerSecond.get("unordered-spikes-unhedged") / unorderedBase);
        report.ratioLine(
                ObjectStoreSuite.SUITE,
                CASE,
                1,
                "unordered_no_spikes/no_spikes",
                unorderedBase / base);
    }
}
