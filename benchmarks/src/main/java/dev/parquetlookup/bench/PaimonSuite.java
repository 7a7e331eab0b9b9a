package dev.parquetlookup.bench;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;

import org.jfree.data.category.DefaultCategoryDataset;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The {@code paimon} suite: the same SQL lookup join served by this connector and by Apache
 * Paimon's lookup join (paimon-flink-2.0 1.4.2), on one embedded cluster at parallelism {@code
 * --parallelism} (default 2), with the same events and the same keys.
 *
 * <p>Paimon's side: the seed dataset ({@code k BIGINT} primary key, {@code v STRING}, the same rows
 * as {@link SeedDataset}) is written into a primary-key table ({@code 'bucket' = '2'}) of a
 * filesystem catalog under {@code OUT/paimon/}, by a batch {@code INSERT} from a bounded source,
 * then fully compacted ({@code CALL sys.compact}); the join reads it {@code FOR SYSTEM_TIME AS OF}
 * with Paimon's default lookup options (sync: its async mode serialises calls), and as {@code
 * paimon-shuffle} with the hint {@code LOOKUP('shuffle'='true')} (Flink's custom lookup shuffle,
 * FLIP-462: each subtask gets the keys of its buckets and builds a store for those). Paimon builds
 * a local lookup store from the table's files in the TaskManager's {@code io.tmp.dirs} ({@code
 * lookup-<uuid>/}, deleted when the job ends); its size is sampled every 50 ms while each job runs
 * and the peak is reported as {@code disk_bytes}. Our side: the seed Parquet file in the writer's
 * default layout (as the {@code flink} suite), connector defaults, sync and async.
 *
 * <p>Events: {@code id} 1..E from a FLIP-27 sequence source, key from {@link LookupKeys} ({@code
 * uniform}, or {@code skewed}: 90% of events on 1% of the keys). Every job's enriched rows are
 * fingerprinted and must equal the dataset's answer. Reported per system and key mix: enriched
 * events/s from job submission (so Paimon's store bootstrap counts, as it does for a restarted
 * job), the time to the first enriched row, the events/s after it, and the peak local disk.
 *
 * <p>Why a child JVM: paimon-flink-2.0's bundle carries unrelocated copies of Flink classes ({@code
 * org.apache.flink.types.variant.*}) and of zstd-jni 1.5.5, which would clash with Flink 2.3.0's
 * and parquet-java's in the shaded {@code benchmarks.jar}. Its jars are copied to {@code
 * target/paimon/lib} beside the jar instead; the suite runs both systems in one child JVM whose
 * class path is this JVM's followed by those jars (Flink's own classes first, as parent-first
 * loading in a cluster does), and this JVM records the child's {@code RESULT} lines.
 */
final class PaimonSuite {

    static final String SUITE = "paimon";
    static final String CHILD = "paimon-child";
    static final String OURS_SYNC = "parquet-lookup-sync";
    static final String OURS_ASYNC = "parquet-lookup-async";
    static final String PAIMON = "paimon";
    static final String PAIMON_SHUFFLE = "paimon-shuffle";
    static final String PAIMON_VERSION = "1.4.2";
    static final List<String> MIXES = List.of("uniform", "skewed");
    private static final int BUCKETS = 2;
    private static final long SAMPLE_MILLIS = 50;

    private static final InternalTypeInfo<RowData> EVENT_TYPE =
            InternalTypeInfo.of(
                    RowType.of(
                            new LogicalType[] {new BigIntType(false), new BigIntType(false)},
                            new String[] {"id", "k"}));

    private static final InternalTypeInfo<RowData> SEED_TYPE =
            InternalTypeInfo.of(
                    RowType.of(
                            new LogicalType[] {
                                new BigIntType(false),
                                new VarCharType(false, VarCharType.MAX_LENGTH)
                            },
                            new String[] {"k", "v"}));

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    PaimonSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /** Events per job: {@code --events}, or 200,000 (2,000 below 1M rows). */
    static long events(BenchOptions options) {
        return options.events() > 0
                ? options.events()
                : options.rows() < 1_000_000 ? 2_000 : 200_000;
    }

    /**
     * {@code --reps} (at least 3), or 1 without warm-up below 100,000 rows: a smoke size (the test
     * suite's), where only the code path matters.
     */
    static int repetitions(BenchOptions options) {
        return options.rows() < 100_000 ? 1 : options.repetitions();
    }

    /** {@code target/paimon/lib} beside the jar or the classes folder; {@code -Dpaimon.lib}. */
    static Path libDirBeside(Class<?> anchor) {
        String property = System.getProperty("paimon.lib");
        if (property != null) {
            return Paths.get(property);
        }
        try {
            Path codeSource =
                    Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            return codeSource.getParent().resolve("paimon").resolve("lib");
        } catch (Exception e) {
            return Paths.get("target", "paimon", "lib");
        }
    }

    // ---------------------------------------------------------------------------------------
    // Parent: start the child JVM, record its rows, print the ratios, draw the chart.
    // ---------------------------------------------------------------------------------------

    void run() throws Exception {
        String loadStart = ObjectStoreSuite.loadAverage();
        Path lib = libDirBeside(PaimonSuite.class);
        List<Path> jars = new ArrayList<>();
        if (Files.isDirectory(lib)) {
            try (Stream<Path> s = Files.list(lib)) {
                s.filter(p -> p.getFileName().toString().endsWith(".jar"))
                        .sorted()
                        .forEach(jars::add);
            }
        }
        if (jars.stream().noneMatch(p -> p.getFileName().toString().startsWith("paimon-flink"))) {
            throw new IllegalStateException(
                    "no paimon-flink jar in "
                            + lib.toAbsolutePath()
                            + ": build with 'mvn -B -q package -DskipTests -pl benchmarks -am'"
                            + " (it copies Paimon's jars beside benchmarks.jar)");
        }
        SeedLayout layout = SeedLayout.writerDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        long events = events(options);
        long heapMb = Runtime.getRuntime().maxMemory() / (1024 * 1024);
        report.conditions(
                SUITE,
                layout.describe()
                        + " events="
                        + events
                        + " parallelism="
                        + options.parallelism()
                        + " keys=uniform,skewed(90%_on_1%) source=sequence->LookupKeys"
                        + " sink=blackhole minicluster=embedded(child_JVM,-Xmx"
                        + heapMb
                        + "m) reps="
                        + repetitions(options)
                        + " paimon="
                        + PAIMON_VERSION
                        + "(pk_table,bucket="
                        + BUCKETS
                        + ",compacted,lookup_defaults,sync;"
                        + " paimon-shuffle=the_same+LOOKUP('shuffle'='true')) ours=defaults(sync,async)"
                        + " load_start="
                        + loadStart);

        StringBuilder classPath = new StringBuilder(System.getProperty("java.class.path"));
        for (Path jar : jars) {
            classPath.append(java.io.File.pathSeparatorChar).append(jar.toAbsolutePath());
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command =
                new ArrayList<>(
                        List.of(
                                java,
                                "-Xmx" + heapMb + "m",
                                "-cp",
                                classPath.toString(),
                                BenchMain.class.getName(),
                                CHILD,
                                "--rows",
                                Long.toString(options.rows()),
                                "--out",
                                report.out().toAbsolutePath().toString(),
                                "--reps",
                                Integer.toString(options.repetitions()),
                                "--parallelism",
                                Integer.toString(options.parallelism()),
                                "--events",
                                Long.toString(events)));
        if (options.quick()) {
            command.add("--quick");
        }
        Path childLog = report.out().resolve("paimon").resolve("child.log");
        Files.createDirectories(childLog.getParent());
        Process child =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                        .start();
        List<String> tail = new ArrayList<>();
        try (BufferedReader r =
                        new BufferedReader(
                                new InputStreamReader(
                                        child.getInputStream(), StandardCharsets.UTF_8));
                PrintStream childOut =
                        new PrintStream(
                                Files.newOutputStream(childLog), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                childOut.println(line);
                tail.add(line);
                if (tail.size() > 60) {
                    tail.remove(0);
                }
                if (line.startsWith("RESULT ")) {
                    report.result(ResultRow.parse(line));
                } else if (line.startsWith("NOTE ") || line.startsWith("FAILED ")) {
                    log.println(line);
                }
            }
        }
        int code = child.waitFor();
        if (code != 0) {
            throw new IllegalStateException(
                    "paimon child JVM failed with exit code "
                            + code
                            + " (whole output in "
                            + childLog
                            + "):\n"
                            + String.join("\n", tail));
        }
        ratiosAndChart(events);
        report.note(
                "load suite=paimon start=" + loadStart + " end=" + ObjectStoreSuite.loadAverage());
    }

    private static java.io.File nullFile() {
        return new java.io.File(
                System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private void ratiosAndChart(long events) throws IOException {
        int p = options.parallelism();
        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        for (String mix : MIXES) {
            ResultRow sync = report.find(SUITE, OURS_SYNC, mix, p);
            ResultRow async = report.find(SUITE, OURS_ASYNC, mix, p);
            ResultRow paimon = report.find(SUITE, PAIMON, mix, p);
            ResultRow shuffle = report.find(SUITE, PAIMON_SHUFFLE, mix, p);
            if (paimon == null || shuffle == null || sync == null || async == null) {
                throw new IllegalStateException("the paimon child printed no rows for " + mix);
            }
            Map<String, Double> ratios = new LinkedHashMap<>();
            for (ResultRow peer : List.of(paimon, shuffle)) {
                ratios.put("ours-sync/" + peer.system(), sync.opsPerSec() / peer.opsPerSec());
                ratios.put("ours-async/" + peer.system(), async.opsPerSec() / peer.opsPerSec());
            }
            for (ResultRow peer : List.of(paimon, shuffle)) {
                ratios.put(
                        "ours-sync/" + peer.system() + "_after_first_row",
                        extra(sync, "after_first_row_per_s")
                                / extra(peer, "after_first_row_per_s"));
            }
            for (ResultRow peer : List.of(paimon, shuffle)) {
                ratios.put(
                        peer.system() + "_first_row/ours-sync_first_row",
                        extra(peer, "first_row_ms") / extra(sync, "first_row_ms"));
            }
            report.ratios(SUITE, mix, p, ratios);
            for (ResultRow row : List.of(sync, async, paimon, shuffle)) {
                chart.addValue(row.opsPerSec(), row.system(), mix);
            }
        }
        Charts.bars(
                report.out().resolve("paimon-events.png"),
                "Lookup join vs Paimon "
                        + PAIMON_VERSION
                        + ": enriched events/s ("
                        + options.rows()
                        + " rows, "
                        + events
                        + " events, p="
                        + p
                        + ")",
                "events/s",
                chart,
                false);
    }

    private static double extra(ResultRow row, String key) {
        String v = row.extra().get(key);
        return v == null ? Double.NaN : Double.parseDouble(v);
    }

    // ---------------------------------------------------------------------------------------
    // Child: both systems on one MiniCluster.
    // ---------------------------------------------------------------------------------------

    private record Job(
            long nanos, long firstRowNanos, long rows, long fingerprint, long peakDiskBytes) {}

    /** The child JVM's side: prints RESULT and NOTE lines; the parent records them. */
    static void child(BenchOptions options, PrintStream out) throws Exception {
        new PaimonSuite(options, Report.consoleOnly(out), out).measure();
    }

    private void measure() throws Exception {
        long rows = options.rows();
        long events = events(options);
        int parallelism = options.parallelism();
        Path base = options.out().toAbsolutePath().resolve("paimon");
        Path ioTmp = base.resolve("io-tmp");
        Path warehouse = base.resolve("warehouse-" + rows);
        deleteTree(ioTmp);
        deleteTree(warehouse);
        Files.createDirectories(ioTmp);
        Path file = SeedDataset.get(options.out(), SeedLayout.writerDefault(rows), log);

        Map<String, Long> expected = new LinkedHashMap<>();
        for (String mix : MIXES) {
            LookupKeys keys = new LookupKeys(rows, mix.equals("skewed"));
            long sum = 0;
            for (long id = 1; id <= events; id++) {
                long k = keys.key(id);
                sum += Fingerprint.answer(0, id, CaseRunner.truth(rows, k));
            }
            expected.put(mix, sum);
        }

        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        // Where Paimon's lookup store goes (TaskManagerRuntimeInfo.getTmpDirectories).
        conf.set(CoreOptions.TMP_DIRS, ioTmp.toString());
        MiniClusterConfiguration clusterConf =
                new MiniClusterConfiguration.Builder()
                        .setConfiguration(conf)
                        .setNumTaskManagers(1)
                        .setNumSlotsPerTaskManager(Math.max(2, parallelism))
                        .build();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            URI rest = cluster.getRestAddress().get();
            String catalog =
                    "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                            + warehouse.toUri()
                            + "')";

            // 1. Paimon's table: a batch INSERT from a bounded source, then a full compaction.
            StreamExecutionEnvironment batchEnv =
                    StreamExecutionEnvironment.createRemoteEnvironment(
                            rest.getHost(), rest.getPort());
            batchEnv.setParallelism(parallelism);
            batchEnv.setRuntimeMode(RuntimeExecutionMode.BATCH);
            StreamTableEnvironment batch = StreamTableEnvironment.create(batchEnv);
            batch.executeSql(catalog);
            batch.executeSql(
                    "CREATE TABLE paimon.`default`.dim (k BIGINT, v STRING, PRIMARY KEY (k) NOT"
                            + " ENFORCED) WITH ('bucket' = '"
                            + BUCKETS
                            + "')");
            batch.createTemporaryView(
                    "seed",
                    batch.fromDataStream(
                            batchEnv.fromSequence(1, rows)
                                    .name("seed")
                                    .map(new SeedRow())
                                    .returns(SEED_TYPE),
                            Schema.newBuilder()
                                    .column("k", DataTypes.BIGINT().notNull())
                                    .column("v", DataTypes.STRING().notNull())
                                    .build()));
            long t0 = System.nanoTime();
            batch.executeSql("INSERT INTO paimon.`default`.dim SELECT k, v FROM seed").await();
            long writeNanos = System.nanoTime() - t0;
            batch.getConfig().set("table.dml-sync", "true");
            // Paimon's procedures run their job in StreamExecutionEnvironment
            // .getExecutionEnvironment(tableConfig): without a context environment that is a new
            // local cluster (on this one's REST port: it fails). Point it at this cluster.
            ContextEnvironment.install(rest.getHost(), rest.getPort());
            batch.executeSql("USE CATALOG paimon");
            t0 = System.nanoTime();
            try {
                batch.executeSql("CALL sys.compact(`table` => 'default.dim')").await();
            } finally {
                ContextEnvironment.uninstall();
            }
            long compactNanos = System.nanoTime() - t0;
            long tableBytes = treeBytes(warehouse, p -> true);
            long dataFiles =
                    countFiles(
                            warehouse,
                            p ->
                                    p.getFileName().toString().startsWith("data-")
                                            && p.toString().contains("bucket-"));
            log.printf(
                    Locale.ROOT,
                    "NOTE paimon table %s: %d rows written in %.1f s, compacted in %.1f s;"
                            + " %d bytes on disk (all snapshots), %d data files; load %s%n",
                    warehouse,
                    rows,
                    writeNanos / 1e9,
                    compactNanos / 1e9,
                    tableBytes,
                    dataFiles,
                    ObjectStoreSuite.loadAverage());

            // 2. The joins.
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createRemoteEnvironment(
                            rest.getHost(), rest.getPort());
            env.setParallelism(parallelism);
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.executeSql(catalog);
            tables.createTemporarySystemFunction(
                    "fingerprinted", FlinkSuite.FingerprintFunction.class);
            tables.executeSql(
                    "CREATE TEMPORARY TABLE enriched (f BIGINT) WITH ('connector' = 'blackhole')");
            for (String mix : MIXES) {
                tables.createTemporaryView(
                        "events_" + mix,
                        tables.fromDataStream(
                                env.fromSequence(1, events)
                                        .name("events-" + mix)
                                        .map(new KeyedEvent(rows, mix.equals("skewed")))
                                        .returns(EVENT_TYPE),
                                Schema.newBuilder()
                                        .column("id", DataTypes.BIGINT().notNull())
                                        .column("k", DataTypes.BIGINT().notNull())
                                        .columnByExpression("proc", "PROCTIME()")
                                        .build()));
            }
            for (String mode : List.of("sync", "async")) {
                tables.executeSql(
                        "CREATE TEMPORARY TABLE dim_"
                                + mode
                                + " (k BIGINT, v STRING) WITH ('connector' = 'parquet-lookup',"
                                + " 'path' = '"
                                + file.toAbsolutePath().toUri()
                                + "', 'sort-key' = 'k', 'lookup.async' = '"
                                + mode.equals("async")
                                + "')");
            }
            Map<String, String> dims = new LinkedHashMap<>();
            dims.put(OURS_SYNC, "dim_sync");
            dims.put(OURS_ASYNC, "dim_async");
            dims.put(PAIMON, "paimon.`default`.dim");
            // Paimon's lookup supports Flink's custom shuffle (FLIP-462): with the hint each
            // subtask gets the keys of its buckets and builds a local store for those only.
            dims.put(PAIMON_SHUFFLE, "paimon.`default`.dim");

            // Warm-up (class loading, planner, JIT) of both systems, not recorded.
            int reps = repetitions(options);
            for (String system : reps > 1 ? dims.keySet() : List.<String>of()) {
                runJob(tables, "uniform", system, dims.get(system), ioTmp);
            }
            Map<String, List<Job>> jobs = new LinkedHashMap<>();
            for (int rep = 0; rep < reps; rep++) {
                List<String[]> order = new ArrayList<>();
                for (String mix : MIXES) {
                    for (String system : dims.keySet()) {
                        order.add(new String[] {system, mix});
                    }
                }
                if (rep % 2 == 1) {
                    Collections.reverse(order);
                }
                for (String[] step : order) {
                    String system = step[0];
                    String mix = step[1];
                    Job job = runJob(tables, mix, system, dims.get(system), ioTmp);
                    long want = expected.get(mix);
                    if (job.rows() != events || job.fingerprint() != want) {
                        throw new IllegalStateException(
                                String.format(
                                        "fingerprint mismatch in suite=paimon system=%s case=%s:"
                                                + " %d rows %s, expected %d rows %s",
                                        system,
                                        mix,
                                        job.rows(),
                                        Fingerprint.hex(job.fingerprint()),
                                        events,
                                        Fingerprint.hex(want)));
                    }
                    jobs.computeIfAbsent(system + " " + mix, x -> new ArrayList<>()).add(job);
                    log.printf(
                            Locale.ROOT,
                            "NOTE paimon-suite rep=%d %s %s %.0f events/s first_row_ms=%.0f"
                                    + " disk_bytes=%d load=%s%n",
                            rep,
                            system,
                            mix,
                            events * 1e9 / job.nanos(),
                            job.firstRowNanos() / 1e6,
                            job.peakDiskBytes(),
                            ObjectStoreSuite.loadAverage());
                }
            }
            for (String mix : MIXES) {
                report.note(
                        String.format(
                                "fingerprint suite=paimon case=%s events=%d %s agree=%s",
                                mix,
                                events,
                                Fingerprint.hex(expected.get(mix)),
                                String.join(",", dims.keySet())));
            }
            for (String mix : MIXES) {
                for (String system : dims.keySet()) {
                    Map<String, String> extra = new LinkedHashMap<>();
                    if (system.startsWith(PAIMON)) {
                        extra.put("write_ms", ResultRow.fmt0(writeNanos / 1e6));
                        extra.put("compact_ms", ResultRow.fmt0(compactNanos / 1e6));
                        extra.put("table_bytes", Long.toString(tableBytes));
                    } else {
                        extra.put("table_bytes", Long.toString(Files.size(file)));
                    }
                    report.result(
                            row(
                                    system,
                                    mix,
                                    parallelism,
                                    events,
                                    jobs.get(system + " " + mix),
                                    extra));
                }
            }
        }
        report.note(
                "paimon local store: peak bytes under io.tmp.dirs/lookup-*/ sampled every "
                        + SAMPLE_MILLIS
                        + " ms per job (Paimon deletes it when the job ends);"
                        + " lookup.cache-file-retention and lookup.local-file-type at their"
                        + " defaults");
    }

    private static ResultRow row(
            String system,
            String mix,
            int parallelism,
            long events,
            List<Job> runs,
            Map<String, String> more) {
        List<Job> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(Job::nanos));
        Job median = sorted.get(sorted.size() / 2);
        long[] firsts = runs.stream().mapToLong(Job::firstRowNanos).sorted().toArray();
        long[] disks = runs.stream().mapToLong(Job::peakDiskBytes).sorted().toArray();
        double[] after =
                runs.stream()
                        .mapToDouble(
                                j ->
                                        (events - 1)
                                                * 1e9
                                                / Math.max(1, j.nanos() - j.firstRowNanos()))
                        .sorted()
                        .toArray();
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("events", Long.toString(events));
        extra.put("first_row_ms", ResultRow.fmt1(firsts[firsts.length / 2] / 1e6));
        extra.put("first_row_ms_max", ResultRow.fmt1(firsts[firsts.length - 1] / 1e6));
        extra.put("after_first_row_per_s", ResultRow.fmt0(after[after.length / 2]));
        extra.put("total_ms", ResultRow.fmt1(median.nanos() / 1e6));
        extra.put("disk_bytes", Long.toString(disks[disks.length / 2]));
        extra.put("disk_bytes_max", Long.toString(disks[disks.length - 1]));
        extra.putAll(more);
        extra.put("load", ObjectStoreSuite.loadAverage());
        return new ResultRow(
                SUITE,
                system,
                mix,
                parallelism,
                events * 1e9 / median.nanos(),
                median.nanos() / 1e3 / events,
                sorted.get(sorted.size() - 1).nanos() / 1e3 / events,
                null,
                null,
                null,
                events * 1e9 / sorted.get(sorted.size() - 1).nanos(),
                events * 1e9 / sorted.get(0).nanos(),
                sorted.size(),
                extra);
    }

    private Job runJob(
            StreamTableEnvironment tables, String mix, String system, String dim, Path ioTmp)
            throws Exception {
        FlinkSuite.FingerprintFunction.reset();
        AtomicLong peak = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread sampler =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                peak.accumulateAndGet(lookupStoreBytes(ioTmp), Math::max);
                                try {
                                    Thread.sleep(SAMPLE_MILLIS);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "paimon-disk-sampler");
        sampler.setDaemon(true);
        long start = System.nanoTime();
        sampler.start();
        long end;
        try {
            TableResult result =
                    tables.executeSql(
                            "INSERT INTO enriched SELECT "
                                    + (system.equals(PAIMON_SHUFFLE)
                                            ? "/*+ LOOKUP('table'='d', 'shuffle'='true') */ "
                                            : "")
                                    + "fingerprinted(e.id, d.v) FROM events_"
                                    + mix
                                    + " AS e LEFT JOIN "
                                    + dim
                                    + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.k = d.k");
            result.await();
            end = System.nanoTime();
        } finally {
            done.set(true);
            sampler.interrupt();
            sampler.join();
        }
        long first = FlinkSuite.FingerprintFunction.FIRST.get();
        return new Job(
                end - start,
                first == 0 ? -1 : first - start,
                FlinkSuite.FingerprintFunction.ROWS.sum(),
                FlinkSuite.FingerprintFunction.SUM.sum(),
                peak.get());
    }

    /** Bytes under {@code dir/lookup-*}: Paimon's local lookup store(s). */
    static long lookupStoreBytes(Path dir) {
        long total = 0;
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.getFileName().toString().startsWith("lookup-")) {
                    total += treeBytes(p, x -> true);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // The store is created and deleted while we look: count what was seen.
        }
        return total;
    }

    private static long treeBytes(Path dir, java.util.function.Predicate<Path> filter) {
        long total = 0;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.isRegularFile(p) && filter.test(p)) {
                        total += Files.size(p);
                    }
                } catch (NoSuchFileException e) {
                    // deleted meanwhile
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // a directory vanished while walking
        }
        return total;
    }

    private static long countFiles(Path dir, java.util.function.Predicate<Path> filter)
            throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(filter).count();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Makes {@link StreamExecutionEnvironment#getExecutionEnvironment(Configuration)} return a
     * remote environment on the embedded cluster (what a cluster's client does for submitted
     * programs).
     */
    static final class ContextEnvironment extends StreamExecutionEnvironment {
        private ContextEnvironment() {}

        static void install(String host, int port) {
            initializeContextEnvironment(
                    conf -> {
                        Configuration c = new Configuration(conf);
                        c.set(DeploymentOptions.TARGET, "remote");
                        c.set(RestOptions.ADDRESS, host);
                        c.set(RestOptions.PORT, port);
                        return new StreamExecutionEnvironment(c);
                    });
        }

        static void uninstall() {
            resetContextEnvironment();
        }
    }

    /** Seed row {@code (k, md5hex(k))} as Flink's internal row. */
    static final class SeedRow implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;

        @Override
        public RowData map(Long k) {
            return GenericRowData.of(k, StringData.fromString(Md5Hex.of(k)));
        }
    }

    /** Event {@code (id, key)} with the key from {@link LookupKeys}. */
    static final class KeyedEvent implements MapFunction<Long, RowData> {
        private static final long serialVersionUID = 1L;
        private final LookupKeys keys;

        KeyedEvent(long rows, boolean skewed) {
            this.keys = new LookupKeys(rows, skewed);
        }

        @Override
        public RowData map(Long id) {
            return GenericRowData.of(id, keys.key(id));
        }
    }
}
