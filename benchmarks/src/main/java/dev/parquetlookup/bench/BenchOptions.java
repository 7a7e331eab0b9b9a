package dev.parquetlookup.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Command line of the benchmarks: {@code SUITE [--quick] [--rows N] [--threads N] [--out DIR]}.
 *
 * <p>Example: {@code reader --quick --out /tmp/bench} runs the reader suite on 1M rows. {@code
 * --rows} accepts plain numbers and {@code k}/{@code m} suffixes ({@code --rows 100m}). {@code
 * --threads N} measures 1 and N threads (default 2). {@code --run-ms} (advanced) overrides the
 * length of one timed repetition, and {@code --reps} the number of repetitions (at least 3). The
 * {@code flink} suite takes {@code --parallelism P} (default 2) and {@code --events N} (default
 * 200,000, 20,000 with {@code --quick}). The {@code objectstore} suite takes {@code --delays
 * 0,5,20,50} (first-byte delays in ms; default 0,5,20,50, or 0,20 with {@code --quick}), {@code
 * --window-ms W} (length of its cold and warm measuring windows), {@code --inflight-limit L} (the
 * configured bound on requests in flight for the whole job, for the concurrency bound; default: the
 * most observed) and {@code --option key=value} (repeatable: a connector option added to the
 * dimension tables' {@code WITH} clause, e.g. {@code --option
 * hadoop.fs.s3a.vectored.active.ranged.reads=64}). The {@code paimon} suite (not part of {@code
 * all}) takes {@code --parallelism} and {@code --events} (default 200,000) too. {@code --layout
 * protocol|prepared|both} picks the {@code flink} suite's file layouts (default both); {@code
 * unsorted} and/or {@code secondary} (comma-separated) run only those, with the protocol layout as
 * their reference ({@link FlinkLayouts#LAYOUTS}).
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
 * @param delaysMillis first-byte delays of the {@code objectstore} suite, or empty for its default
 * @param windowMillis measuring window of the {@code objectstore} suite, or 0 for its default
 * @param inflightLimit requests in flight allowed for a whole job, or 0 to use the most observed
 * @param connectorOptions connector options for the {@code objectstore} suite's tables
 * @param layout the {@code flink} suite's layouts: {@code protocol}, {@code prepared}, {@code
 *     both}, or a comma-separated list of those and {@code unsorted}, {@code secondary}
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
        long events,
        List<Integer> delaysMillis,
        long windowMillis,
        int inflightLimit,
        Map<String, String> connectorOptions,
        String layout) {

    public static final List<String> SUITES =
            List.of("reader", "pageindex", "layout", "flink", "objectstore");

    static final String USAGE =
            "usage: java -jar benchmarks/target/benchmarks.jar SUITE [--quick] [--rows N]"
                    + " [--threads N] [--out DIR] [--run-ms MS] [--reps N] [--parallelism P]"
                    + " [--events N] [--delays MS,MS] [--window-ms MS] [--inflight-limit L]"
                    + " [--option key=value]... [--layout protocol|prepared|both|unsorted,secondary]\n"
                    + "  SUITE: reader | layout | flink | pageindex | objectstore | all"
                    + " (reader-noindex: only the reader suite's files without a page index;"
                    + " reader-dict: only its dictionary-encoded layout;"
                    + " reader-secondary: only its lookups by a secondary key;"
                    + " reader-unsorted: only its unsorted case (key index build, bytes per"
                    + " row, lookups against the sorted file);"
                    + " paimon: the lookup join against Apache Paimon's, not in 'all' (it writes"
                    + " the dataset again into a Paimon table), e.g. 'paimon --quick';"
                    + " objectstore-open: only the objectstore suite's opening case;"
                    + " objectstore-client: CPU per ranged GET of the two S3 read paths (netty, S3A streams);"
                    + " prepare: prepare vs DuckDB's sorted COPY, not part of all;"
                    + " flink-scale: CPU per lookup of the SQL join at 1x and 9x the rows and"
                    + " lookups on DuckDB files, not part of all)\n"
                    + "  --quick   1M rows and short repetitions (default 10M rows)\n"
                    + "  --rows N  dataset rows, e.g. 50000, 10m, 100m\n"
                    + "  --threads N  measure 1 and N threads (default 2)\n"
                    + "  --out DIR    output folder (default target/bench)\n"
                    + "  --parallelism P  flink suite: job parallelism (default 2)\n"
                    + "  --events N   flink suite: events per job (default 200k, 20k with --quick);"
                    + " paimon suite: default 200k\n"
                    + "  --delays MS,MS  objectstore suite: first-byte delays (default 0,5,20,50;"
                    + " 0,20 with --quick)\n"
                    + "  --window-ms MS  objectstore suite: cold and warm window (default 5000;"
                    + " 1500 with --quick)\n"
                    + "  --inflight-limit L  objectstore suite: configured requests in flight per"
                    + " job (default: the most observed)\n"
                    + "  --option key=value  objectstore suite: a connector option for its tables"
                    + " (repeatable)\n"
                    + "  --layout L  flink suite: the seed protocol's layout as parquet-java writes"
                    + " it (protocol, with its unsorted and secondary layouts), the writer's default"
                    + " (prepared) or both (default); unsorted and/or secondary (comma-separated)"
                    + " alone: those, with the protocol layout's sync and async as reference";

    public BenchOptions {
        suites = List.copyOf(suites);
        threads = List.copyOf(threads);
        delaysMillis = List.copyOf(delaysMillis);
        connectorOptions = Collections.unmodifiableMap(new LinkedHashMap<>(connectorOptions));
    }

    /** Parses the command line; throws {@link IllegalArgumentException} with the usage on error. */
    public static BenchOptions parse(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no suite given\n" + USAGE);
        }
        List<String> suites = suites(args[0]);
        Flags flags = new Flags();
        for (int i = 1; i < args.length; i++) {
            i = flags.accept(args, i);
        }
        return flags.build(suites);
    }

    /** {@code all}, a suite of {@code all}, or one of the suites run only by name. */
    private static List<String> suites(String arg) {
        String suite = arg.toLowerCase(Locale.ROOT);
        if (suite.equals("all")) {
            return SUITES;
        }
        if (SUITES.contains(suite)
                || suite.equals("reader-noindex")
                || suite.equals("reader-dict")
                || suite.equals("reader-secondary")
                || suite.equals("reader-unsorted")
                || suite.equals(PaimonSuite.SUITE)
                || suite.equals("objectstore-open")
                || suite.equals("objectstore-client")
                || suite.equals("prepare")
                || suite.equals(ScaleCase.SUITE)) {
            return List.of(suite);
        }
        throw new IllegalArgumentException("unknown suite '" + arg + "'\n" + USAGE);
    }

    /** The flags after the suite, as given; {@link #build} checks them and fills the defaults. */
    private static final class Flags {
        boolean quick;
        Long rows;
        int maxThreads = 2;
        Path out = Path.of("target", "bench");
        Long runMillis;
        int reps = 3;
        int parallelism = 2;
        long events;
        final List<Integer> delays = new ArrayList<>();
        long windowMillis;
        int inflightLimit;
        final Map<String, String> connectorOptions = new LinkedHashMap<>();
        String layout = "both";

        /** Takes the flag at {@code args[i]} and its value; returns the index of the last used. */
        int accept(String[] args, int i) {
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
                case "--delays" -> {
                    delays.clear();
                    for (String d : value(args, ++i, arg).split(",")) {
                        delays.add((int) parseCount(d));
                    }
                }
                case "--window-ms" -> windowMillis = parseCount(value(args, ++i, arg));
                case "--inflight-limit" -> inflightLimit = (int) parseCount(value(args, ++i, arg));
                case "--layout" -> layout = value(args, ++i, arg).toLowerCase(Locale.ROOT);
                case "--option" -> {
                    String kv = value(args, ++i, arg);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException(
                                "--option needs key=value, got '" + kv + "'\n" + USAGE);
                    }
                    connectorOptions.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                }
                default ->
                        throw new IllegalArgumentException(
                                "unknown option '" + arg + "'\n" + USAGE);
            }
            return i;
        }

        BenchOptions build(List<String> suites) {
            if (maxThreads < 1) {
                throw new IllegalArgumentException(
                        "--threads must be at least 1, got " + maxThreads);
            }
            if (parallelism < 1) {
                throw new IllegalArgumentException(
                        "--parallelism must be at least 1, got " + parallelism);
            }
            if (reps < 3) {
                throw new IllegalArgumentException(
                        "--reps must be at least 3 (the protocol reports a median of 3+), got "
                                + reps);
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
            FlinkLayouts.selected(layout); // checks the names

            long run = runMillis != null ? runMillis : quick ? 200 : 2_000;
            return new BenchOptions(
                    suites,
                    quick,
                    n,
                    threadCounts,
                    out,
                    run,
                    reps,
                    parallelism,
                    events,
                    delays,
                    windowMillis,
                    inflightLimit,
                    connectorOptions,
                    layout);
        }
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
