package dev.parquetlookup.bench;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.jfree.data.category.DefaultCategoryDataset;

import javax.annotation.Nullable;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code flink} suite: a SQL lookup join on one embedded cluster (MiniCluster, {@code
 * --parallelism} slots, default 2) that all jobs share. Events come from a FLIP-27 sequence source
 * ( {@code id} 1..N, key {@code k = (id * 7919) mod N + 1}, so every event hits and the keys jump
 * across the file) and are enriched from the seed dataset by this connector, in two layouts ({@code
 * --layout}, default both):
 *
 * <ul>
 *   <li>{@code prepared} (system {@code flink-sql}): the writer's default (256-row pages, key
 *       uncompressed), as {@code prepare} writes it: sync and async, {@code lookup.cache} NONE and
 *       PARTIAL, against {@code FULL} and a regular join that loads the whole dimension into Flink
 *       state; on request, async without Flink's timeout timer and/or output order ({@link
 *       FlinkLayouts#DECOMPOSITION});
 *   <li>{@code protocol} (system {@code flink-sql-protocol}, RATIO cases {@code protocol-*}): the
 *       seed protocol's layout as parquet-java writes it (1,024-row pages, every column LZ4_RAW, no
 *       dictionary), a user's files as they lie: sync and async NONE against {@code FULL};
 *   <li>{@code unsorted} (system {@code flink-sql-unsorted}): the same rows scrambled over 10
 *       files, served through key indexes, against the protocol layout's sorted file;
 *   <li>{@code secondary} (system {@code flink-sql-secondary}): the protocol layout's file joined
 *       on {@code v} (a column it is not sorted by, through a key index on {@code v}) against the
 *       same file joined on {@code k}, and the first row against {@code FULL} joined on {@code v}.
 * </ul>
 *
 * The two indexed layouts keep their indexes in a directory of their own ({@code local-cache.dir}
 * under {@code --out}), emptied before the layout's warm-up job, which builds them: the plain
 * variants measure lookups once indexed; their {@code -cold} twins ({@link FlinkLayouts#COLD}) run
 * with the directory emptied before each job, so their first row and rate include the builds.
 *
 * <p>The rows go to a {@code blackhole} sink through a function that fingerprints them (a
 * collecting sink would measure its own polling). A job ends when the cluster's job-result future
 * completes ({@link JobEnd}; REST polling rounded jobs up to the next of 1.27, 2.55, 4.55 s...).
 * Reported per variant: enriched events/s and the time to the first enriched row, both from job
 * submission, the rate after the first row, and the JVM's CPU time per event. Below 1M rows (a
 * smoke run) one job per variant, no warm-up job. RATIO lines: ours / FULL, / the regular join,
 * async / sync. Every variant's rows are fingerprinted and must equal the dataset's answer.
 */
final class FlinkSuite {

    static final String SUITE = "flink";

    /** The RESULT lines' system of the writer's default layout; {@code -protocol} is appended. */
    static final String SYSTEM = "flink-sql";

    /** Events as Flink's internal rows, so the table conversion copies nothing. */
    private static final InternalTypeInfo<RowData> EVENT_TYPE =
            InternalTypeInfo.of(
                    RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"}));

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    FlinkSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /**
     * One job: nanos from submission to its end (the cluster's job-result future), to the return of
     * {@code TableResult.await()} (REST polling, for comparison: see {@link JobEnd}), and to its
     * first enriched row (-1 if none); the process's CPU time from the first row to the end.
     */
    private record Job(
            long nanos,
            long awaitedNanos,
            long firstRowNanos,
            long cpuNanos,
            long rows,
            long fingerprint) {

        double cpuMicrosPerEvent(long events) {
            return cpuNanos / 1e3 / events;
        }
    }

    void run() throws Exception {
        long events =
                options.events() > 0
                        ? options.events()
                        : options.rows() < 1_000_000 ? 2_000 : options.quick() ? 20_000 : 200_000;
        int parallelism = options.parallelism();
        List<FlinkLayouts.LayoutRun> runs = FlinkLayouts.of(options);
        report.conditions(
                SUITE,
                runs.get(0).layout().describe()
                        + " layouts="
                        + String.join(",", runs.stream().map(FlinkLayouts.LayoutRun::name).toList())
                        + " events="
                        + events
                        + " parallelism="
                        + parallelism
                        + " minicluster=embedded sink=blackhole keys=(id*7919)mod_N+1 reps="
                        + repetitions()
                        + " job_end=cluster_job_result load_start="
                        + ObjectStoreSuite.loadAverage());
        long expected = 0;
        for (long id = 1; id <= events; id++) {
            long k = key(id);
            expected += Fingerprint.answer(0, id, CaseRunner.truth(options.rows(), k));
        }
        // One embedded cluster for every job: a local environment would start a new MiniCluster
        // per job, and its start-up would dominate the measured times.
        Configuration conf = new Configuration();
        MiniClusterConfiguration clusterConf = LocalCluster.configuration(conf, parallelism);
        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            StreamExecutionEnvironment env = LocalCluster.environment(cluster, parallelism);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            defineEvents(env, tables, events);
            for (FlinkLayouts.LayoutRun run : runs) {
                Path file =
                        run.files() == 1
                                ? SeedDataset.get(report.out(), run.layout(), log)
                                : SeedDataset.split(report.out(), run.layout(), run.files(), log);
                report.note(
                        "flink layout="
                                + run.name()
                                + " system="
                                + run.system()
                                + " "
                                + run.layout().describe()
                                + " files="
                                + run.files()
                                + " bytes="
                                + SeedDataset.bytes(file));
                createTables(tables, file, run);
                Map<String, List<Job>> jobs = runJobs(cluster, tables, run, events, expected);
                results(run, jobs, events, parallelism, chart);
            }
        }
        unsortedRatios(runs, parallelism);
        secondaryRatios(runs, parallelism);
        report.note("load suite=flink end=" + ObjectStoreSuite.loadAverage());
        Charts.bars(
                report.out().resolve("flink-events.png"),
                "SQL lookup join on MiniCluster: enriched events/s (" + events + " events)",
                "events/s",
                chart,
                false);
    }

    /** The fingerprinting function, the sink and the keyed events every job reads. */
    private void defineEvents(
            StreamExecutionEnvironment env, StreamTableEnvironment tables, long events) {
        tables.createTemporarySystemFunction("fingerprinted", FingerprintFunction.class);
        tables.executeSql(
                "CREATE TEMPORARY TABLE enriched (f BIGINT) WITH ('connector' = 'blackhole')");
        // Events from a FLIP-27 source (the kind a Kafka job has), one equal range per subtask.
        // Flink does not chain an asynchronous operator after a legacy SourceFunction (SQL's
        // datagen), so with datagen the async variants would pay a network hop the sync ones do
        // not.
        tables.createTemporaryView(
                "events",
                tables.fromDataStream(
                        env.fromSource(
                                        new BalancedSequenceSource(1, events),
                                        WatermarkStrategy.noWatermarks(),
                                        "events")
                                .map(id -> (RowData) GenericRowData.of(id))
                                .returns(EVENT_TYPE),
                        Schema.newBuilder()
                                .column("id", DataTypes.BIGINT().notNull())
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
        tables.executeSql(
                String.format(
                        Locale.ROOT,
                        "CREATE TEMPORARY VIEW keyed AS SELECT id, MOD(id * 7919, CAST(%d AS"
                                + " BIGINT)) + 1 AS k, proc FROM events",
                        options.rows()));
        // For the joins on v (a secondary key): v = the hex MD5 of k's decimal text, as the seed's
        // value column is; a view of its own, so the joins on k do not compute it.
        tables.executeSql(
                "CREATE TEMPORARY VIEW keyed_v AS SELECT id, k, MD5(CAST(k AS STRING)) AS v, proc"
                        + " FROM keyed");
    }

    /**
     * Where an indexed layout (unsorted files, joins on v) keeps its key indexes: emptied before
     * its warm-up job and before each job of a cold variant, so that such a job's first row
     * includes the builds (a job restarted on the same files would reuse them).
     */
    private Path indexes(FlinkLayouts.LayoutRun run) {
        return report.out().resolve("flink-" + run.name() + "-indexes");
    }

    private void createTables(
            StreamTableEnvironment tables, Path file, FlinkLayouts.LayoutRun run) {
        for (Map.Entry<String, String> v : run.variants().entrySet()) {
            String with = v.getValue() == null ? "" : ", " + v.getValue();
            if (run.indexed()) {
                with += ", 'local-cache.dir' = '" + indexes(run).toAbsolutePath() + "'";
            }
            tables.executeSql(
                    "CREATE TEMPORARY TABLE "
                            + run.table(v.getKey())
                            + " (k BIGINT, v STRING) WITH ('connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + file.toAbsolutePath().toUri()
                            + "', 'sort-key' = 'k'"
                            + with
                            + ")");
        }
    }

    /** A warm-up job, then every variant per repetition in alternating order, checked. */
    private Map<String, List<Job>> runJobs(
            MiniCluster cluster,
            StreamTableEnvironment tables,
            FlinkLayouts.LayoutRun run,
            long events,
            long expected)
            throws Exception {
        Map<String, List<Job>> jobs = new LinkedHashMap<>();
        if (run.indexed()) {
            LocalCluster.deleteTree(indexes(run));
        }
        if (!smokeSize()) {
            // Warm-up: one job of the first variant (class loading, planner, the file's pages in
            // the OS cache), not recorded.
            runJob(cluster, tables, run.table("sync-nocache"), false, null, run.joinKey());
        }
        for (int rep = 0; rep < repetitions(); rep++) {
            List<String> order = new ArrayList<>(run.variants().keySet());
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                if (run.indexed() && FlinkLayouts.cold(name)) {
                    LocalCluster.deleteTree(indexes(run));
                }
                Job job =
                        runJob(
                                cluster,
                                tables,
                                run.table(name),
                                run.variants().get(name) == null,
                                FlinkLayouts.hint(name),
                                run.joinKey());
                if (job.rows() != events || job.fingerprint() != expected) {
                    throw new IllegalStateException(
                            String.format(
                                    "fingerprint mismatch in suite=flink layout=%s case=%s: %d"
                                            + " rows %s, expected %d rows %s",
                                    run.name(),
                                    name,
                                    job.rows(),
                                    Fingerprint.hex(job.fingerprint()),
                                    events,
                                    Fingerprint.hex(expected)));
                }
                log.printf(
                        Locale.ROOT,
                        "NOTE flink-job layout=%s case=%s rep=%d events_per_s=%.0f"
                                + " awaited_events_per_s=%.0f first_row_ms=%.0f"
                                + " cpu_us_per_event=%.2f load=%s%n",
                        run.name(),
                        name,
                        rep,
                        events * 1e9 / job.nanos(),
                        events * 1e9 / job.awaitedNanos(),
                        job.firstRowNanos() / 1e6,
                        job.cpuMicrosPerEvent(events),
                        ObjectStoreSuite.loadAverage());
                jobs.computeIfAbsent(name, n -> new ArrayList<>()).add(job);
            }
        }
        report.note(
                String.format(
                        "fingerprint suite=flink layout=%s events=%d %s agree=%s",
                        run.name(),
                        events,
                        Fingerprint.hex(expected),
                        String.join(",", jobs.keySet())));
        return jobs;
    }

    /** One RESULT row per variant (median job), the RATIO lines, the chart's bars. */
    private void results(
            FlinkLayouts.LayoutRun run,
            Map<String, List<Job>> jobs,
            long events,
            int parallelism,
            DefaultCategoryDataset chart) {
        for (Map.Entry<String, List<Job>> e : jobs.entrySet()) {
            List<Job> sorted = new ArrayList<>(e.getValue());
            sorted.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
            Job median = sorted.get(sorted.size() / 2);
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("events", Long.toString(events));
            extra.put(
                    "first_row_ms", ResultRow.fmt1(median(e.getValue(), Job::firstRowNanos) / 1e6));
            extra.put("total_ms", ResultRow.fmt1(median.nanos() / 1e6));
            extra.put(
                    "after_first_row_per_s",
                    ResultRow.fmt0(
                            events * 1e9 / Math.max(1, median.nanos() - median.firstRowNanos())));
            extra.put(
                    "awaited_per_s",
                    ResultRow.fmt0(events * 1e9 / median(e.getValue(), Job::awaitedNanos)));
            // CPU time per event (whole JVM, first row to job end): what a variant costs, less
            // swayed than events/s by other work on the machine.
            extra.put(
                    "cpu_us_per_event",
                    ResultRow.fmt2(median(e.getValue(), Job::cpuNanos) / 1e3 / events));
            extra.put("load", ObjectStoreSuite.loadAverage());
            double perSec = events * 1e9 / median.nanos();
            report.result(
                    new ResultRow(
                            SUITE,
                            run.system(),
                            e.getKey(),
                            parallelism,
                            perSec,
                            median.nanos() / 1e3 / events,
                            sorted.get(sorted.size() - 1).nanos() / 1e3 / events,
                            null,
                            null,
                            null,
                            events * 1e9 / sorted.get(sorted.size() - 1).nanos(),
                            events * 1e9 / sorted.get(0).nanos(),
                            sorted.size(),
                            extra));
            chart.addValue(perSec, run.name(), e.getKey());
        }
        for (String ours : run.variants().keySet()) {
            if (ours.equals("full-cache") || ours.equals("in-memory-join")) {
                continue;
            }
            List<String> peers = new ArrayList<>();
            for (String peer : List.of("full-cache", "in-memory-join")) {
                if (run.variants().containsKey(peer)) {
                    peers.add(peer);
                }
            }
            if (ours.startsWith("async-")) {
                // Async must not lose to sync.
                peers.add(
                        run.variants().containsKey(ours.replace("async-", "sync-"))
                                ? ours.replace("async-", "sync-")
                                : "sync-nocache");
            }
            if (peers.isEmpty()) {
                continue; // the unsorted layout's sync variant: compared with the sorted files
            }
            ResultRow row = report.find(SUITE, run.system(), ours, parallelism);
            Map<String, Double> ratios = new LinkedHashMap<>();
            for (String peer : peers) {
                ResultRow other = report.find(SUITE, run.system(), peer, parallelism);
                ratios.put(ours + "/" + peer, row.opsPerSec() / other.opsPerSec());
            }
            report.ratios(SUITE, run.casePrefix() + ours, parallelism, ratios);
        }
    }

    /** Events/s of the unsorted files (through key indexes) over the same rows sorted. */
    private void unsortedRatios(List<FlinkLayouts.LayoutRun> runs, int parallelism) {
        for (FlinkLayouts.LayoutRun unsorted : runs) {
            if (unsorted.files() == 1) {
                continue;
            }
            String sorted = SYSTEM + "-protocol";
            for (String variant : unsorted.variants().keySet()) {
                // A cold variant (the builds in the job) against the sorted file's same variant.
                String base = FlinkLayouts.base(variant);
                ResultRow ours = report.find(SUITE, unsorted.system(), variant, parallelism);
                ResultRow peer = report.find(SUITE, sorted, base, parallelism);
                if (ours != null && peer != null) {
                    report.ratios(
                            SUITE,
                            unsorted.casePrefix() + variant + "-vs-sorted",
                            parallelism,
                            Map.of(
                                    variant + "/protocol-sorted-" + base,
                                    ours.opsPerSec() / peer.opsPerSec()));
                }
            }
        }
    }

    /**
     * The joins on v (a secondary key) against the same file joined on k (its sort key), events/s
     * once indexed and, for the cold variant, with the build in the job; and the first enriched row
     * of FULL joined on v over that of the lookups by v with the index built in the job (the cold
     * variant; the plain one if the cold one was not run).
     */
    private void secondaryRatios(List<FlinkLayouts.LayoutRun> runs, int parallelism) {
        for (FlinkLayouts.LayoutRun secondary : runs) {
            if (!secondary.secondary()) {
                continue;
            }
            ResultRow full = report.find(SUITE, secondary.system(), "full-cache", parallelism);
            for (String variant : secondary.variants().keySet()) {
                ResultRow ours = report.find(SUITE, secondary.system(), variant, parallelism);
                ResultRow byKey = report.find(SUITE, SYSTEM + "-protocol", variant, parallelism);
                if (ours == null
                        || byKey == null
                        || variant.equals("full-cache")
                        || FlinkLayouts.cold(variant)) {
                    continue;
                }
                Map<String, Double> ratios = new LinkedHashMap<>();
                ratios.put(
                        variant + "/protocol-sortkey-" + variant,
                        ours.opsPerSec() / byKey.opsPerSec());
                String coldName = variant + FlinkLayouts.COLD;
                ResultRow cold = report.find(SUITE, secondary.system(), coldName, parallelism);
                if (cold != null) {
                    ratios.put(
                            coldName + "/protocol-sortkey-" + variant,
                            cold.opsPerSec() / byKey.opsPerSec());
                }
                if (full != null) {
                    ResultRow first = cold != null ? cold : ours;
                    ratios.put(
                            "full_cache_first_row/" + first.caseName() + "_first_row",
                            Double.parseDouble(full.extra().get("first_row_ms"))
                                    / Math.max(
                                            1,
                                            Double.parseDouble(first.extra().get("first_row_ms"))));
                }
                report.ratios(
                        SUITE,
                        secondary.casePrefix() + variant + "-vs-sortkey",
                        parallelism,
                        ratios);
            }
        }
    }

    private static long median(List<Job> jobs, java.util.function.ToLongFunction<Job> f) {
        long[] values = jobs.stream().mapToLong(f).sorted().toArray();
        return values[values.length / 2];
    }

    /**
     * Below 1M rows a run only checks that every variant runs and agrees (2,000 events per job,
     * figures without meaning): one job per variant and no warm-up job, as the test suite's smoke
     * run needs.
     */
    private boolean smokeSize() {
        return options.rows() < 1_000_000;
    }

    private int repetitions() {
        return smokeSize() ? 1 : options.repetitions();
    }

    private long key(long id) {
        return Math.floorMod(id * 7919, options.rows()) + 1;
    }

    private Job runJob(
            MiniCluster cluster,
            StreamTableEnvironment tables,
            String dim,
            boolean regularJoin,
            @Nullable String hint,
            String joinKey)
            throws Exception {
        String events = joinKey.equals("k") ? "keyed" : "keyed_" + joinKey;
        String on = " AS d ON e." + joinKey + " = d." + joinKey;
        String join =
                regularJoin
                        ? events + " AS e JOIN " + dim + on
                        : events + " AS e LEFT JOIN " + dim + " FOR SYSTEM_TIME AS OF e.proc" + on;
        FingerprintFunction.reset();
        long start = System.nanoTime();
        TableResult result =
                tables.executeSql(
                        "INSERT INTO enriched SELECT "
                                + (hint == null ? "" : "/*+ LOOKUP('table'='d', " + hint + ") */ ")
                                + "fingerprinted(e.id, d.v) FROM "
                                + join);
        JobEnd.Times end = JobEnd.await(cluster, result);
        long first = FingerprintFunction.FIRST.get();
        return new Job(
                end.endNanos() - start,
                end.awaitedNanos() - start,
                first == 0 ? -1 : first - start,
                first == 0 ? 0 : end.endCpuNanos() - FingerprintFunction.FIRST_CPU.get(),
                FingerprintFunction.ROWS.sum(),
                FingerprintFunction.SUM.sum());
    }
}
