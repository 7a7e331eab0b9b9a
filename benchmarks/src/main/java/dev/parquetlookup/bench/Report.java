package dev.parquetlookup.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where every figure goes: {@code RESULT}, {@code RATIO}, {@code CONDITIONS} and {@code NOTE} lines
 * on the console, {@code OUT/results.csv} and {@code OUT/ratios.csv}. Files are started fresh by
 * each run of the command.
 */
public final class Report {

    private final PrintStream console;
    private final Path out;
    private final Path resultsCsv;
    private final Path ratiosCsv;
    private final List<ResultRow> rows = new ArrayList<>();

    public Report(PrintStream console, Path out) {
        this(console, out, true);
    }

    private Report(PrintStream console, Path out, boolean files) {
        this.console = console;
        this.out = out;
        this.resultsCsv = files ? out.resolve("results.csv") : null;
        this.ratiosCsv = files ? out.resolve("ratios.csv") : null;
        if (!files) {
            return;
        }
        try {
            Files.createDirectories(out);
            Files.writeString(resultsCsv, ResultRow.CSV_HEADER + "\n", StandardCharsets.UTF_8);
            Files.writeString(
                    ratiosCsv, "suite,case,threads,ratio,value\n", StandardCharsets.UTF_8);
            Files.deleteIfExists(out.resolve("conditions.txt"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to output folder " + out, e);
        }
    }

    /** A report that only prints (for child JVMs, whose parent records the rows). */
    static Report consoleOnly(PrintStream console) {
        return new Report(console, null, false);
    }

    public Path out() {
        return out;
    }

    /** Prints and records one measured row. */
    public void result(ResultRow row) {
        rows.add(row);
        console.println(row.line());
        append(resultsCsv, row.csv());
    }

    /** Rows recorded so far (for ratios and charts). */
    public List<ResultRow> rows() {
        return List.copyOf(rows);
    }

    public List<ResultRow> rows(String suite) {
        return rows.stream().filter(r -> r.suite().equals(suite)).collect(Collectors.toList());
    }

    /**
     * Prints one {@code RATIO} line: {@code ours}'s ops/s divided by each peer's ops/s, for one
     * case and thread count. A peer missing from the run prints {@code NA}.
     */
    public void ratio(String suite, String caseName, int threads, String ours, List<String> peers) {
        StringBuilder sb =
                new StringBuilder("RATIO suite=")
                        .append(suite)
                        .append(" case=")
                        .append(caseName)
                        .append(" threads=")
                        .append(threads);
        ResultRow mine = find(suite, ours, caseName, threads);
        for (String peer : peers) {
            ResultRow theirs = find(suite, peer, caseName, threads);
            String value;
            if (mine == null || theirs == null || theirs.opsPerSec() <= 0) {
                value = "NA";
            } else {
                double r = mine.opsPerSec() / theirs.opsPerSec();
                value = r >= 10 ? ResultRow.fmt1(r) : ResultRow.fmt2(r);
            }
            String name = ours + "/" + peer;
            sb.append(' ').append(name).append('=').append(value);
            append(
                    ratiosCsv,
                    String.join(",", suite, caseName, Integer.toString(threads), name, value));
        }
        console.println(sb);
    }

    /** A free-form ratio line, for suites whose ratio is not a throughput (e.g. bytes). */
    public void ratioLine(String suite, String caseName, int threads, String name, double value) {
        String v = value >= 10 ? ResultRow.fmt1(value) : ResultRow.fmt2(value);
        console.println(
                "RATIO suite="
                        + suite
                        + " case="
                        + caseName
                        + " threads="
                        + threads
                        + " "
                        + name
                        + "="
                        + v);
        append(ratiosCsv, String.join(",", suite, caseName, Integer.toString(threads), name, v));
    }

    /**
     * One {@code RATIO} line with several named ratios (e.g. {@code ours/bound=0.71
     * ours/local=0.0011}); {@code NaN} prints {@code NA}.
     */
    public void ratios(String suite, String caseName, int threads, Map<String, Double> ratios) {
        StringBuilder sb =
                new StringBuilder("RATIO suite=")
                        .append(suite)
                        .append(" case=")
                        .append(caseName)
                        .append(" threads=")
                        .append(threads);
        for (Map.Entry<String, Double> e : ratios.entrySet()) {
            double r = e.getValue();
            String value =
                    Double.isNaN(r) || Double.isInfinite(r)
                            ? "NA"
                            : r >= 10
                                    ? ResultRow.fmt1(r)
                                    : r >= 0.01 ? ResultRow.fmt2(r) : fmtSmall(r);
            sb.append(' ').append(e.getKey()).append('=').append(value);
            append(
                    ratiosCsv,
                    String.join(
                            ",", suite, caseName, Integer.toString(threads), e.getKey(), value));
        }
        console.println(sb);
    }

    private static String fmtSmall(double r) {
        return String.format(java.util.Locale.ROOT, "%.4f", r);
    }

    public ResultRow find(String suite, String system, String caseName, int threads) {
        for (ResultRow row : rows) {
            if (row.suite().equals(suite)
                    && row.system().equals(system)
                    && row.caseName().equals(caseName)
                    && row.threads() == threads) {
                return row;
            }
        }
        return null;
    }

    /** A line of context: what a system's configuration was, why something was skipped. */
    public void note(String text) {
        console.println("NOTE " + text);
    }

    /** The run's conditions, printed once per suite. */
    public void conditions(String suite, String details) {
        Runtime rt = Runtime.getRuntime();
        String gcs =
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName)
                        .collect(Collectors.joining("+"))
                        .replace(' ', '_');
        String line =
                "CONDITIONS suite="
                        + suite
                        + " "
                        + details
                        + " jvm="
                        + System.getProperty("java.vm.name", "?").replace(' ', '_')
                        + "_"
                        + System.getProperty("java.version")
                        + " gc="
                        + gcs
                        + " heap_max_mb="
                        + rt.maxMemory() / (1024 * 1024)
                        + " cpus="
                        + rt.availableProcessors()
                        + " os="
                        + System.getProperty("os.name", "?").replace(' ', '_')
                        + "_"
                        + System.getProperty("os.arch");
        console.println(line);
        append(out == null ? null : out.resolve("conditions.txt"), line);
    }

    private static void append(Path file, String line) {
        if (file == null) {
            return;
        }
        try {
            Files.writeString(
                    file,
                    line + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + file, e);
        }
    }
}
