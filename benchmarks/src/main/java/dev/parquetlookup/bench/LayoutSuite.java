package dev.parquetlookup.bench;

import dev.parquetlookup.metadata.MetadataCache;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code layout} suite: the seed study's Table 1 knobs on this engine. Each layout of the seed
 * dataset is written by {@code LookupFileWriter} and measured with uniform keys, one thread, page
 * cache off, next to the physical floor on the same file (when the layout has no dictionary).
 * Knobs: rows per row group x rows per page grid, dictionary on, codecs, threads, metadata cache
 * (cold vs cached open), and the JVM's garbage collector (child JVMs with G1, Parallel and ZGC).
 * Sorted vs unsorted is not a knob here: the {@code reader} suite's unsorted case ({@link
 * UnsortedCase}) measures files served through key indexes against the same rows sorted.
 */
final class LayoutSuite {

    static final String SUITE = "layout";
    static final String CHILD = "layout-gc-child";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    LayoutSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    private static final int[] ROW_GROUPS = {32_768, 131_072, 524_288};
    private static final int[] PAGES = {256, 1_024, 4_096};

    private static String gridName(int rowGroupRows, int pageRows) {
        return "rg" + rowGroupRows + "-page" + pageRows;
    }

    void run() throws Exception {
        SeedLayout base = SeedLayout.lookupDefault(options.rows());
        Map<String, SeedLayout> layouts = layouts(base);
        report.conditions(
                SUITE,
                base.describe()
                        + " (base; each case changes one knob) keys=uniform threads=1"
                        + " caches=metadata-on,page-cache-off os_cache=warm run_ms="
                        + options.runMillis()
                        + " reps="
                        + options.repetitions());
        report.note(
                "suite=layout sorted-vs-unsorted: measured by the reader suite's unsorted case"
                        + " (suite reader-unsorted: key index build, bytes per row, lookups)");
        long[] keys = KeyMix.UNIFORM.keys(options.rows(), keyCount(), 0);
        long[] warm = KeyMix.UNIFORM.keys(options.rows(), Math.min(keyCount(), 50_000), 1);
        warmUp(base, warm);
        for (Map.Entry<String, SeedLayout> e : layouts.entrySet()) {
            measureLayout(e.getKey(), e.getValue(), e.getValue().equals(base), keys, warm);
        }
        if (options.threads().size() > 1) {
            int t = options.threads().get(1);
            String name = gridName(131_072, 1_024);
            ResultRow one = report.find(SUITE, ReaderSuite.OURS, name, 1);
            ResultRow many = report.find(SUITE, ReaderSuite.OURS, name, t);
            report.ratioLine(
                    SUITE,
                    name,
                    t,
                    ReaderSuite.OURS + ":threads" + t + "/threads1",
                    many.opsPerSec() / one.opsPerSec());
        }
        metadataCache(SeedDataset.get(report.out(), base, log));
        garbageCollectors();
        report.note("suite=layout fastest layout for the engine: " + fastest(layouts));
        heatMap();
    }

    /** The grid of row-group and page sizes, then one knob changed at a time from {@code base}. */
    private Map<String, SeedLayout> layouts(SeedLayout base) {
        Map<String, SeedLayout> layouts = new LinkedHashMap<>();
        for (int rg : ROW_GROUPS) {
            for (int page : PAGES) {
                // --quick measures the page-size row and the row-group column through the default.
                if (options.quick() && rg != 131_072 && page != 1_024) {
                    continue;
                }
                layouts.put(gridName(rg, page), base.withPages(rg, page));
            }
        }
        layouts.put("dict-on", base.withDictionary(true));
        for (CompressionCodecName codec :
                List.of(
                        CompressionCodecName.UNCOMPRESSED,
                        CompressionCodecName.SNAPPY,
                        CompressionCodecName.ZSTD)) {
            layouts.put("codec-" + codec.name().toLowerCase(Locale.ROOT), base.withCodec(codec));
        }
        layouts.put("key-uncompressed", base.withKeyUncompressed(true));
        // What LookupFileWriter and prepare write by default.
        layouts.put("writer-default", SeedLayout.writerDefault(options.rows()));
        return layouts;
    }

    /**
     * A longer warm-up on the base layout first, so JIT compilation does not land in the first
     * measured layout.
     */
    private void warmUp(SeedLayout base, long[] warm) throws Exception {
        try (EngineSystem engine =
                        new EngineSystem(SeedDataset.get(report.out(), base, log), false);
                FloorSystem floor =
                        new FloorSystem(SeedDataset.get(report.out(), base, log), base)) {
            for (LookupSystem system : List.of(engine, floor)) {
                Measurement.run(system, warm, null, 1, 3 * options.warmupMillis() * 1_000_000L);
            }
        }
    }

    /** The engine (and the floor, without a dictionary) on one layout; threads on the base. */
    private void measureLayout(
            String name, SeedLayout layout, boolean isBase, long[] keys, long[] warm)
            throws Exception {
        Path file = SeedDataset.get(report.out(), layout, log);
        List<LookupSystem> systems = new ArrayList<>();
        try {
            systems.add(new EngineSystem(file, false));
            if (!layout.dictionary()) {
                systems.add(new FloorSystem(file, layout));
            }
            Map<String, String> more = new LinkedHashMap<>();
            more.put("file_mb", String.format(Locale.ROOT, "%.1f", Files.size(file) / 1048576.0));
            for (int threads : isBase ? options.threads() : List.of(1)) {
                CaseRunner.Outcome outcome =
                        CaseRunner.measure(
                                SUITE,
                                name,
                                systems,
                                options.rows(),
                                keys,
                                warm,
                                threads,
                                options,
                                report);
                for (LookupSystem system : systems) {
                    report.result(
                            CaseRunner.row(
                                    SUITE,
                                    system,
                                    null,
                                    name,
                                    threads,
                                    outcome.runs().get(system),
                                    more));
                }
                report.ratio(SUITE, name, threads, ReaderSuite.OURS, List.of("floor"));
            }
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
        }
    }

    /** The layout where the engine did the most lookups per second on one thread. */
    private String fastest(Map<String, SeedLayout> layouts) {
        String best = null;
        for (ResultRow row : report.rows(SUITE)) {
            if (row.system().equals(ReaderSuite.OURS)
                    && row.threads() == 1
                    && layouts.containsKey(row.caseName())
                    && (best == null
                            || row.opsPerSec()
                                    > report.find(SUITE, ReaderSuite.OURS, best, 1).opsPerSec())) {
                best = row.caseName();
            }
        }
        return best;
    }

    private int keyCount() {
        return options.quick() ? 100_000 : 400_000;
    }

    /**
     * Open plus first lookup with the metadata already in the (shared) cache, against a fresh cache
     * that must read footer and page indexes.
     */
    private void metadataCache(Path file) throws Exception {
        long key = KeyMix.UNIFORM.keys(options.rows(), 1, 7)[0];
        MetadataCache shared = new MetadataCache(EngineSystem.METADATA_CACHE_BYTES);
        new EngineSystem(file, false, shared).close();
        Map<String, List<long[]>> samples = new LinkedHashMap<>();
        for (int rep = 0; rep < options.repetitions(); rep++) {
            for (String mode :
                    rep % 2 == 0 ? List.of("cached", "cold") : List.of("cold", "cached")) {
                MetadataCache cache =
                        mode.equals("cached")
                                ? shared
                                : new MetadataCache(EngineSystem.METADATA_CACHE_BYTES);
                long t0 = System.nanoTime();
                try (EngineSystem system = new EngineSystem(file, false, cache);
                        LookupSystem.Session session = system.session()) {
                    String v = session.lookup(key);
                    long nanos = System.nanoTime() - t0;
                    if (!java.util.Objects.equals(v, CaseRunner.truth(options.rows(), key))) {
                        throw new IllegalStateException(
                                "open with metadata " + mode + " answered " + v + " for " + key);
                    }
                    samples.computeIfAbsent(mode, m -> new ArrayList<>())
                            .add(new long[] {nanos, system.bytesRead(), system.readRequests()});
                }
            }
        }
        for (Map.Entry<String, List<long[]>> e : samples.entrySet()) {
            long[] times = e.getValue().stream().mapToLong(s -> s[0]).sorted().toArray();
            long[] last = e.getValue().get(e.getValue().size() - 1);
            double medianUs = times[times.length / 2] / 1e3;
            report.result(
                    new ResultRow(
                            SUITE,
                            ReaderSuite.OURS,
                            "open-metadata-" + e.getKey(),
                            1,
                            1e6 / medianUs,
                            medianUs,
                            times[times.length - 1] / 1e3,
                            (double) last[1],
                            (double) last[2],
                            null,
                            1e9 / times[times.length - 1],
                            1e9 / times[0],
                            times.length,
                            Map.of()));
        }
        ResultRow cached = report.find(SUITE, ReaderSuite.OURS, "open-metadata-cached", 1);
        ResultRow cold = report.find(SUITE, ReaderSuite.OURS, "open-metadata-cold", 1);
        report.ratioLine(
                SUITE,
                "open",
                1,
                "metadata-cached/metadata-cold",
                cached.opsPerSec() / cold.opsPerSec());
    }

    /** One child JVM per collector, each measuring the base layout like the cases above. */
    private void garbageCollectors() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        Map<String, String> collectors = new LinkedHashMap<>();
        collectors.put("gc-g1", "-XX:+UseG1GC");
        collectors.put("gc-parallel", "-XX:+UseParallelGC");
        collectors.put("gc-zgc", "-XX:+UseZGC");
        for (Map.Entry<String, String> gc : collectors.entrySet()) {
            List<String> command =
                    new ArrayList<>(
                            List.of(
                                    java,
                                    gc.getValue(),
                                    "-Xmx1g",
                                    "-cp",
                                    classPath,
                                    BenchMain.class.getName(),
                                    CHILD,
                                    "--rows",
                                    Long.toString(options.rows()),
                                    "--out",
                                    report.out().toAbsolutePath().toString(),
                                    "--run-ms",
                                    Long.toString(options.runMillis()),
                                    "--reps",
                                    Integer.toString(options.repetitions())));
            if (options.quick()) {
                command.add("--quick");
            }
            Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
            List<String> output = new ArrayList<>();
            try (BufferedReader r =
                    new BufferedReader(
                            new InputStreamReader(
                                    child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    output.add(line);
                }
            }
            int code = child.waitFor();
            ResultRow row = null;
            for (String line : output) {
                if (line.startsWith("RESULT ")) {
                    row = ResultRow.parse(line);
                }
            }
            if (code != 0 || row == null) {
                throw new IllegalStateException(
                        "GC child JVM ("
                                + gc.getValue()
                                + ") failed with exit code "
                                + code
                                + ":\n"
                                + String.join("\n", output));
            }
            report.result(row.withCase(gc.getKey(), Map.of("jvm_flag", gc.getValue())));
        }
        ResultRow g1 = report.find(SUITE, ReaderSuite.OURS, "gc-g1", 1);
        for (String other : List.of("gc-parallel", "gc-zgc")) {
            ResultRow row = report.find(SUITE, ReaderSuite.OURS, other, 1);
            report.ratioLine(SUITE, other, 1, other + "/gc-g1", row.opsPerSec() / g1.opsPerSec());
        }
    }

    /**
     * The child side: measure the engine on the base layout (uniform keys, one thread) and print
     * one RESULT line. No report files are written; the parent records the row.
     */
    static void gcChild(BenchOptions options, PrintStream out) throws Exception {
        SeedLayout base = SeedLayout.lookupDefault(options.rows());
        Path file = SeedDataset.get(options.out(), base, out);
        Report console = Report.consoleOnly(out);
        try (EngineSystem engine = new EngineSystem(file, false)) {
            CaseRunner.measureOneThread(
                    SUITE, "gc", KeyMix.UNIFORM, List.of(engine), options, console);
        }
    }

    private void heatMap() throws Exception {
        List<String> rgNames = new ArrayList<>();
        List<String> pageNames = new ArrayList<>();
        for (int rg : ROW_GROUPS) {
            rgNames.add(Integer.toString(rg));
        }
        for (int page : PAGES) {
            pageNames.add(Integer.toString(page));
        }
        double[][] values = new double[ROW_GROUPS.length][PAGES.length];
        for (int x = 0; x < ROW_GROUPS.length; x++) {
            for (int y = 0; y < PAGES.length; y++) {
                ResultRow row =
                        report.find(SUITE, ReaderSuite.OURS, gridName(ROW_GROUPS[x], PAGES[y]), 1);
                values[x][y] = row == null ? 0 : row.opsPerSec();
            }
        }
        Charts.heatMap(
                report.out().resolve("layout-heatmap.png"),
                "Engine lookups/s by layout ("
                        + options.rows()
                        + " rows, uniform, 1 thread; blank = not measured)",
                "rows per row group",
                rgNames.toArray(new String[0]),
                "rows per page",
                pageNames.toArray(new String[0]),
                values);
    }
}
