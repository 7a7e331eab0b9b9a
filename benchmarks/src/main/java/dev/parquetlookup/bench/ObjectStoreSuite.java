package dev.parquetlookup.bench;

import dev.parquetlookup.bench.WindowedJoin.Job;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.io.IOException;
import java.io.PrintStream;
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

    /** A system and case: the jobs measured for it are reported together. */
    record CaseKey(String system, String caseName) {}

    void run() throws Exception {
        String loadStart = loadAverage();
        SeedLayout layout = SeedLayout.writerDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        List<Integer> delays = delays();
        long window =
                options.windowMillis() > 0 ? options.windowMillis() : options.quick() ? 1500 : 5000;
        long gap = Math.max(100, window / 2);
        int reps = options.quick() ? 1 : options.repetitions();
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
                noteConfig(file, uri, t0);
                // Measured before and after the jobs: the machine's load varies, and the server
                // can serve at least the better of the two.
                S3Ceiling.Result ceilingStart = ceiling(proxy, file, window);
                report.conditions(
                        SUITE,
                        layout.describe()
                                + " parallelism="
                                + options.parallelism()
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
                S3Ceiling.Result ceilingEnd = ceiling(proxy, file, window);
                new ObjectStoreReport(options, report)
                        .write(jobs, delays, window, ceilingStart, ceilingEnd);
            }
        }
        // Opening at scale: 1,000 files, and a page index 4x the metadata cache.
        if (!Boolean.getBoolean("objectstore.skip-open-scale") && !onlyTail()) {
            new OpenScaleCase(options, report, log).run();
        }
        report.note("load suite=objectstore start=" + loadStart + " end=" + loadAverage());
    }

    /** The paced uniform key stream of the tail case ({@link PacedKeys}). */
    private static final String PACED_KEYS = "keys_uniform_paced";

    /**
     * {@code -Dobjectstore.tail-rate=N}: the total events/s of the tail case's paced jobs (default
     * {@value #DEFAULT_TAIL_RATE}, issue 26's held-out check; 0: no paced jobs).
     */
    static int tailRate() {
        int rate = Integer.getInteger("objectstore.tail-rate", DEFAULT_TAIL_RATE);
        if (rate < 0) {
            throw new IllegalArgumentException("objectstore.tail-rate must be >= 0, got " + rate);
        }
        return rate;
    }

    static final int DEFAULT_TAIL_RATE = 400;

    /**
     * {@code -Dobjectstore.tail-hedge=budget=0.25,min-delay=10ms}: one more paced job with spikes,
     * hedged with these {@code parquet-lookup.hedge.*} settings (a policy tried beside the default
     * in the same run); empty by default: no such job.
     */
    private static Map<String, String> tailHedgeOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        String spec = System.getProperty("objectstore.tail-hedge", "").trim();
        for (String pair : spec.isEmpty() ? new String[0] : spec.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "objectstore.tail-hedge takes key=value pairs, got " + pair);
            }
            options.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return options;
    }

    /**
     * The paced jobs' windows: at least {@code tailWindow}, and long enough that the lookups'
     * latencies kept at the warm window's end ({@value LookupLatencyReporter#KEPT} per subtask) are
     * all from that window with half as many again to spare, in whole seconds (8 s at 400 events/s
     * over 2 subtasks: 1,024 lookups per subtask take 5.1 s).
     */
    static long pacedWindowMillis(int rate, int parallelism, long tailWindow) {
        double keptMillis = LookupLatencyReporter.KEPT * 1000.0 * parallelism / rate;
        long needed = (long) Math.ceil(1.5 * keptMillis / 1000.0) * 1000;
        return Math.max(tailWindow, needed);
    }

    /**
     * {@code -Dobjectstore.only-tail=true}: only the tail case (after the warm-up job and the
     * server's ceiling), not the jobs per delay nor the opening case.
     */
    private static boolean onlyTail() {
        return Boolean.getBoolean("objectstore.only-tail");
    }

    private List<Integer> delays() {
        List<Integer> delays =
                options.delaysMillis().isEmpty()
                        ? options.quick() ? List.of(0, 20) : List.of(0, 5, 20, 50)
                        : options.delaysMillis();
        for (int d : delays) {
            if (d < 0) {
                throw new IllegalArgumentException("--delays must be >= 0, got " + d);
            }
        }
        return delays;
    }

    private void noteConfig(Path file, String uri, long startNanos) throws IOException {
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
                        (System.nanoTime() - startNanos) / 1e9,
                        S3,
                        uri,
                        LOCAL,
                        options.connectorOptions().isEmpty()
                                ? "defaults"
                                : options.connectorOptions()));
    }

    /** The server's ranged GETs/s at D = 0 with many clients, over one window. */
    private S3Ceiling.Result ceiling(LatencyProxy proxy, Path file, long window) throws Exception {
        return S3Ceiling.measure(
                proxy,
                BUCKET,
                "seed/" + file.getFileName(),
                Files.size(file),
                options.quick() ? 32 : 64,
                CEILING_RANGE_BYTES,
                Duration.ofMillis(Math.max(300, window)));
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
        Configuration conf = new Configuration();
        // The tail case reads the lookups' latency histograms through this reporter.
        conf.set(
                ConfigOptions.key("metrics.reporter.lookuplatency.factory.class")
                        .stringType()
                        .noDefaultValue(),
                LookupLatencyReporter.Factory.class.getName());
        MiniClusterConfiguration clusterConf =
                LocalCluster.configuration(conf, options.parallelism());
        Map<CaseKey, List<Job>> jobs = new LinkedHashMap<>();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            StreamTableEnvironment tables = tables(cluster, uri, hadoop, file);

            // Warm-up (class loading, planner, both JVMs' JIT), not recorded.
            proxy.setDelay(Duration.ZERO);
            WindowedJoin.run(tables, "keys_uniform", "dim_s3", proxy, window / 2, gap / 2);
            WindowedJoin.run(tables, "keys_uniform", "dim_local", null, window / 2, gap / 2);

            for (int rep = 0; rep < (onlyTail() ? 0 : reps); rep++) {
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
                    step(tables, proxy, step, rep, window, gap, jobs);
                }
            }
            if (!Boolean.getBoolean("objectstore.skip-tail")) {
                // Every lookup to S3, 1 in 50 GETs held 3-8 s: windows long enough to meet holds
                // (unless --window-ms says otherwise).
                Map<String, String> cold =
                        Map.of(
                                "warmup", "none",
                                "local-cache.max-bytes", "0",
                                "page-cache.max-bytes", "0");
                createDimension(tables, "dim_s3_cold", uri, hadoop, cold);
                Map<String, String> unhedgedHadoop = new LinkedHashMap<>(hadoop);
                unhedgedHadoop.put("parquet-lookup.hedge.enabled", "false");
                createDimension(tables, "dim_s3_cold_unhedged", uri, unhedgedHadoop, cold);
                long tailWindow = options.windowMillis() > 0 ? window : Math.max(window, 5000);
                ObjectStoreTailCase tail = new ObjectStoreTailCase(report, log);
                tail.run(
                        tables,
                        proxy,
                        "dim_s3_cold",
                        "dim_s3_cold_unhedged",
                        tailWindow,
                        tailWindow / 2);
                int rate = tailRate();
                if (rate > 0) {
                    long pacedWindow =
                            options.windowMillis() > 0
                                    ? window
                                    : pacedWindowMillis(rate, options.parallelism(), tailWindow);
                    String tuned = null;
                    Map<String, String> hedge = tailHedgeOptions();
                    if (!hedge.isEmpty()) {
                        Map<String, String> tunedHadoop = new LinkedHashMap<>(hadoop);
                        hedge.forEach((k, v) -> tunedHadoop.put("parquet-lookup.hedge." + k, v));
                        tuned = "dim_s3_cold_tuned";
                        createDimension(tables, tuned, uri, tunedHadoop, cold);
                        log.println(
                                "NOTE objectstore tail paced-spikes-hedged-tuned hedge=" + hedge);
                    }
                    tail.runPaced(
                            tables,
                            proxy,
                            PACED_KEYS,
                            "dim_s3_cold",
                            "dim_s3_cold_unhedged",
                            tuned,
                            rate,
                            pacedWindow,
                            pacedWindow / 2);
                }
            }
        }
        return jobs;
    }

    /** The key streams, the sink, the check function and both dimension tables. */
    private StreamTableEnvironment tables(
            MiniCluster cluster, String uri, Map<String, String> hadoop, Path file)
            throws Exception {
        StreamExecutionEnvironment env = LocalCluster.environment(cluster, options.parallelism());
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        // --option table.exec.*=...: Flink table configuration (e.g. the async lookup's output
        // mode), not a connector option.
        options.connectorOptions().entrySet().stream()
                .filter(e -> e.getKey().startsWith("table."))
                .forEach(e -> tables.getConfig().set(e.getKey(), e.getValue()));
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
        if (tailRate() > 0) {
            // The tail case's paced jobs: the uniform keys, each subtask at its share of the rate
            // (one equal range of the sequence per subtask, as fromSequence splits it).
            DataStream<Long> paced =
                    env.fromSource(
                                    new BalancedSequenceSource(0, Long.MAX_VALUE / 4),
                                    WatermarkStrategy.noWatermarks(),
                                    "paced-sequence")
                            .map(new PacedKeys(options.rows(), tailRate()))
                            .name("paced-uniform-keys");
            tables.createTemporaryView(
                    PACED_KEYS,
                    tables.fromDataStream(
                            paced,
                            Schema.newBuilder()
                                    .column("f0", DataTypes.BIGINT())
                                    .columnByExpression("proc", "PROCTIME()")
                                    .build()));
        }
        createDimension(tables, "dim_s3", uri, hadoop);
        createDimension(tables, "dim_local", file.toAbsolutePath().toUri().toString(), Map.of());
        return tables;
    }

    /** One measured job: {@code local:SKEWED} or {@code D:SKEWED}. */
    private void step(
            StreamTableEnvironment tables,
            LatencyProxy proxy,
            String step,
            int rep,
            long window,
            long gap,
            Map<CaseKey, List<Job>> jobs)
            throws Exception {
        String[] parts = step.split(":");
        String mix = mixName(Boolean.parseBoolean(parts[1]));
        Job job;
        String system;
        String prefix;
        if (parts[0].equals("local")) {
            system = LOCAL;
            prefix = "";
            job = WindowedJoin.run(tables, "keys_" + mix, "dim_local", null, window, gap);
        } else {
            int d = Integer.parseInt(parts[0]);
            proxy.setDelay(Duration.ofMillis(d));
            system = S3;
            prefix = "d" + d + "-";
            job = WindowedJoin.run(tables, "keys_" + mix, "dim_s3", proxy, window, gap);
        }
        jobs.computeIfAbsent(new CaseKey(system, prefix + mix), k -> new ArrayList<>()).add(job);
        log.printf(
                Locale.ROOT,
                "NOTE objectstore rep=%d %s %s%s first_row_ms=%.0f open_gets=%d cold=%.0f/s"
                        + " warm=%.0f/s load=%s%n",
                rep,
                system,
                prefix,
                mix,
                job.firstRowMillis(),
                job.openGets(),
                job.cold().eventsPerSecond(),
                job.warm().eventsPerSecond(),
                loadAverage());
    }

    private void createDimension(
            StreamTableEnvironment tables, String name, String path, Map<String, String> hadoop) {
        createDimension(tables, name, path, hadoop, Map.of());
    }

    /** Like the above with {@code more} connector options (after {@code --option}s). */
    private void createDimension(
            StreamTableEnvironment tables,
            String name,
            String path,
            Map<String, String> hadoop,
            Map<String, String> more) {
        Map<String, String> with = new LinkedHashMap<>();
        with.put("connector", "parquet-lookup");
        with.put("path", path);
        with.put("sort-key", "k");
        hadoop.forEach((k, v) -> with.put("hadoop." + k, v));
        options.connectorOptions().entrySet().stream()
                .filter(e -> !e.getKey().startsWith("table."))
                .forEach(e -> with.put(e.getKey(), e.getValue()));
        with.putAll(more);
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
