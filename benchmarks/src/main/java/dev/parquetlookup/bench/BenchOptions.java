package dev.parquetlookup.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Command line of the benchmarks: {@code SUITE [--quick] [--rows N] [--threads N] [--out DIR]}.
 *
 * <p>Example: {@code reader --quick --out /tmp/bench} runs the reader suite on 1M rows. {@code
 * --rows} accepts plain numbers and {@code k}/{@code m} suffixes ({@code --rows 100m}). {@code
 * --threads N} measures 1 and N threads (default 2). {@code --run-ms} (advanced) overrides the
 * length of one timed repetition, and {@code --reps} the number of repetitions (at least 3). The
 * {@code flink} suite takes {@code --parallelism P} (default 2) and {@code --events N} (default
 * 200,000, 20,000 with {@code --quick}).
 *
 * @param suites the suites to run, in order
 * @param quick whether the quick size and short repetitions were asked for
 * @param rows rows of the seed dataset
 * @param threads the thread counts measured, ascending, always starting with 1
 * @param out output folder (dataset cache, results.csv, charts)
 * @param runMillis length of one timed repetition per system
 * @param repetitions timed repetitions per system (the median is reported)
 * @param parallelism parallelism of the {@code flink} suite's jobs
 * @param events events per job of the {@code flink} suite, or 0 for its default
 */
public record BenchOptions(
        List<String> suites,
        boolean quick,
        long rows,
        List<Integer> threads,
        Path out,
        long runMillis,
        int repetitions,
        int parallelism,
        long events) {

    public static final List<String> SUITES = List.of("reader", "pageindex", "layout", "flink");

    static final String USAGE =
            "usage: java -jar benchmarks/target/benchmarks.jar SUITE [--quick] [--rows N]"
                    + " [--threads N] [--out DIR] [--run-ms MS] [--reps N] [--parallelism P]"
                    + " [--events N]\n"
                    + "  SUITE: reader | layout | flink | pageindex | all (reader-noindex: only the"
                    + " reader suite's files without a page index)\n"
                    + "  --quick   1M rows and short repetitions (default 10M rows)\n"
                    + "  --rows N  dataset rows, e.g. 50000, 10m, 100m\n"
                    + "  --threads N  measure 1 and N threads (default 2)\n"
                    + "  --out DIR    output folder (default target/bench)\n"
                    + "  --parallelism P  flink suite: job parallelism (default 2)\n"
                    + "  --events N   flink suite: events per job (default 200k, 20k with --quick)";

    public BenchOptions {
        suites = List.copyOf(suites);
        threads = List.copyOf(threads);
    }

    /** Parses the command line; throws {@link IllegalArgumentException} with the usage on error. */
    public static BenchOptions parse(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no suite given\n" + USAGE);
        }
        String suite = args[0].toLowerCase(Locale.ROOT);
        List<String> suites;
        if (suite.equals("all")) {
            suites = SUITES;
        } else if (SUITES.contains(suite) || suite.equals("reader-noindex")) {
            suites = List.of(suite);
        } else {
            throw new IllegalArgumentException("unknown suite '" + args[0] + "'\n" + USAGE);
        }
        boolean quick = false;
        Long rows = null;
        int maxThreads = 2;
        Path out = Path.of("target", "bench");
        Long runMillis = null;
        int reps = 3;
        int parallelism = 2;
        long events = 0;
        for (int i = 1; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> quick = true;
                case "--rows" -> rows = parseCount(value(args, ++i, arg));
                case "--threads" -> maxThreads = (int) parseCount(value(args, ++i, arg));
                case "--out" -> out = Path.of(value(args, ++i, arg));
                case "--run-ms" -> runMillis = parseCount(value(args, ++i, arg));
                case "--reps" -> reps = (int) parseCount(value(args, ++i, arg));
                case "--parallelism" -> parallelism = (int) parseCount(value(args, ++i, arg));
                case "--events" -> events = parseCount(value(args, ++i, arg));
                default ->
                        throw new IllegalArgumentException(
                                "unknown option '" + arg + "'\n" + USAGE);
            }
        }
        if (maxThreads < 1) {
            throw new IllegalArgumentException("--threads must be at least 1, got " + maxThreads);
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException(
                    "--parallelism must be at least 1, got " + parallelism);
        }
        if (reps < 3) {
            throw new IllegalArgumentException(
                    "--reps must be at least 3 (the protocol reports a median of 3+), got " + reps);
        }
        long n = rows != null ? rows : quick ? 1_000_000L : 10_000_000L;
        if (n < 1_000) {
            throw new IllegalArgumentException("--rows must be at least 1000, got " + n);
        }
        List<Integer> threadCounts = new ArrayList<>();
        threadCounts.add(1);
        if (maxThreads > 1) {
            threadCounts.add(maxThreads);
        }
        long run = runMillis != null ? runMillis : quick ? 200 : 2_000;
        return new BenchOptions(
                suites, quick, n, threadCounts, out, run, reps, parallelism, events);
    }

    /** Warm-up per system and case: as long as one repetition. */
    public long warmupMillis() {
        return runMillis;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args[i];
    }

    /** {@code 50000}, {@code 10m}, {@code 100M}, {@code 500k}. */
    static long parseCount(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT).replace("_", "");
        long factor = 1;
        if (t.endsWith("k")) {
            factor = 1_000;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            factor = 1_000_000;
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), factor);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a count: '" + text + "'\n" + USAGE);
        }
    }
}
