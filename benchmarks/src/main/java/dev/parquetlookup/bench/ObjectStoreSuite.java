package dev.parquetlookup.bench;

import dev.parquetlookup.bench.WindowedJoin.Job;
import dev.parquetlookup.bench.WindowedJoin.Window;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.jfree.data.category.DefaultCategoryDataset;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code objectstore} suite: the {@code flink} suite's SQL lookup join (parallelism {@code
 * --parallelism}, default 2, embedded cluster, blackhole sink) with the dimension file on S3Proxy
 * ({@code s3a://}, its own JVM) behind a {@link LatencyProxy} that holds each response's first byte
 * for D ms, against the same job on the local file.
 *
 * <p>Per job ({@link WindowedJoin}): events come from an endless sequence source; {@link
 * LookupKeys} turns them into uniform or skewed keys. The job runs until its first enriched row
 * (the time to it is reported), then for a cold window (W ms from the first row: opening and first
 * reads included in what the caches hold), a gap (W/2), a warm window (W ms), and is then
 * cancelled. Per window: enriched events/s, GETs and response bytes per event, requests in flight
 * (time-weighted mean, max) and the mean request time, all counted by the proxy. Every enriched row
 * is checked against the dataset (v = md5(k)); one wrong or missing value fails the run.
 *
 * <p>Two bounds from the same run: the test server's ceiling ({@link S3Ceiling}: ranged GETs/s at D
 * = 0 with many clients, measured before and after the jobs, the better one counts) and the
 * concurrency bound (the in-flight limit / D, with the limit given by {@code --inflight-limit} or,
 * by default, the most requests seen in flight in that window), each turned into events/s by the
 * window's GETs per event. {@code RATIO} lines give ours/bound, ours/bound_1get (the bound if a
 * lookup cost exactly one GET, the goal) and ours/local.
 */
final class ObjectStoreSuite {

    static final String SUITE = "objectstore";
    static final String S3 = "parquet-lookup-s3";
    static final String LOCAL = "parquet-lookup-local";
    static final String CEILING = "s3proxy-ceiling";

    private static final String BUCKET = "bench";
    private static final int CEILING_RANGE_BYTES = 8 * 1024;

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    ObjectStoreSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    private record CaseKey(String system, String caseName) {}

    void run() throws Exception {
        String loadStart = loadAverage();
        SeedLayout layout = SeedLayout.writerDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        List<Integer> delays =
                options.delaysMillis().isEmpty()
                        ? options.quick() ? List.of(0, 20) : List.of(0, 5, 20, 50)
                        : options.delaysMillis();
        for (int d : delays) {
            if (d < 0) {
                throw new IllegalArgumentException("--delays must be >= 0, got " + d);
            }
        }
        long window =
                options.windowMillis() > 0 ? options.windowMillis() : options.quick() ? 1500 : 5000;
        long gap = Math.max(100, window / 2);
        int reps = options.quick() ? 1 : options.repetitions();
        int parallelism = options.parallelism();
        int clients = options.quick() ? 32 : 64;
        Path lib = S3ProxyServer.libDirBeside(ObjectStoreSuite.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, report.out())) {
            long t0 = System.nanoTime();
            server.start();
            server.createBucket(BUCKET);
            String uri = "s3a://" + BUCKET + "/seed/" + file.getFileName();
            S3LookupCase.upload(server.hadoopOptions(), file, uri);
            try (LatencyProxy proxy = LatencyProxy.start(server.port(), Duration.ZERO)) {
                Map<String, String> hadoop = new LinkedHashMap<>(server.hadoopOptions());
                hadoop.put("fs.s3a.endpoint", proxy.endpoint());
                report.note(
                        String.format(
                                Locale.ROOT,
                                "config suite=objectstore S3Proxy_4.1.0(filesystem_backend,own_JVM)"
                                        + " on 127.0.0.1 started and loaded with %d bytes in %.1f s;"
                                        + " LatencyProxy (first byte of each response held D ms,"
                                        + " added to the server's time) in front; %s: %s through"
                                        + " hadoop-aws 3.5.0 (S3ProxyServer.hadoopOptions:"
                                        + " fs.s3a.input.stream.type=classic); %s: the same file on"
                                        + " the local disk; connector options: %s",
                                Files.size(file),
                                (System.nanoTime() - t0) / 1e9,
                                S3,
                                uri,
                                LOCAL,
                                options.connectorOptions().isEmpty()
                                        ? "defaults"
                                        : options.connectorOptions()));
                Duration ceilingWindow = Duration.ofMillis(Math.max(300, window));
                String key = "seed/" + file.getFileName();
                long length = Files.size(file);
                // Measured before and after the jobs: the machine's load varies, and the server
                // can serve at least the better of the two.
                S3Ceiling.Result ceilingStart =
                        S3Ceiling.measure(
                                proxy,
                                BUCKET,
                                key,
                                length,
                                clients,
                                CEILING_RANGE_BYTES,
                                ceilingWindow);
                report.conditions(
                        SUITE,
                        layout.describe()
                                + " parallelism="
                                + parallelism
                                + " delays_ms="
                                + delays.toString().replace(" ", "")
                                + " window_ms="
                                + window
                                + " gap_ms="
                                + gap
                                + " reps="
                                + reps
                                + " keys=uniform,skewed(90%_on_1%)"
                                + " source=sequence->LookupKeys sink=blackhole check=md5(k)"
                                + " minicluster=embedded load_start="
                                + loadStart);
                Map<CaseKey, List<Job>> jobs =
                        measureJobs(proxy, hadoop, uri, file, delays, window, gap, reps);
                proxy.setDelay(Duration.ZERO);
                S3Ceiling.Result ceilingEnd =
                        S3Ceiling.measure(
                                proxy,
                                BUCKET,
                                key,
                                length,
                                clients,
                                CEILING_RANGE_BYTES,
                                ceilingWindow);
                report(jobs, delays, window, ceilingStart, ceilingEnd);
            }
        }
        // Opening at scale: 1,000 files, and a page index 4x the metadata cache.
        new OpenScaleCase(options, report, log).run();
        report.note("load suite=objectstore start=" + loadStart + " end=" + loadAverage());
    }

    private Map<CaseKey, List<Job>> measureJobs(
            LatencyProxy proxy,
            Map<String, String> hadoop,
            String uri,
            Path file,
            List<Integer> delays,
            long window,
            long gap,
            int reps)
            throws Exception {
        int parallelism = options.parallelism();
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        MiniClusterConfiguration clusterConf =
                new MiniClusterConfiguration.Builder()
                        .setConfiguration(conf)
                        .setNumTaskManagers(1)
                        .setNumSlotsPerTaskManager(Math.max(2, parallelism))
                        .build();
        Map<CaseKey, List<Job>> jobs = new LinkedHashMap<>();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            URI rest = cluster.getRestAddress().get();
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createRemoteEnvironment(
                            rest.getHost(), rest.getPort());
            env.setParallelism(parallelism);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.createTemporarySystemFunction("checked", WindowedJoin.CheckFunction.class);
            tables.executeSql(
                    "CREATE TEMPORARY TABLE enriched (k BIGINT) WITH ('connector' = 'blackhole')");
            for (boolean skewed : new boolean[] {false, true}) {
                // Endless for the job's life: it is cancelled after its windows.
                DataStream<Long> keys =
                        env.fromSequence(0, Long.MAX_VALUE / 4)
                                .map(new LookupKeys(options.rows(), skewed))
                                .name(skewed ? "skewed-keys" : "uniform-keys");
                tables.createTemporaryView(
                        "keys_" + mixName(skewed),
                        tables.fromDataStream(
                                keys,
                                Schema.newBuilder()
                                        .column("f0", DataTypes.BIGINT())
                                        .columnByExpression("proc", "PROCTIME()")
                                        .build()));
            }
            createDimension(tables, "dim_s3", uri, hadoop);
            createDimension(
                    tables, "dim_local", file.toAbsolutePath().toUri().toString(), Map.of());

            // Warm-up (class loading, planner, both JVMs' JIT), not recorded.
            proxy.setDelay(Duration.ZERO);
            WindowedJoin.run(tables, "keys_uniform", "dim_s3", proxy, window / 2, gap / 2);
            WindowedJoin.run(tables, "keys_uniform", "dim_local", null, window / 2, gap / 2);

            for (int rep = 0; rep < reps; rep++) {
                List<String> order = new ArrayList<>();
                for (boolean skewed : new boolean[] {false, true}) {
                    order.add("local:" + skewed);
                    for (int d : delays) {
                        order.add(d + ":" + skewed);
                    }
                }
                if (rep % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String step : order) {
                    String[] parts = step.split(":");
                    boolean skewed = Boolean.parseBoolean(parts[1]);
                    String mix = mixName(skewed);
                    Job job;
                    String system;
                    String prefix;
                    if (parts[0].equals("local")) {
                        system = LOCAL;
                        prefix = "";
                        job =
                                WindowedJoin.run(
                                        tables, "keys_" + mix, "dim_local", null, window, gap);
                    } else {
                        int d = Integer.parseInt(parts[0]);
                        proxy.setDelay(Duration.ofMillis(d));
                        system = S3;
                        prefix = "d" + d + "-";
                        job = WindowedJoin.run(tables, "keys_" + mix, "dim_s3", proxy, window, gap);
                    }
                    jobs.computeIfAbsent(new CaseKey(system, prefix + mix), k -> new ArrayList<>())
                            .add(job);
                    log.printf(
                            Locale.ROOT,
                            "NOTE objectstore rep=%d %s %s%s first_row_ms=%.0f cold=%.0f/s"
                                    + " warm=%.0f/s%n",
                            rep,
                            system,
                            prefix,
                            mix,
                            job.firstRowMillis(),
                            job.cold().eventsPerSecond(),
                            job.warm().eventsPerSecond());
                }
            }
        }
        return jobs;
    }

    private void createDimension(
            StreamTableEnvironment tables, String name, String path, Map<String, String> hadoop) {
        Map<String, String> with = new LinkedHashMap<>();
        with.put("connector", "parquet-lookup");
        with.put("path", path);
        with.put("sort-key", "k");
        hadoop.forEach((k, v) -> with.put("hadoop." + k, v));
        with.putAll(options.connectorOptions());
        StringBuilder sql =
                new StringBuilder("CREATE TEMPORARY TABLE ")
                        .append(name)
                        .append(" (k BIGINT, v STRING) WITH (");
        String sep = "";
        for (Map.Entry<String, String> e : with.entrySet()) {
            sql.append(sep)
                    .append('\'')
                    .append(e.getKey().replace("'", "''"))
                    .append("' = '")
                    .append(e.getValue().replace("'", "''"))
                    .append('\'');
            sep = ", ";
        }
        tables.executeSql(sql.append(')').toString());
    }

    private static String mixName(boolean skewed) {
        return skewed ? "skewed" : "uniform";
    }

    private void report(
            Map<CaseKey, List<Job>> jobs,
            List<Integer> delays,
            long window,
            S3Ceiling.Result start,
            S3Ceiling.Result end) {
        int parallelism = options.parallelism();
        S3Ceiling.Result c = start.getsPerSecond() >= end.getsPerSecond() ? start : end;
        Map<String, String> ceilingExtra = new LinkedHashMap<>();
        ceilingExtra.put("range_bytes", Integer.toString(c.rangeBytes()));
        ceilingExtra.put("clients", Integer.toString(c.clients()));
        ceilingExtra.put("request_ms", ResultRow.fmt2(c.meanRequestMillis()));
        ceilingExtra.put("inflight_mean", ResultRow.fmt1(c.meanInFlight()));
        ceilingExtra.put("inflight_max", Integer.toString(c.maxInFlight()));
        ceilingExtra.put("gets", Long.toString(c.gets()));
        ceilingExtra.put("window_ms", Long.toString(c.window().toMillis()));
        ceilingExtra.put("gets_per_s_start", ResultRow.fmt0(start.getsPerSecond()));
        ceilingExtra.put("gets_per_s_end", ResultRow.fmt0(end.getsPerSecond()));
        report.result(
                new ResultRow(
                        SUITE,
                        CEILING,
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
                        ceilingExtra));

        Map<String, ResultRow> rows = new LinkedHashMap<>();
        Map<String, Double> bounds = new LinkedHashMap<>();
        for (Map.Entry<CaseKey, List<Job>> e : jobs.entrySet()) {
            CaseKey key = e.getKey();
            for (String phase : List.of("cold", "warm")) {
                List<Job> list = new ArrayList<>(e.getValue());
                boolean cold = phase.equals("cold");
                list.sort(
                        (a, b) ->
                                Double.compare(
                                        (cold ? a.cold() : a.warm()).eventsPerSecond(),
                                        (cold ? b.cold() : b.warm()).eventsPerSecond()));
                Job median = list.get(list.size() / 2);
                Window w = cold ? median.cold() : median.warm();
                double min = (cold ? list.get(0).cold() : list.get(0).warm()).eventsPerSecond();
                Job top = list.get(list.size() - 1);
                double max = (cold ? top.cold() : top.warm()).eventsPerSecond();
                double[] firsts =
                        e.getValue().stream().mapToDouble(Job::firstRowMillis).sorted().toArray();
                String caseName = key.caseName() + "-" + phase;
                boolean s3 = key.system().equals(S3);
                Map<String, String> extra = new LinkedHashMap<>();
                extra.put("first_row_ms", ResultRow.fmt1(firsts[firsts.length / 2]));
                extra.put("events", Long.toString(w.events()));
                extra.put("window_ms", ResultRow.fmt0(w.seconds() * 1e3));
                Double getsPerEvent = null;
                Double bytesPerEvent = null;
                if (s3) {
                    int d = delayOf(key.caseName());
                    getsPerEvent = w.events() == 0 ? null : w.getsPerEvent();
                    bytesPerEvent =
                            w.events() == 0 ? null : w.responseBytes() / (double) w.events();
                    extra.put("delay_ms", Integer.toString(d));
                    extra.put("open_gets", Long.toString(median.openGets()));
                    extra.put("gets_per_s", ResultRow.fmt0(w.gets() / w.seconds()));
                    extra.put("request_ms", ResultRow.fmt2(w.meanRequestMillis()));
                    extra.put("inflight_mean", ResultRow.fmt2(w.meanInFlight()));
                    extra.put("inflight_max", Integer.toString(w.maxInFlight()));
                    int limit =
                            options.inflightLimit() > 0 ? options.inflightLimit() : w.maxInFlight();
                    extra.put("inflight_limit", Integer.toString(limit));
                    extra.put(
                            "inflight_limit_from",
                            options.inflightLimit() > 0 ? "option" : "observed_max");
                    double concurrencyGets =
                            d == 0 || limit == 0 ? Double.POSITIVE_INFINITY : limit * 1000.0 / d;
                    double bound1Get = Math.min(c.getsPerSecond(), concurrencyGets);
                    double g = getsPerEvent == null ? 0 : getsPerEvent;
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
                    extra.put(
                            "server_utilisation",
                            c.getsPerSecond() > 0
                                    ? ResultRow.fmt2(w.gets() / w.seconds() / c.getsPerSecond())
                                    : "NA");
                    double served = w.gets() / w.seconds();
                    if (served > c.getsPerSecond()) {
                        report.note(
                                String.format(
                                        Locale.ROOT,
                                        "ceiling suite=objectstore case=%s served %.0f GETs/s, more"
                                                + " than the measured server ceiling (%.0f):"
                                                + " the ceiling was taken under heavier load, so"
                                                + " bounds from it are too low",
                                        caseName,
                                        served,
                                        c.getsPerSecond()));
                    }
                    bounds.put(caseName + "/bound", bound);
                    bounds.put(caseName + "/bound_1get", bound1Get);
                }
                ResultRow row =
                        new ResultRow(
                                SUITE,
                                key.system(),
                                caseName,
                                parallelism,
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
        }

        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        List<String> categories = new ArrayList<>();
        categories.add("local");
        for (int d : delays) {
            categories.add("D=" + d + "ms");
        }
        for (String mix : List.of("uniform", "skewed")) {
            for (String phase : List.of("cold", "warm")) {
                String series = mix + " " + phase;
                ResultRow local = rows.get(LOCAL + "/" + mix + "-" + phase);
                if (local != null) {
                    chart.addValue(Math.max(1, local.opsPerSec()), series, "local");
                }
                for (int d : delays) {
                    String caseName = "d" + d + "-" + mix + "-" + phase;
                    ResultRow ours = rows.get(S3 + "/" + caseName);
                    if (ours == null) {
                        continue;
                    }
                    chart.addValue(Math.max(1, ours.opsPerSec()), series, "D=" + d + "ms");
                    Map<String, Double> ratios = new LinkedHashMap<>();
                    ratios.put(
                            "ours/bound", ratio(ours.opsPerSec(), bounds.get(caseName + "/bound")));
                    ratios.put(
                            "ours/bound_1get",
                            ratio(ours.opsPerSec(), bounds.get(caseName + "/bound_1get")));
                    ratios.put(
                            "ours/local",
                            local == null
                                    ? Double.NaN
                                    : ratio(ours.opsPerSec(), local.opsPerSec()));
                    report.ratios(SUITE, caseName, parallelism, ratios);
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
                            + parallelism
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

    /** {@code /proc/loadavg}'s three figures, e.g. {@code 1.52/1.31/1.20}, or NA. */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (Exception e) {
            double l =
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                            .getSystemLoadAverage();
            return l < 0 ? "NA" : ResultRow.fmt2(l);
        }
    }
}
