package dev.parquetlookup.bench;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.metadata.MetadataCache;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The {@code reader} suite's secondary-key case: lookups on the seed file by {@code v} (a STRING
 * column the file is not sorted by, served through a key index on {@code v}) against lookups by its
 * sort key {@code k}, on the same file, the same keys, in one run. Both sessions turn the key k
 * into its {@code v} (hex MD5) so both pay that conversion. The RATIO line is the secondary key's
 * lookups/s over the sort key's (goal: at least 0.7). NOTE lines give the index build (time, keys/s
 * by the clock and per CPU-second of the threads that build it, bytes per row) and the first row:
 * from opening the table to the first answered lookup by {@code v} (index built on the way),
 * against a FULL-cache stand-in (every row of the file scanned into a hash map by {@code v}, as
 * Flink's FULL cache loads a table before its first lookup), measured when the map fits in half the
 * heap.
 */
final class SecondaryKeyCase {

    static final String CASE = "secondary-key";

    private static final String SECONDARY = "parquet-lookup-secondary";
    private static final String SORTED = "parquet-lookup-sortkey";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    SecondaryKeyCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        SeedLayout layout = SeedLayout.lookupDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        Path indexes = report.out().resolve("data").resolve("secondary-indexes");
        deleteIndexes(indexes); // the build is measured: no index of an earlier run
        Engine secondary = null;
        Engine sorted = null;
        try {
            KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
            long start = System.nanoTime();
            long cpuStart = JobEnd.processCpuNanos();
            long buildCpu =
                    UnsortedCase.indexThreadsCpu()
                            + ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            secondary = new Engine(file, indexes, true);
            String first = secondary.session().lookup(1);
            long firstRowNanos = System.nanoTime() - start;
            long firstRowCpu = JobEnd.processCpuNanos() - cpuStart;
            buildCpu =
                    UnsortedCase.indexThreadsCpu()
                            + ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                            - buildCpu;
            KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
            if (!Md5Hex.of(1).equals(first)) {
                throw new IllegalStateException("secondary lookup of v(1) answered " + first);
            }
            long buildNanos = after.buildNanos() - before.buildNanos();
            long indexBytes = after.indexBytes() - before.indexBytes();
            report.note(
                    String.format(
                            Locale.ROOT,
                            "case=%s index key=v (STRING, hashed) rows=%d build_ms=%.1f"
                                    + " build_keys_per_s=%.0f build_cpu_ms=%.1f"
                                    + " build_keys_per_cpu_s=%.0f (CPU of the index builder"
                                    + " threads and of the opening thread) index_bytes=%d"
                                    + " bytes_per_row=%.2f first_row_ms=%.1f first_row_cpu_ms=%.1f"
                                    + " (open + index build + first lookup; CPU of the whole"
                                    + " process) load=%s",
                            CASE,
                            options.rows(),
                            buildNanos / 1e6,
                            options.rows() / Math.max(buildNanos / 1e9, 1e-9),
                            buildCpu / 1e6,
                            options.rows() / Math.max(buildCpu / 1e9, 1e-9),
                            indexBytes,
                            (double) indexBytes / options.rows(),
                            firstRowNanos / 1e6,
                            firstRowCpu / 1e6,
                            String.format(
                                    Locale.ROOT,
                                    "%.2f",
                                    ManagementFactory.getOperatingSystemMXBean()
                                            .getSystemLoadAverage())));
            fullCacheFirstRow(file, firstRowNanos, firstRowCpu);
            sorted = new Engine(file, indexes, false);
            List<LookupSystem> systems = List.of(secondary, sorted);
            for (LookupSystem s : systems) {
                report.note(
                        "case=" + CASE + " system=" + s.name() + " config=\"" + s.config() + "\"");
            }
            for (KeyMix mix : List.of(KeyMix.UNIFORM)) {
                String name = CASE + "-" + mix.label();
                CaseRunner.measureOneThread(ReaderSuite.SUITE, name, mix, systems, options, report);
                // Throughput by the secondary key over the sort key's (goal: at least 0.7).
                report.ratio(ReaderSuite.SUITE, name, 1, SECONDARY, List.of(SORTED));
            }
        } finally {
            if (secondary != null) {
                secondary.close();
            }
            if (sorted != null) {
                sorted.close();
            }
        }
    }

    /**
     * Time until a FULL cache could answer: every row scanned into a map by {@code v}, as Flink's
     * FULL cache loads the table before its first lookup (its own per-row costs not counted).
     */
    private void fullCacheFirstRow(Path file, long secondaryFirstRowNanos, long secondaryCpu)
            throws Exception {
        if (HashMapSystem.estimatedBytes(options.rows()) * 2
                > Runtime.getRuntime().maxMemory() / 2) {
            report.note("case=" + CASE + " full-cache first row not measured: map too large");
            return;
        }
        long start = System.nanoTime();
        long cpuStart = JobEnd.processCpuNanos();
        Map<String, Long> map = new HashMap<>();
        try (DimensionTable table =
                DimensionTable.open(
                        EngineSystem.seedTable(
                                        file, new MetadataCache(EngineSystem.METADATA_CACHE_BYTES))
                                .build())) {
            table.scan(
                    table.plan(List.of("k"), List.of("k", "v")),
                    row ->
                            map.put(
                                    new String((byte[]) row[1], StandardCharsets.UTF_8),
                                    (Long) row[0]));
        }
        long nanos = System.nanoTime() - start;
        long cpu = JobEnd.processCpuNanos() - cpuStart;
        if (!Long.valueOf(1).equals(map.get(Md5Hex.of(1)))) {
            throw new IllegalStateException("full-cache stand-in lost v(1)");
        }
        report.note(
                String.format(
                        Locale.ROOT,
                        "case=%s full_cache_first_row_ms=%.1f full_cache_cpu_ms=%.1f (scan of every"
                                + " row into a map by v) secondary_first_row_ms=%.1f"
                                + " secondary_cpu_ms=%.1f ratio=%.1fx cpu_ratio=%.1fx",
                        CASE,
                        nanos / 1e6,
                        cpu / 1e6,
                        secondaryFirstRowNanos / 1e6,
                        secondaryCpu / 1e6,
                        (double) nanos / Math.max(secondaryFirstRowNanos, 1),
                        (double) cpu / Math.max(secondaryCpu, 1)));
    }

    private static void deleteIndexes(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        List<Path> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.forEach(files::add);
        }
        for (Path f : files) {
            Files.deleteIfExists(f);
        }
    }

    /** The engine on the seed file, looked up by {@code v} (secondary) or by {@code k}. */
    private static final class Engine extends TableSystem {
        private final boolean bySecondary;
        private final LookupPlan plan;

        Engine(Path file, Path indexes, boolean bySecondary) throws IOException {
            super(
                    DimensionTable.open(
                            EngineSystem.seedTable(
                                            file,
                                            new MetadataCache(EngineSystem.METADATA_CACHE_BYTES))
                                    .indexDirectory(indexes)
                                    .build()));
            this.bySecondary = bySecondary;
            this.plan = table.plan(List.of(bySecondary ? "v" : "k"), List.of("v"));
        }

        @Override
        public String name() {
            return bySecondary ? SECONDARY : SORTED;
        }

        @Override
        public String config() {
            return "DimensionTable on a plain local path, sort key k, looked up by "
                    + (bySecondary ? "v through a key index on v" : "k (sorted path)")
                    + ", projection v, page cache off; the session computes v = md5hex(k) either"
                    + " way";
        }

        @Override
        public Session session() {
            return k -> {
                byte[] v = Md5Hex.bytes(k);
                return value(
                        table.lookup(plan, new Object[] {bySecondary ? (Object) v : (Object) k}));
            };
        }
    }
}
