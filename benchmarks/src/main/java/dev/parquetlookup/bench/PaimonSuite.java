package dev.parquetlookup.bench;

import org.apache.flink.table.data.RowData;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * default layout (as the {@code flink} suite), connector defaults, sync and async, each also with
 * the same shuffle hint ({@code parquet-lookup-sync-shuffle}: our key-range shuffle, each subtask
 * looks up one contiguous key range).
 *
 * <p>Events: {@code id} 1..E from a FLIP-27 sequence source (one equal range per subtask), key from
 * {@link LookupKeys} ({@code uniform}, or {@code skewed}: 90% of events on 1% of the keys). Every
 * job's enriched rows are fingerprinted and must equal the dataset's answer. Reported per system
 * and key mix: enriched events/s from job submission to the job's end on the cluster (so Paimon's
 * store bootstrap counts, as it does for a restarted job), the time to the first enriched row, the
 * events/s after it, and the peak local disk.
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
    static final String SHUFFLE_SUFFIX = "-shuffle";
    static final String OURS_SYNC_SHUFFLE = OURS_SYNC + SHUFFLE_SUFFIX;
    static final String OURS_ASYNC_SHUFFLE = OURS_ASYNC + SHUFFLE_SUFFIX;
    static final String PAIMON_VERSION = "1.4.2";
    static final List<String> MIXES = List.of("uniform", "skewed");
    static final int BUCKETS = 2;
    static final long SAMPLE_MILLIS = 50;

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
                        + " paimon-shuffle=the_same+LOOKUP('shuffle'='true')) ours=defaults(sync,async;"
                        + "-shuffle=the_same+LOOKUP('shuffle'='true'),KeyRangeShuffle)"
                        + " load_start="
                        + loadStart);

        runChild(childCommand(jars, heapMb, events));
        ratiosAndChart(events);
        report.note(
                "load suite=paimon start=" + loadStart + " end=" + ObjectStoreSuite.loadAverage());
    }

    /** The child JVM's command line: this class path, then Paimon's jars. */
    private List<String> childCommand(List<Path> jars, long heapMb, long events) {
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
        return command;
    }

    /** Runs the child, records its RESULT lines and fails with its output's tail if it fails. */
    private void runChild(List<String> command) throws Exception {
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
    }

    private static java.io.File nullFile() {
        return new java.io.File(
                System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private void ratiosAndChart(long events) throws IOException {
        int p = options.parallelism();
        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        for (String mix : MIXES) {
            List<ResultRow> ours = new ArrayList<>();
            for (String system :
                    List.of(OURS_SYNC, OURS_ASYNC, OURS_SYNC_SHUFFLE, OURS_ASYNC_SHUFFLE)) {
                ours.add(report.find(SUITE, system, mix, p));
            }
            ResultRow paimon = report.find(SUITE, PAIMON, mix, p);
            ResultRow shuffle = report.find(SUITE, PAIMON_SHUFFLE, mix, p);
            if (paimon == null || shuffle == null || ours.contains(null)) {
                throw new IllegalStateException("the paimon child printed no rows for " + mix);
            }
            report.ratios(SUITE, mix, p, ratios(ours, List.of(paimon, shuffle)));
            for (ResultRow row : ours) {
                chart.addValue(row.opsPerSec(), row.system(), mix);
            }
            chart.addValue(paimon.opsPerSec(), paimon.system(), mix);
            chart.addValue(shuffle.opsPerSec(), shuffle.system(), mix);
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

    /**
     * Ours over Paimon's: from submission, after the first row, and Paimon's first row over ours.
     * {@code ours} is sync, async, sync with the shuffle hint, async with it; names are {@code
     * ours-<mode>/<peer>} (the hint as {@code ours-sync-shuffle}).
     */
    private static Map<String, Double> ratios(List<ResultRow> ours, List<ResultRow> peers) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (List<ResultRow> group : List.of(ours.subList(0, 2), ours.subList(2, 4))) {
            for (ResultRow peer : peers) {
                for (ResultRow row : group) {
                    ratios.put(
                            oursName(row) + "/" + peer.system(),
                            row.opsPerSec() / peer.opsPerSec());
                }
            }
        }
        for (ResultRow peer : peers) {
            for (ResultRow row : ours) {
                ratios.put(
                        oursName(row) + "/" + peer.system() + "_after_first_row",
                        extra(row, "after_first_row_per_s") / extra(peer, "after_first_row_per_s"));
            }
        }
        for (ResultRow peer : peers) {
            ratios.put(
                    peer.system() + "_first_row/ours-sync_first_row",
                    extra(peer, "first_row_ms") / extra(ours.get(0), "first_row_ms"));
        }
        return ratios;
    }

    /** {@code parquet-lookup-sync-shuffle} as {@code ours-sync-shuffle}. */
    private static String oursName(ResultRow row) {
        return "ours-" + row.system().substring("parquet-lookup-".length());
    }

    private static double extra(ResultRow row, String key) {
        String v = row.extra().get(key);
        return v == null ? Double.NaN : Double.parseDouble(v);
    }

    /** The child JVM's side: prints RESULT and NOTE lines; the parent records them. */
    static void child(BenchOptions options, PrintStream out) throws Exception {
        new PaimonChild(options, Report.consoleOnly(out), out).measure();
    }
}
