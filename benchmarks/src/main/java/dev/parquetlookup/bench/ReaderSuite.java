package dev.parquetlookup.bench;

import dev.parquetlookup.metadata.MetadataCache;

import org.duckdb.DuckDBConnection;
import org.jfree.data.category.DefaultCategoryDataset;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code reader} suite: point reads on the seed dataset by this engine and its peers, in one
 * process run, on the same file and the same keys, alternating the order of the systems between
 * repetitions; every answering system's answers are fingerprinted and must agree with each other
 * and with the dataset's definition.
 */
final class ReaderSuite {

    static final String SUITE = "reader";
    static final String OURS = "parquet-lookup";
    static final String OURS_CACHED = "parquet-lookup-pagecache";
    static final List<String> PEERS =
            List.of(
                    "duckdb",
                    "parquet-java",
                    "floor",
                    "floor-partial",
                    "floor-prefix",
                    "hashmap",
                    "parquet-java-reader");

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    ReaderSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        SeedLayout layout = SeedLayout.lookupDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        report.conditions(
                SUITE,
                layout.describe()
                        + " file_bytes="
                        + Files.size(file)
                        + " threads="
                        + joined(options.threads())
                        + " caches=metadata-on,page-cache-off(parquet-lookup)/on(parquet-lookup-pagecache)"
                        + " os_cache=warm run_ms="
                        + options.runMillis()
                        + " reps="
                        + options.repetitions());
        List<LookupSystem> systems = new ArrayList<>();
        Map<String, Long> heap = new LinkedHashMap<>();
        try {
            openAll(file, layout, systems, heap);
            // A longer warm-up before the first case, so JIT compilation of the slower peers
            // does not land in the first measured case; in alternating passes, as the cases run
            // them (the engine and floor-partial share the decompressor: code compiled while one
            // ran alone is recompiled once the other runs, which a loaded machine does slowly).
            long[] warm = KeyMix.UNIFORM.keys(options.rows(), Math.min(keyCount(), 50_000), 2);
            for (int pass = 0; pass < 3; pass++) {
                for (LookupSystem system : systems) {
                    Measurement.run(system, warm, null, 1, options.warmupMillis() * 1_000_000L);
                }
            }
            for (KeyMix mix : KeyMix.values()) {
                for (int threads : options.threads()) {
                    measureCase(systems, heap, mix, threads);
                }
            }
            if (ONLY.isEmpty()) {
                coldStart(file, layout);
            }
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
        }
        for (KeyMix mix : KeyMix.values()) {
            for (int threads : options.threads()) {
                report.ratio(SUITE, mix.label(), threads, OURS, PEERS);
                report.ratio(SUITE, mix.label(), threads, OURS_CACHED, PEERS);
            }
        }
        report.ratio(SUITE, "cold-start", 1, OURS, List.of("duckdb", "parquet-java", "hashmap"));
        scaling();
        charts();
        if (ONLY.isEmpty()) {
            new NoPageIndexCase(options, report, log).run();
            new DictionaryKeyCase(options, report, log).run();
            new SecondaryKeyCase(options, report, log).run();
            new UnsortedCase(options, report, log).run();
        }
    }

    /**
     * {@code -Dbench.reader.systems=parquet-lookup,parquet-lookup-pagecache,floor}: only these
     * systems, and neither the cold start nor the suite's other layouts (for the page cache at 100M
     * rows, where the peers take most of the time). Empty: everything.
     */
    private static final List<String> ONLY =
            Arrays.stream(System.getProperty("bench.reader.systems", "").split(","))
                    .map(String::trim)
                    .filter(n -> !n.isEmpty())
                    .toList();

    private void openAll(
            Path file, SeedLayout layout, List<LookupSystem> systems, Map<String, Long> heap)
            throws Exception {
        for (boolean pageCache : new boolean[] {false, true}) {
            open(systems, heap, () -> new EngineSystem(file, pageCache));
        }
        open(systems, heap, () -> new ParquetJavaSystem(file));
        open(systems, heap, () -> new ParquetReaderSystem(file));
        open(systems, heap, () -> new DuckDbSystem(file));
        long maxHeap = Runtime.getRuntime().maxMemory();
        if (!ONLY.isEmpty() && !ONLY.contains("hashmap")) {
            report.note("system=hashmap skipped: not in bench.reader.systems");
        } else if (HashMapSystem.estimatedBytes(layout.rows()) < maxHeap / 2) {
            open(systems, heap, () -> new HashMapSystem(file, layout.rows()));
            HashMapSystem map = (HashMapSystem) systems.get(systems.size() - 1);
            report.note(
                    String.format(
                            "system=hashmap load_s=%.2f retained_heap_mb=%d",
                            map.loadNanos() / 1e9, map.retainedHeapBytes() >> 20));
        } else {
            report.note(
                    "system=hashmap skipped: about "
                            + (HashMapSystem.estimatedBytes(layout.rows()) >> 20)
                            + " MB of heap needed, max heap is "
                            + (maxHeap >> 20)
                            + " MB (raise -Xmx to include it)");
        }
        open(systems, heap, () -> new FloorSystem(file, layout));
        open(systems, heap, () -> new FloorSystem(file, layout, true));
        open(systems, heap, () -> new FloorSystem(file, layout, true, true));
    }

    private interface Opener {
        LookupSystem open() throws Exception;
    }

    private void open(List<LookupSystem> systems, Map<String, Long> heap, Opener opener)
            throws Exception {
        long before = Heap.usedAfterGc();
        LookupSystem system;
        try {
            system = opener.open();
        } catch (UnsupportedOperationException e) {
            report.note("system skipped: not implemented yet (" + e.getMessage() + ")");
            return;
        }
        if (!ONLY.isEmpty() && !ONLY.contains(system.name())) {
            system.close();
            return;
        }
        long retained = system.retainedHeapBytes();
        heap.put(
                system.name(), retained >= 0 ? retained : Math.max(0, Heap.usedAfterGc() - before));
        systems.add(system);
        report.note("system=" + system.name() + " config=\"" + system.config() + "\"");
    }

    private int keyCount() {
        return options.quick() ? 100_000 : 400_000;
    }

    private void measureCase(
            List<LookupSystem> systems, Map<String, Long> heap, KeyMix mix, int threads)
            throws Exception {
        long[] keys = mix.keys(options.rows(), keyCount(), 0);
        long[] warm = mix.keys(options.rows(), Math.min(keyCount(), 50_000), 1);
        CaseRunner.Outcome outcome =
                CaseRunner.measure(
                        SUITE,
                        mix.label(),
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
                            heap.get(system.name()),
                            mix.label(),
                            threads,
                            outcome.runs().get(system),
                            Map.of()));
        }
        p50Ratios(mix.label(), threads, outcome.runs());
    }

    /**
     * One {@code RATIO} line of p50 latencies, ours over each floor: per repetition (the systems
     * ran back to back, so both saw the same machine), then the median of those ratios.
     */
    private void p50Ratios(
            String caseName, int threads, Map<LookupSystem, List<Measurement.Run>> runs) {
        Map<String, List<Measurement.Run>> byName = new LinkedHashMap<>();
        runs.forEach((system, list) -> byName.put(system.name(), list));
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (String ours : List.of(OURS, OURS_CACHED)) {
            for (String floor : List.of("floor", "floor-partial", "floor-prefix")) {
                List<Measurement.Run> mine = byName.get(ours);
                List<Measurement.Run> theirs = byName.get(floor);
                if (mine == null || theirs == null) {
                    continue;
                }
                double[] perRep = new double[Math.min(mine.size(), theirs.size())];
                for (int r = 0; r < perRep.length; r++) {
                    perRep[r] =
                            mine.get(r).percentileMicros(0.50)
                                    / theirs.get(r).percentileMicros(0.50);
                }
                Arrays.sort(perRep);
                ratios.put(
                        ours + "/" + floor + ":p50",
                        perRep.length == 0 ? Double.NaN : perRep[perRep.length / 2]);
            }
        }
        if (!ratios.isEmpty()) {
            report.ratios(SUITE, caseName, threads, ratios);
        }
    }

    private String truth(long k) {
        return CaseRunner.truth(options.rows(), k);
    }

    /**
     * Cold start: open a never-opened file (a fresh hard link, so no cache keyed by path knows it)
     * and time the open plus the first lookup. The OS page cache is warm; only the process is cold.
     */
    private void coldStart(Path file, SeedLayout layout) throws Exception {
        Path dir = report.out().resolve("cold");
        Files.createDirectories(dir);
        long key = KeyMix.UNIFORM.keys(layout.rows(), 1, 99)[0];
        String expected = truth(key);
        List<String> names = new ArrayList<>(List.of(OURS, "parquet-java", "duckdb"));
        if (HashMapSystem.estimatedBytes(layout.rows()) < Runtime.getRuntime().maxMemory() / 2) {
            names.add("hashmap");
        }
        Map<String, List<long[]>> samples = new LinkedHashMap<>();
        DuckDBConnection duck = DuckDbSystem.openDatabase();
        int counter = 0;
        try {
            for (int rep = 0; rep < options.repetitions(); rep++) {
                List<String> order = new ArrayList<>(names);
                if (rep % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (String name : order) {
                    Path link =
                            dir.resolve(
                                    name
                                            + "-"
                                            + ProcessHandle.current().pid()
                                            + "-"
                                            + counter++
                                            + ".parquet");
                    Files.deleteIfExists(link);
                    linkOrCopy(file, link);
                    try {
                        long[] sample = openAndLookUp(name, link, layout, duck, key, expected);
                        if (sample != null) {
                            samples.computeIfAbsent(name, n -> new ArrayList<>()).add(sample);
                        }
                    } finally {
                        Files.deleteIfExists(link);
                    }
                }
            }
        } finally {
            duck.close();
        }
        reportColdStarts(samples);
    }

    /**
     * Opens a never-opened file with system {@code name} and looks up {@code key} once: {nanos,
     * bytes read, read requests}, or null when the system cannot open this layout.
     */
    private static long[] openAndLookUp(
            String name,
            Path link,
            SeedLayout layout,
            DuckDBConnection duck,
            long key,
            String expected)
            throws Exception {
        long t0 = System.nanoTime();
        LookupSystem system;
        try {
            system =
                    switch (name) {
                        case OURS ->
                                new EngineSystem(
                                        link,
                                        false,
                                        new MetadataCache(EngineSystem.METADATA_CACHE_BYTES));
                        case "parquet-java" -> new ParquetJavaSystem(link);
                        case "duckdb" -> new DuckDbSystem(link, duck, false);
                        default -> new HashMapSystem(link, layout.rows());
                    };
        } catch (UnsupportedOperationException e) {
            return null;
        }
        String v;
        try (LookupSystem.Session session = system.session()) {
            v = session.lookup(key);
        }
        long nanos = System.nanoTime() - t0;
        if (!java.util.Objects.equals(v, expected)) {
            throw new IllegalStateException(
                    "cold start of "
                            + name
                            + " answered "
                            + v
                            + " for key "
                            + key
                            + ", expected "
                            + expected);
        }
        long[] sample = {nanos, system.bytesRead(), system.readRequests()};
        system.close();
        return sample;
    }

    /** One result row per system: the median of its cold starts. */
    private void reportColdStarts(Map<String, List<long[]>> samples) {
        for (Map.Entry<String, List<long[]>> e : samples.entrySet()) {
            long[] times = e.getValue().stream().mapToLong(s -> s[0]).sorted().toArray();
            long[] last = e.getValue().get(e.getValue().size() - 1);
            double medianUs = times[times.length / 2] / 1e3;
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put(
                    "first_lookup_ms",
                    String.format(java.util.Locale.ROOT, "%.2f", medianUs / 1e3));
            report.result(
                    new ResultRow(
                            SUITE,
                            e.getKey(),
                            "cold-start",
                            1,
                            1e6 / medianUs,
                            medianUs,
                            times[times.length - 1] / 1e3,
                            last[1] >= 0 ? (double) last[1] : null,
                            last[2] >= 0 ? (double) last[2] : null,
                            null,
                            1e9 / times[times.length - 1],
                            1e9 / times[0],
                            times.length,
                            extra));
        }
    }

    private static void linkOrCopy(Path file, Path link) throws java.io.IOException {
        try {
            Files.createLink(link, file);
        } catch (UnsupportedOperationException | java.io.IOException e) {
            Files.copy(file, link);
        }
    }

    /** Two threads against one, per system and mix. */
    private void scaling() {
        if (options.threads().size() < 2) {
            return;
        }
        int t = options.threads().get(1);
        for (KeyMix mix : KeyMix.values()) {
            for (String system :
                    List.of(
                            OURS,
                            OURS_CACHED,
                            "floor",
                            "floor-partial",
                            "floor-prefix",
                            "duckdb",
                            "parquet-java")) {
                ResultRow one = report.find(SUITE, system, mix.label(), 1);
                ResultRow many = report.find(SUITE, system, mix.label(), t);
                if (one != null && many != null && one.opsPerSec() > 0) {
                    report.ratioLine(
                            SUITE,
                            mix.label(),
                            t,
                            system + ":threads" + t + "/threads1",
                            many.opsPerSec() / one.opsPerSec());
                }
            }
        }
    }

    private void charts() throws Exception {
        for (int threads : options.threads()) {
            DefaultCategoryDataset throughput = new DefaultCategoryDataset();
            DefaultCategoryDataset latency = new DefaultCategoryDataset();
            for (ResultRow row : report.rows(SUITE)) {
                if (row.threads() != threads || row.caseName().equals("cold-start")) {
                    continue;
                }
                throughput.addValue(row.opsPerSec(), row.system(), row.caseName());
                if (row.caseName().equals("uniform")) {
                    latency.addValue(row.p50Micros(), "p50", row.system());
                    latency.addValue(row.p99Micros(), "p99", row.system());
                }
            }
            Charts.bars(
                    report.out().resolve("reader-throughput-t" + threads + ".png"),
                    "Point reads, "
                            + options.rows()
                            + " rows, "
                            + threads
                            + " thread(s): lookups/s (log)",
                    "lookups/s",
                    throughput,
                    true);
            Charts.bars(
                    report.out().resolve("reader-latency-t" + threads + ".png"),
                    "Point-read latency, uniform keys, "
                            + threads
                            + " thread(s): microseconds (log)",
                    "us",
                    latency,
                    true);
        }
    }

    private static String joined(List<Integer> values) {
        return String.join(",", Arrays.stream(values.toArray()).map(String::valueOf).toList());
    }
}
