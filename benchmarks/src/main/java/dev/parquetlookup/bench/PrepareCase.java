package dev.parquetlookup.bench;

import dev.parquetlookup.tools.Main;

import org.duckdb.DuckDBConnection;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code prepare} suite: sorting and rewriting the seed dataset from an unsorted Parquet file,
 * by our {@code prepare} command (as a user runs it: {@code prepare IN OUT --key k}, in this JVM)
 * against DuckDB's {@code COPY (SELECT * FROM read_parquet(in) ORDER BY k) TO out (FORMAT
 * parquet)}, on the same input in one run, alternating which goes first.
 *
 * <p>Input: the seed rows in a fixed scrambled order (lookup layout, LZ4_RAW, 1,024-row pages).
 * DuckDB runs with its defaults (all cores, SNAPPY, 122,880-row row groups, no page index), which
 * is its best; {@code prepare} with its defaults (256-row pages, page index, LZ4_RAW, sort key
 * declared). Figures: rows/s per system (median, min, max) and CPU seconds of the process (DuckDB's
 * native threads included), the ratio prepare/duckdb of rows/s (below 1: slower than DuckDB; issue
 * 15's goal is at least 0.33) and of CPU time.
 */
final class PrepareCase {

    static final String SUITE = "prepare";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    PrepareCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        long rows = options.rows();
        Path input =
                SeedDataset.get(
                        report.out(), SeedLayout.lookupDefault(rows).withSorted(false), log);
        Path work = report.out().resolve("prepare-work");
        int reps = options.repetitions();
        report.conditions(
                SUITE,
                "rows="
                        + rows
                        + " input="
                        + input.getFileName()
                        + " reps="
                        + reps
                        + " load_start="
                        + load());
        List<double[]> ours = new ArrayList<>();
        List<double[]> duck = new ArrayList<>();
        // One untimed round each: class loading, JIT, DuckDB's extension and file cache.
        prepare(input, work.resolve("warm-ours"));
        duckDb(input, work.resolve("warm-duck.parquet"));
        for (int r = 0; r < reps; r++) {
            boolean oursFirst = r % 2 == 0;
            if (oursFirst) {
                ours.add(prepare(input, work.resolve("ours")));
                duck.add(duckDb(input, work.resolve("duck.parquet")));
            } else {
                duck.add(duckDb(input, work.resolve("duck.parquet")));
                ours.add(prepare(input, work.resolve("ours")));
            }
        }
        result("parquet-lookup-prepare", rows, ours);
        result("duckdb-copy", rows, duck);
        report.ratio(SUITE, "sort-rewrite", 1, "parquet-lookup-prepare", List.of("duckdb-copy"));
        // CPU time is steadier than wall time on a loaded machine; DuckDB uses every core.
        report.ratioLine(
                SUITE,
                "sort-rewrite",
                1,
                "duckdb-cpu/parquet-lookup-prepare-cpu",
                cpuSeconds.get("duckdb-copy") / cpuSeconds.get("parquet-lookup-prepare"));
        report.note("suite=prepare load_end=" + load());
        LocalCluster.deleteTree(work);
    }

    /**
     * Wall and CPU seconds (of this process: DuckDB's native threads included) for {@code prepare
     * input out --key k --overwrite}.
     */
    private static double[] prepare(Path input, Path out) throws IOException {
        LocalCluster.deleteTree(out);
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        int code =
                Main.commandLine()
                        .execute(
                                "prepare",
                                input.toString(),
                                out.toString(),
                                "--key",
                                "k",
                                "--overwrite");
        double[] seconds = {(System.nanoTime() - t0) / 1e9, (cpuNanos() - cpu0) / 1e9};
        if (code != 0) {
            throw new IllegalStateException("prepare exited with " + code);
        }
        return seconds;
    }

    /** Wall and CPU seconds for DuckDB's sorted COPY of {@code input} to {@code out}. */
    private static double[] duckDb(Path input, Path out) throws Exception {
        Files.createDirectories(out.getParent());
        Files.deleteIfExists(out);
        try (DuckDBConnection conn = DuckDbSystem.openDatabase();
                Statement st = conn.createStatement()) {
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            st.execute(
                    "COPY (SELECT * FROM read_parquet('"
                            + input.toAbsolutePath()
                            + "') ORDER BY k) TO '"
                            + out.toAbsolutePath()
                            + "' (FORMAT parquet)");
            return new double[] {(System.nanoTime() - t0) / 1e9, (cpuNanos() - cpu0) / 1e9};
        }
    }

    /** CPU time of this process so far (every thread, native ones included). */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private void result(String system, long rows, List<double[]> timings) {
        List<Double> seconds = timings.stream().map(t -> t[0]).toList();
        List<Double> sorted = seconds.stream().sorted().toList();
        double median = sorted.get(sorted.size() / 2);
        double cpu = timings.stream().map(t -> t[1]).sorted().toList().get(timings.size() / 2);
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("seconds_median", String.format("%.2f", median));
        extra.put("cpu_seconds_median", String.format("%.2f", cpu));
        extra.put(
                "seconds_all",
                seconds.stream()
                        .map(s -> String.format("%.2f", s))
                        .toList()
                        .toString()
                        .replace(" ", ""));
        report.result(
                new ResultRow(
                        SUITE,
                        system,
                        "sort-rewrite",
                        1,
                        rows / median,
                        Double.NaN,
                        Double.NaN,
                        null,
                        null,
                        null,
                        rows / sorted.get(sorted.size() - 1),
                        rows / sorted.get(0),
                        seconds.size(),
                        extra));
        cpuSeconds.put(system, cpu);
    }

    private final Map<String, Double> cpuSeconds = new LinkedHashMap<>();

    /** The 1-minute load average, as {@code uptime} prints it. */
    static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "NA";
        }
    }
}
