package dev.parquetlookup.bench;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.index.TableFilter;
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

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
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
 *       p50, lookups/s and CPU per lookup of the measuring thread, and a RATIO line;
 *   <li>for both lookup variants, what each open table holds ({@link Footprint}): the heap it
 *       retains once its indexes are built ({@code heap_mb} of its RESULT line) and its index files
 *       on local disk, memory-mapped (off the heap, in the OS page cache), with the pages of those
 *       mappings resident after the measured lookups (a NOTE line).
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

    /**
     * Uniform lookups a table makes before its heap is measured: enough to read the page index of
     * every row group (as the measured lookups do), so that both tables hold their metadata.
     */
    private static final int FOOTPRINT_LOOKUPS = 20_000;

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
        // The engine's shared state and this thread's scratch buffers exist before any footprint
        // is measured (when this variant runs alone, nothing opened a table before).
        try (EngineSystem warm = new EngineSystem(config(sorted, List.of("k"), dir), false)) {
            warm.session().lookup(1L);
        }
        List<CpuCounting> systems = new ArrayList<>();
        Map<String, Footprint> footprints = new LinkedHashMap<>();
        try {
            openMeasured(
                    systems,
                    footprints,
                    () ->
                            new CpuCounting(
                                    new EngineSystem(config(split, List.of("k"), dir), false),
                                    MULTI),
                    dir);
            openMeasured(
                    systems,
                    footprints,
                    () ->
                            new CpuCounting(
                                    new EngineSystem(config(sorted, List.of("k"), dir), false),
                                    SORTED),
                    null);
            for (LookupSystem s : systems) {
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
                    ReaderSuite.SUITE,
                    name,
                    KeyMix.UNIFORM,
                    List.copyOf(systems),
                    options,
                    report,
                    heapBytes(footprints),
                    fields(footprints));
            noteFootprints(name, FILES, footprints, MULTI, dir);
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
        Map<String, Footprint> footprints = new LinkedHashMap<>();
        try {
            openMeasured(
                    systems,
                    footprints,
                    () ->
                            new LookupSystem.Renamed(
                                    new EngineSystem(config(unsorted, List.of("k"), dir), false),
                                    UNSORTED),
                    dir);
            openMeasured(
                    systems,
                    footprints,
                    () ->
                            new LookupSystem.Renamed(
                                    new EngineSystem(config(sorted, List.of("k"), dir), false),
                                    SORTED),
                    null);
            for (LookupSystem s : systems) {
                report.note(
                        "case=" + CASE + " system=" + s.name() + " config=\"" + s.config() + "\"");
            }
            String name = CASE + "-" + KeyMix.UNIFORM.label();
            CaseRunner.measureOneThread(
                    ReaderSuite.SUITE,
                    name,
                    KeyMix.UNIFORM,
                    systems,
                    options,
                    report,
                    heapBytes(footprints),
                    fields(footprints));
            noteFootprints(name, 1, footprints, UNSORTED, dir);
            report.ratio(ReaderSuite.SUITE, name, 1, UNSORTED, List.of(SORTED));
        } finally {
            for (LookupSystem system : systems) {
                system.close();
            }
            delete(dir);
        }
    }

    /**
     * What one open table holds besides its lookups.
     *
     * @param heapBytes heap it retains once open, its key indexes built and {@link
     *     #FOOTPRINT_LOOKUPS} lookups made: used heap after full collections, less the same before
     *     it opened. For an unsorted file: the metadata, and per index its code filter (about 1
     *     byte per row) and directory (at most 1 MiB); for several files also their table filter
     * @param indexBytes bytes of the index files it built on local disk (0 for a sorted file):
     *     memory-mapped, so off the heap, in the OS page cache
     */
    record Footprint(long heapBytes, long indexBytes) {}

    /** Opens a system, as a case's lambda does. */
    private interface Opener<S extends LookupSystem> {
        S open() throws Exception;
    }

    /**
     * Opens a system into {@code systems} and records its {@link Footprint}: a sweep of uniform
     * keys asks every file (each lookup waits for the key indexes of the files whose key range
     * holds its key) and reads every row group's page index, a table filter queued by then is
     * waited for, then the heap is measured.
     *
     * @param indexDirectory where the system's index files are, or null for a sorted file
     */
    private <S extends LookupSystem> void openMeasured(
            List<S> systems,
            Map<String, Footprint> footprints,
            Opener<S> opener,
            @Nullable Path indexDirectory)
            throws Exception {
        long before = Heap.usedAfterGc();
        S system = opener.open();
        systems.add(system);
        try (LookupSystem.Session session = system.session()) {
            session.lookup(1L);
            for (long k : KeyMix.UNIFORM.keys(options.rows(), FOOTPRINT_LOOKUPS, 2)) {
                session.lookup(k);
            }
        }
        // A table of several unsorted files builds its table filter on this one thread once
        // their indexes are built: a task queued behind it runs when it is done.
        CompletableFuture.runAsync(() -> {}, TableFilter.BUILDER).join();
        long heap = Math.max(0, Heap.usedAfterGc() - before);
        footprints.put(
                system.name(),
                new Footprint(heap, indexDirectory == null ? 0 : indexFileBytes(indexDirectory)));
    }

    private static Map<String, Long> heapBytes(Map<String, Footprint> footprints) {
        Map<String, Long> heap = new LinkedHashMap<>();
        footprints.forEach((name, f) -> heap.put(name, f.heapBytes()));
        return heap;
    }

    /** The RESULT lines' own fields: heap in bytes (heap_mb is whole MB) and index bytes. */
    private static Map<String, Map<String, String>> fields(Map<String, Footprint> footprints) {
        Map<String, Map<String, String>> fields = new LinkedHashMap<>();
        footprints.forEach(
                (name, f) -> {
                    Map<String, String> own = new LinkedHashMap<>();
                    own.put("heap_bytes", Long.toString(f.heapBytes()));
                    own.put("index_bytes", Long.toString(f.indexBytes()));
                    fields.put(name, own);
                });
        return fields;
    }

    /**
     * One NOTE line of what the unsorted table ({@code unsorted}) and the sorted file hold: heap
     * per table and per row, the index files, and how much of their mappings is resident in this
     * process after the measured lookups.
     */
    private void noteFootprints(
            String caseName,
            int files,
            Map<String, Footprint> footprints,
            String unsorted,
            Path indexDirectory)
            throws IOException {
        Footprint u = footprints.get(unsorted);
        Footprint s = footprints.get(SORTED);
        long rows = options.rows();
        long[] mapped = MappedIndexes.of(indexDirectory);
        report.note(
                String.format(
                        Locale.ROOT,
                        "case=%s memory rows=%d files=%d heap_mb %s=%.2f %s=%.2f"
                                + " heap_bytes_per_row %s=%.2f %s=%.2f (used heap after full"
                                + " collections with the table open, its indexes built and %d"
                                + " lookups made, less before it opened) index_mb=%.2f"
                                + " index_bytes_per_row=%.2f (on local disk, memory-mapped: off"
                                + " the heap) mapped_mb=%s resident_mb=%s (of the index mappings"
                                + " after the measured lookups, /proc/self/smaps) load=%s",
                        caseName,
                        rows,
                        files,
                        unsorted,
                        u.heapBytes() / 1048576.0,
                        SORTED,
                        s.heapBytes() / 1048576.0,
                        unsorted,
                        (double) u.heapBytes() / rows,
                        SORTED,
                        (double) s.heapBytes() / rows,
                        FOOTPRINT_LOOKUPS,
                        u.indexBytes() / 1048576.0,
                        (double) u.indexBytes() / rows,
                        mapped == null ? "NA" : ResultRow.fmt2(mapped[0] / 1048576.0),
                        mapped == null ? "NA" : ResultRow.fmt2(mapped[1] / 1048576.0),
                        load()));
    }

    /** Bytes of the index files ({@code .pli}) below {@code dir}. */
    static long indexFileBytes(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return 0;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            long sum = 0;
            for (Path p : walk.toList()) {
                if (Files.isRegularFile(p) && p.getFileName().toString().endsWith(".pli")) {
                    sum += Files.size(p);
                }
            }
            return sum;
        }
    }

    /** This process's memory mappings of the index files below a directory (Linux only). */
    static final class MappedIndexes {
        private static final Path SMAPS = Path.of("/proc/self/smaps");

        /** The start of a mapping's first line: its address range. */
        private static final Pattern HEADER = Pattern.compile("[0-9a-f]+-[0-9a-f]+\\s");

        private MappedIndexes() {}

        /**
         * The mapped bytes and the resident bytes of every mapping of a {@code .pli} file below
         * {@code dir}, or null where {@code /proc/self/smaps} cannot be read.
         */
        @Nullable
        static long[] of(Path dir) throws IOException {
            if (!Files.isReadable(SMAPS) || !Files.exists(dir)) {
                return null;
            }
            return parse(Files.readAllLines(SMAPS), dir.toRealPath().toString() + "/");
        }

        /**
         * Sums the {@code Size} and {@code Rss} (kB) of the mappings whose path starts with {@code
         * prefix} and ends in {@code .pli}. A mapping starts with a line {@code
         * 7f1c2a000000-7f1c2f000000 r--s 00000000 08:01 1234 /path/f.pli}, then lines such as
         * {@code Rss: 4096 kB}.
         */
        static long[] parse(List<String> smaps, String prefix) {
            long size = 0;
            long rss = 0;
            boolean counted = false;
            for (String line : smaps) {
                if (HEADER.matcher(line).lookingAt()) {
                    String[] parts = line.trim().split("\\s+", 6);
                    String path = parts.length == 6 ? parts[5] : "";
                    counted = path.startsWith(prefix) && path.endsWith(".pli");
                } else if (counted && line.startsWith("Size:")) {
                    size += kilobytes(line);
                } else if (counted && line.startsWith("Rss:")) {
                    rss += kilobytes(line);
                }
            }
            return new long[] {size, rss};
        }

        private static long kilobytes(String line) {
            String[] parts = line.trim().split("\\s+");
            return Long.parseLong(parts[1]) * 1024;
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
