package dev.parquetlookup.bench;

import java.io.PrintStream;
import java.nio.file.Files;

/**
 * Entry point of {@code benchmarks.jar}: {@code java -jar benchmarks/target/benchmarks.jar SUITE
 * [--quick] [--rows N] [--threads N] [--out DIR]}.
 *
 * <p>Example: {@code java -jar benchmarks/target/benchmarks.jar reader --quick} prints {@code
 * RESULT}, {@code RATIO}, {@code CONDITIONS} and {@code NOTE} lines and writes {@code
 * target/bench/results.csv} and PNG charts. Exit code 0 on success, 1 when a run fails (e.g. a
 * fingerprint mismatch), 2 on a bad command line.
 */
public final class BenchMain {

    private BenchMain() {}

    public static void main(String[] args) {
        System.exit(run(System.out, args));
    }

    /** Runs the command in this JVM; the smoke test calls this directly. */
    public static int run(PrintStream out, String... args) {
        // Before any AWT class loads: charts are rendered on machines without a display.
        System.setProperty("java.awt.headless", "true");
        BenchOptions options;
        try {
            if (args.length > 0 && args[0].equals(LayoutSuite.CHILD)) {
                String[] rest = args.clone();
                rest[0] = "layout";
                LayoutSuite.gcChild(BenchOptions.parse(rest), out);
                return 0;
            }
            if (args.length > 0 && args[0].equals(PaimonSuite.CHILD)) {
                String[] rest = args.clone();
                rest[0] = PaimonSuite.SUITE;
                PaimonSuite.child(BenchOptions.parse(rest), out);
                return 0;
            }
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            out.println(e.getMessage());
            return 2;
        } catch (Exception e) {
            out.println("FAILED " + e);
            e.printStackTrace(out);
            return 1;
        }
        try {
            Files.createDirectories(options.out());
            Report report = new Report(out, options.out());
            long start = System.nanoTime();
            for (String suite : options.suites()) {
                long t0 = System.nanoTime();
                switch (suite) {
                    case "reader" -> new ReaderSuite(options, report, out).run();
                    case "reader-noindex" ->
                            new NoPageIndexRemoteCase(options, report)
                                    .run(new NoPageIndexCase(options, report, out).run());
                    case "reader-dict" -> new DictionaryKeyCase(options, report, out).run();
                    case "reader-secondary" -> new SecondaryKeyCase(options, report, out).run();
                    case "reader-unsorted" -> new UnsortedCase(options, report, out).run();
                    case "prepare" -> new PrepareCase(options, report, out).run();
                    case ScaleCase.SUITE -> new ScaleCase(options, report, out).run();
                    case "pageindex" -> new PageIndexSuite(options, report, out).run();
                    case "layout" -> new LayoutSuite(options, report, out).run();
                    case "flink" -> new FlinkSuite(options, report, out).run();
                    case "objectstore" -> new ObjectStoreSuite(options, report, out).run();
                    case "paimon" -> new PaimonSuite(options, report, out).run();
                    case "objectstore-open" -> new OpenScaleCase(options, report, out).run();
                    case "objectstore-client" -> new S3ClientCpu(options, report, out).run();
                    default -> throw new IllegalStateException("no suite " + suite);
                }
                out.printf("NOTE suite=%s took %.1f s%n", suite, (System.nanoTime() - t0) / 1e9);
            }
            out.printf(
                    "NOTE done in %.1f s; results in %s%n",
                    (System.nanoTime() - start) / 1e9, options.out().resolve("results.csv"));
            return 0;
        } catch (Exception e) {
            out.println("FAILED " + e);
            e.printStackTrace(out);
            return 1;
        }
    }
}
