package dev.parquetlookup.bench;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The {@code reader} suite's unsorted case: the seed rows in a scrambled order (parquet-java,
 * lookup layout), served through the key index the engine builds per file ({@code unsorted-files} =
 * {@code index}), against the same rows sorted, in one run on the same keys. Measured:
 *
 * <ul>
 *   <li>the index build: keys per CPU-second of the threads that build it (the index builder
 *       threads and the thread that opens the table and waits at its first lookup), a fresh index
 *       directory per repetition, and the index file's bytes per row;
 *   <li>index bytes per row by key type (BIGINT, INT, STRING, a STRING+INT composite) on a
 *       generated file of up to 1M scrambled rows;
 *   <li>lookup p50 and lookups/s on the unsorted file against the sorted one (RATIO lines);
 *   <li>the same rows scrambled over {@code -Dbench.unsorted.files} files (default 10, as issue
 *       27's SQL table: every file spans the whole key range, so a lookup asks every file's index
 *       and finds its row in one) served as one table (their directory), against the sorted file:
 *       p50, lookups/s and CPU per lookup of the measuring thread, and a RATIO line.
 * </ul>
 *
 * Runs alone as suite {@code reader-unsorted}; {@code -Dbench.unsorted.only=multi} runs only the
 * multi-file lookups (for profiles and before/after runs).
 */
final class UnsortedCase {

    static final String CASE = "unsorted";

    private static final String UNSORTED = "parquet-lookup-unsorted";
    private static final String SORTED = "parquet-lookup-sorted";
    private static final String MULTI = "parquet-lookup-unsorted-files";

    /** Files the multi-file variant scrambles the rows over. */
    private static final int FILES = Integer.getInteger("bench.unsorted.files", 10);

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    UnsortedCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        SeedLayout sortedLayout = SeedLayout.lookupDefault(options.rows());
        Path sorted = SeedDataset.get(report.out(), sortedLayout, log);
        Path indexes = report.out().resolve("unsorted-indexes");
        if ("multi".equals(System.getProperty("bench.unsorted.only"))) {
            multiFile(sortedLayout, sorted, indexes.resolve("multi"));
            return;
        }
        Path unsorted = SeedDataset.get(report.out(), sortedLayout.withSorted(false), log);
        report.conditions(
                ReaderSuite.SUITE,
                "case="
                        + CASE
                        + " unsorted="
                        + sortedLayout.withSorted(false).describe()
                        + " (parquet-java, rows in a fixed scrambled order) sorted="
                        + sortedLayout.describe()
                        + " unsorted-files=index, a fresh index directory per build");
        build(unsorted, indexes);
        bytesPerKeyType(indexes);
        lookups(sorted, unsorted, indexes.resolve("lookups"));
        multiFile(sortedLayout, sorted, indexes.resolve("multi"));
    }

    /**
     * The seed rows scrambled over {@link #FILES} files, one table, against the sorted file: p50,
     * lookups/s and CPU per lookup (of the measuring thread) on the same keys, one thread. The
     * indexes are built before the clock starts (the warm-up's first lookups wait for them).
     */
    private void multiFile(SeedLayout sortedLayout, Path sorted, Path dir) throws Exception {
        Path split = SeedDataset.split(report.out(), sortedLayout.withSorted(false), FILES, log);
        delete(dir);
        List<CpuCounting> systems = new ArrayList<>();
        try {
            systems.add(
                    new CpuCounting(
                            new EngineSystem(config(split, List.of("k"), dir), false), MULTI));
            systems.add(
                    new CpuCounting(
                            new EngineSystem(config(sorted, List.of("k"), dir), false), SORTED));
            for (LookupSystem s : systems) {
                s.session().lookup(1L); // waits for the indexes of the files
                report.note(
                        "case="
                                + CASE
                                + "-files"
                                + FILES
                                + " system="
                                + s.name()
                                + " config=\""
                                + s.config()
                                + "\"");
            }
            String name = CASE + "-files" + FILES + "-" + KeyMix.UNIFORM.label();
            double load = loadAverage();
            for (CpuCounting s : systems) {
                s.reset();
            }
            CaseRunner.measureOneThread(
                    ReaderSuite.SUITE, name, KeyMix.UNIFORM, List.copyOf(systems), options, report);
            for (CpuCounting s : systems) {
                report.note(
                        String.format(
                                Locale.ROOT,
                                "case=%s system=%s files=%d cpu_us_per_lookup=%.2f (of the"
                                        + " measuring thread, warm-up and repetitions) load=%.2f-%.2f",
                                name,
                                s.name(),
                                s == systems.get(0) ? FILES : 1,
                                s.cpuMicrosPerLookup(),
                                load,
                                loadAverage()));
            }
            report.ratio(ReaderSuite.SUITE, name, 1, MULTI, List.of(SORTED));
            report.ratios(
                    ReaderSuite.SUITE,
                    name,
                    1,
                    Map.of(
                            "cpu_per_lookup_" + MULTI + "/" + SORTED,
                            systems.get(0).cpuMicrosPerLookup()
                                    / systems.get(1).cpuMicrosPerLookup()));
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
            delete(dir);
        }
    }

    /**
     * A system renamed, counting the CPU time of the threads that look up through it: read every
     * 64th lookup of a session (a CPU-time read costs about a microsecond), so the count covers
     * whole blocks of 64 lookups.
     */
    static final class CpuCounting extends LookupSystem.Renamed {
        private static final int EVERY = 64;
        private final AtomicLong cpuNanos = new AtomicLong();
        private final AtomicLong lookups = new AtomicLong();

        CpuCounting(LookupSystem inner, String name) {
            super(inner, name);
        }

        void reset() {
            cpuNanos.set(0);
            lookups.set(0);
        }

        /** NaN (printed NA) before a whole block of lookups was counted. */
        double cpuMicrosPerLookup() {
            return lookups.get() == 0 ? Double.NaN : cpuNanos.get() / 1e3 / lookups.get();
        }

        @Override
        public Session session() throws Exception {
            Session session = inner.session();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            return new Session() {
                private long start = -1;
                private int n;

                @Override
                public String lookup(long k) throws Exception {
                    if (start < 0) {
                        start = threads.getCurrentThreadCpuTime();
                    }
                    String v = session.lookup(k);
                    if (++n == EVERY) {
                        long now = threads.getCurrentThreadCpuTime();
                        cpuNanos.addAndGet(now - start);
                        lookups.addAndGet(n);
                        start = now;
                        n = 0;
                    }
                    return v;
                }

                @Override
                public void close() throws Exception {
                    session.close();
                }
            };
        }
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /**
     * The index build of the unsorted seed file, four times, each into a fresh directory: the first
     * in this JVM (its code not compiled yet, as in a fresh TaskManager) reported on its own, the
     * median of the other three as the steady rate.
     */
    private void build(Path unsorted, Path indexes) throws Exception {
        List<double[]> runs = new ArrayList<>(); // keys per CPU-second, wall seconds, bytes
        for (int rep = 0; rep < 4; rep++) {
            Path dir = indexes.resolve("build-" + rep);
            delete(dir);
            KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
            long cpu = indexThreadsCpu();
            long own = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            long wall = System.nanoTime();
            try (DimensionTable table = DimensionTable.open(config(unsorted, List.of("k"), dir))) {
                // A lookup into a file waits for (or builds) its index.
                table.lookup(table.plan(List.of("k"), List.of("v")), new Object[] {1L});
                wall = System.nanoTime() - wall;
                cpu =
                        indexThreadsCpu()
                                - cpu
                                + ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime()
                                - own;
            }
            KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
            if (after.filesIndexed() - before.filesIndexed() != 1) {
                throw new IllegalStateException(
                        "expected one index build, saw "
                                + (after.filesIndexed() - before.filesIndexed()));
            }
            runs.add(
                    new double[] {
                        options.rows() / (cpu / 1e9),
                        wall / 1e9,
                        after.indexBytes() - before.indexBytes()
                    });
            delete(dir);
        }
        double[] first = runs.remove(0);
        runs.sort(Comparator.comparingDouble(r -> r[0]));
        double[] median = runs.get(1);
        report.note(
                String.format(
                        Locale.ROOT,
                        "case=%s-index-build key=BIGINT rows=%d keys_per_cpu_s=%.0f (min %.0f, max"
                                + " %.0f; CPU of the index builder threads and of the opening"
                                + " thread) first_build_keys_per_cpu_s=%.0f wall_s=%.2f"
                                + " index_bytes=%d bytes_per_row=%.2f load=%s",
                        CASE,
                        options.rows(),
                        median[0],
                        runs.get(0)[0],
                        runs.get(2)[0],
                        first[0],
                        median[1],
                        (long) median[2],
                        median[2] / options.rows(),
                        load()));
    }

    /** Index bytes per row for BIGINT, INT, STRING and composite keys of one generated file. */
    private void bytesPerKeyType(Path indexes) throws Exception {
        long rows = Math.min(options.rows(), 1_000_000L);
        Path file = indexes.resolve("key-types-" + rows + ".parquet");
        writeKeyTypes(file, rows);
        Map<String, List<String>> keys =
                Map.of(
                        "BIGINT", List.of("k"),
                        "INT", List.of("i"),
                        "STRING", List.of("s"),
                        "STRING+INT", List.of("s", "i"));
        for (String type : List.of("BIGINT", "INT", "STRING", "STRING+INT")) {
            List<String> key = keys.get(type);
            Path dir = indexes.resolve("types-" + type.replace('+', '-'));
            delete(dir);
            KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
            try (DimensionTable table = DimensionTable.open(config(file, key, dir))) {
                Object[] value =
                        key.size() == 1
                                ? new Object[] {probe(key.get(0))}
                                : new Object[] {probe(key.get(0)), probe(key.get(1))};
                table.lookup(table.plan(key, List.of("k")), value);
            }
            long bytes = KeyIndexes.shared().statistics().indexBytes() - before.indexBytes();
            report.note(
                    String.format(
                            Locale.ROOT,
                            "case=%s-index-bytes key=%s rows=%d index_bytes=%d bytes_per_row=%.2f",
                            CASE,
                            type,
                            rows,
                            bytes,
                            (double) bytes / rows));
            delete(dir);
        }
    }

    private static Object probe(String column) {
        return switch (column) {
            case "i" -> 7;
            case "k" -> 7L;
            default -> "key-7";
        };
    }

    /** Columns i INT, k BIGINT, s STRING of one key each, rows in a scrambled order. */
    private static void writeKeyTypes(Path file, long rows) throws IOException {
        if (Files.exists(file)) {
            return;
        }
        Files.createDirectories(file.getParent());
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        "message m { required int32 i; required int64 k; required binary s"
                                + " (STRING); }");
        Path tmp = file.resolveSibling(".tmp-" + file.getFileName());
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        Scramble scramble = new Scramble(rows);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(tmp))
                        .withType(schema)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(CompressionCodecName.LZ4_RAW)
                        .withRowGroupRowCountLimit(131_072)
                        .withPageRowCountLimit(1_024)
                        .build()) {
            for (long r = 0; r < rows; r++) {
                long k = scramble.apply(r) + 1;
                writer.write(
                        groups.newGroup()
                                .append("i", (int) k)
                                .append("k", k)
                                .append("s", "key-" + k));
            }
        }
        Files.move(tmp, file);
    }

    /** Lookup p50 and lookups/s: the unsorted file through its index against the sorted file. */
    private void lookups(Path sorted, Path unsorted, Path dir) throws Exception {
        delete(dir);
        List<LookupSystem> systems = new ArrayList<>();
        try {
            systems.add(
                    new LookupSystem.Renamed(
                            new EngineSystem(config(unsorted, List.of("k"), dir), false),
                            UNSORTED));
            systems.add(
                    new LookupSystem.Renamed(
                            new EngineSystem(config(sorted, List.of("k"), dir), false), SORTED));
            for (LookupSystem s : systems) {
                report.note(
                        "case=" + CASE + " system=" + s.name() + " config=\"" + s.config() + "\"");
            }
            String name = CASE + "-" + KeyMix.UNIFORM.label();
            CaseRunner.measureOneThread(
                    ReaderSuite.SUITE, name, KeyMix.UNIFORM, systems, options, report);
            report.ratio(ReaderSuite.SUITE, name, 1, UNSORTED, List.of(SORTED));
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
            delete(dir);
        }
    }

    private static TableConfig config(Path file, List<String> key, Path indexDirectory) {
        return TableConfig.builder(file.toAbsolutePath().toString())
                .sortKey(key)
                .metadataCache(new MetadataCache(EngineSystem.METADATA_CACHE_BYTES))
                .indexDirectory(indexDirectory)
                .build();
    }

    /** CPU time of the engine's index builder threads so far. */
    static long indexThreadsCpu() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("parquet-lookup-index-")) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private static String load() {
        return String.format(
                Locale.ROOT,
                "%.2f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
