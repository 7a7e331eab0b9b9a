package dev.parquetlookup.bench;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The {@code objectstore} suite's opening case (also alone: {@code benchmarks.jar objectstore-open
 * [--quick]}): what opening a table costs on S3 (S3Proxy on loopback behind the {@link
 * LatencyProxy}, first byte held D ms), now that a file's page index is read row group by row group
 * on first use.
 *
 * <ul>
 *   <li>(a) 1,000 small files (1,000 rows each, the writer's defaults): GETs per file and time to
 *       open, the page index read at open ("eager", the metadata reads opening did before: footer
 *       tail, then the index region when the tail did not hold it) against the engine's open now
 *       ("lazy": the footer tail only), at each D, in the same run;
 *   <li>(b) the first lookup's time and GETs after the open (open + first lookup = the first
 *       enriched row's share of the engine), and a lookup into a second, cold file;
 *   <li>(c) one file whose decoded page index weighs 4x {@code metadata-cache.max-bytes}: random
 *       lookups, checked, with the bound and without; index reads, GETs and time per lookup.
 * </ul>
 *
 * <p>Printed as {@code NOTE open-scale ...} lines with the load average.
 */
final class OpenScaleCase {

    private static final String BUCKET = "openscale";

    /** Threads of the "eager index (before)" baseline, as the engine opened files before. */
    private static final int OPEN_THREADS = 16;

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    OpenScaleCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        // Below 1M rows (a smoke run) the case shrinks with --rows: rows/1,000 small files, a big
        // file of --rows rows; the same lines, in seconds instead of minutes.
        boolean smoke = options.rows() < 1_000_000;
        int files = smoke ? (int) Math.max(10, options.rows() / 1_000) : 1_000;
        int rowsPerFile = 1_000;
        int bigRows =
                smoke
                        ? (int) Math.max(options.rows(), 10_000)
                        : options.quick() ? 400_000 : 2_000_000;
        Path dir = report.out().resolve("open-scale");
        Path small = dir.resolve("small");
        Path big = dir.resolve("big");
        OpenScaleData.writeSmall(small, files, rowsPerFile);
        OpenScaleData.writeBig(big, bigRows);
        List<Integer> delays =
                options.delaysMillis().isEmpty() ? List.of(0, 20) : options.delaysMillis();
        Path lib = S3ProxyServer.libDirBeside(OpenScaleCase.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, report.out())) {
            server.start();
            server.createBucket(BUCKET);
            long t0 = System.nanoTime();
            OpenScaleData.upload(server.hadoopOptions(), small, "s3a://" + BUCKET + "/small/");
            OpenScaleData.upload(server.hadoopOptions(), big, "s3a://" + BUCKET + "/big/");
            note(
                    "config files=%d rows_per_file=%d big_rows=%d uploaded_in_s=%.1f load=%s",
                    files,
                    rowsPerFile,
                    bigRows,
                    (System.nanoTime() - t0) / 1e9,
                    ObjectStoreSuite.loadAverage());
            try (LatencyProxy proxy = LatencyProxy.start(server.port(), Duration.ZERO)) {
                Map<String, String> hadoop = new LinkedHashMap<>(server.hadoopOptions());
                hadoop.put("fs.s3a.endpoint", proxy.endpoint());
                // Warm-up of both JVMs (not recorded).
                proxy.setDelay(Duration.ZERO);
                openLazy(hadoop, proxy, "s3a://" + BUCKET + "/small/", files, rowsPerFile, -1);
                for (int d : delays) {
                    proxy.setDelay(Duration.ofMillis(d));
                    openEager(hadoop, proxy, "s3a://" + BUCKET + "/small/", "small", d);
                    openLazy(hadoop, proxy, "s3a://" + BUCKET + "/small/", files, rowsPerFile, d);
                }
                // -Dopen-scale.small-only=true: the 1,000 files only, (c) skipped.
                for (int d :
                        Boolean.getBoolean("open-scale.small-only") ? List.<Integer>of() : delays) {
                    proxy.setDelay(Duration.ofMillis(d));
                    bigIndex(hadoop, proxy, "s3a://" + BUCKET + "/big/", bigRows, d);
                }
            }
        }
    }

    private void note(String format, Object... args) {
        String line = "open-scale " + String.format(Locale.ROOT, format, args);
        log.println("NOTE " + line);
        report.note(line);
    }

    private void openEager(
            Map<String, String> hadoop, LatencyProxy proxy, String path, String table, int d)
            throws Exception {
        HadoopFileStore store = HadoopFileStore.create(hadoop);
        proxy.resetStats();
        long t0 = System.nanoTime();
        List<FileId> ids = store.list(path);
        long listed = proxy.stats().requests();
        long listingGets = proxy.stats().gets(); // a LIST is a GET too
        ExecutorService pool = Executors.newFixedThreadPool(OPEN_THREADS);
        try {
            List<Future<FileMetadata>> reads = new ArrayList<>();
            for (FileId id : ids) {
                reads.add(
                        pool.submit(
                                () -> {
                                    try (RangeSource source = store.open(id)) {
                                        return MetadataReader.read(
                                                source, List.of("k"), PageIndexOptions.OWN);
                                    }
                                }));
            }
            for (Future<FileMetadata> f : reads) {
                f.get();
            }
        } finally {
            pool.shutdown();
            store.close();
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        LatencyProxy.Stats s = proxy.stats();
        note(
                "a table=%s d_ms=%d mode=eager_index(before,16_threads) files=%d open_ms=%.0f"
                        + " gets_per_file=%.2f listing_requests=%d load=%s",
                table,
                d,
                ids.size(),
                ms,
                (s.gets() - listingGets) / (double) ids.size(),
                listed,
                ObjectStoreSuite.loadAverage());
    }

    /** GETs of listing {@code path} (S3's LIST is a GET), to take out of an open's count. */
    private static long listingGets(Map<String, String> hadoop, LatencyProxy proxy, String path)
            throws IOException {
        proxy.resetStats();
        try (HadoopFileStore store = HadoopFileStore.create(hadoop)) {
            store.list(path);
        }
        return proxy.stats().gets();
    }

    /** The engine's open now, then its first lookups. */
    private void openLazy(
            Map<String, String> hadoop,
            LatencyProxy proxy,
            String path,
            int files,
            int rowsPerFile,
            int d)
            throws Exception {
        HadoopFileStore store = HadoopFileStore.create(hadoop);
        long listingGets = listingGets(hadoop, proxy, path);
        proxy.resetStats();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        TableConfig config =
                TableConfig.builder(path)
                        .metadataCache(new MetadataCache(MetadataCache.DEFAULT_MAX_BYTES))
                        .pageCache(null)
                        .build();
        try (store;
                DimensionTable table = DimensionTable.open(config, store)) {
            double openMs = (System.nanoTime() - t0) / 1e6;
            // This JVM's CPU while opening (the latency proxy's threads included, S3Proxy not):
            // robust to a loaded machine where wall time is not.
            double openCpuMs = (processCpuNanos() - cpu0) / 1e6;
            LatencyProxy.Stats opened = proxy.stats();
            int n = table.files().size();
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            long key = (long) (files / 2) * rowsPerFile + 17;
            long l0 = System.nanoTime();
            check(key, table.lookup(plan, new Object[] {key}));
            double firstMs = (System.nanoTime() - l0) / 1e6;
            long firstGets = proxy.stats().gets() - opened.gets();
            long key2 = (long) (files / 3) * rowsPerFile + 5;
            long l1 = System.nanoTime();
            check(key2, table.lookup(plan, new Object[] {key2}));
            double secondMs = (System.nanoTime() - l1) / 1e6;
            long key3 = key2 + 1; // same row group, index at hand
            long beforeThird = proxy.stats().gets();
            long l2 = System.nanoTime();
            check(key3, table.lookup(plan, new Object[] {key3}));
            double thirdMs = (System.nanoTime() - l2) / 1e6;
            if (d < 0) {
                return; // warm-up
            }
            note(
                    "a table=small d_ms=%d mode=lazy_index(after) files=%d open_ms=%.0f"
                            + " open_cpu_ms=%.0f gets_per_file=%.2f max_in_flight=%d load=%s",
                    d,
                    n,
                    openMs,
                    openCpuMs,
                    opened.gets() / (double) n,
                    opened.maxInFlight(),
                    ObjectStoreSuite.loadAverage());
            note(
                    "b d_ms=%d first_lookup_ms=%.1f first_lookup_gets=%d open_plus_first_ms=%.0f"
                            + " cold_file_lookup_ms=%.1f same_row_group_lookup_ms=%.1f"
                            + " same_row_group_gets=%d",
                    d,
                    firstMs,
                    firstGets,
                    openMs + firstMs,
                    secondMs,
                    thirdMs,
                    proxy.stats().gets() - beforeThird);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void check(long key, List<Object[]> rows) {
        if (rows.size() != 1
                || !new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8)
                        .equals("v-" + key)) {
            throw new IllegalStateException("open-scale: wrong answer for key " + key);
        }
    }

    /**
     * (c): the decoded page index of the big file weighed with a large cache, then random lookups
     * with a cache of a quarter of that and with the large one.
     */
    private void bigIndex(
            Map<String, String> hadoop, LatencyProxy proxy, String path, int rows, int d)
            throws Exception {
        HadoopFileStore store = HadoopFileStore.create(hadoop);
        MetadataCache large = new MetadataCache(1L << 30);
        long indexBytes;
        int rowGroups;
        try (DimensionTable table =
                DimensionTable.open(
                        TableConfig.builder(path).metadataCache(large).pageCache(null).build(),
                        store)) {
            long footer = large.stats().bytes();
            RowGroupIndexes rgs = table.fileMetadata().get(0).rowGroupIndexes();
            if (rgs == null) {
                throw new IllegalStateException("open-scale: the big file is not read lazily");
            }
            rowGroups = rgs.size();
            for (int r = 0; r < rowGroups; r++) {
                rgs.get(r);
            }
            indexBytes = large.stats().bytes() - footer;
        }
        openEager(hadoop, proxy, path, "big", d);
        long listingGets = listingGets(hadoop, proxy, path);
        proxy.resetStats();
        long o0 = System.nanoTime();
        try (DimensionTable table =
                DimensionTable.open(
                        TableConfig.builder(path)
                                .metadataCache(new MetadataCache(1L << 30))
                                .pageCache(null)
                                .build(),
                        HadoopFileStore.create(hadoop))) {
            note(
                    "a table=big d_ms=%d mode=lazy_index(after) files=1 open_ms=%.0f"
                            + " gets_per_file=%d load=%s",
                    d,
                    (System.nanoTime() - o0) / 1e6,
                    proxy.stats().gets() - listingGets,
                    ObjectStoreSuite.loadAverage());
        }
        evictionVariants(hadoop, proxy, path, rows, d, indexBytes, rowGroups);
    }

    /**
     * Lookups with a metadata cache of a quarter of the index (with and without collections every
     * 10 lookups) and with a large one: index reads and GETs per lookup.
     */
    private void evictionVariants(
            Map<String, String> hadoop,
            LatencyProxy proxy,
            String path,
            int rows,
            int d,
            long indexBytes,
            int rowGroups)
            throws Exception {
        long bound = Math.max(1, indexBytes / 4);
        int lookups = options.rows() < 1_000_000 ? 50 : options.quick() ? 300 : 1_000;
        // With the bound, evicted indexes still in use stay reachable (weak references) until a
        // collection: "gc" collects every 10 lookups, the worst case of a busy heap.
        for (String variant : new String[] {"index/4", "index/4+gc", "large"}) {
            long cacheBytes = variant.equals("large") ? 1L << 30 : bound;
            boolean gc = variant.endsWith("+gc");
            MetadataCache cache = new MetadataCache(cacheBytes);
            try (DimensionTable table =
                    DimensionTable.open(
                            TableConfig.builder(path).metadataCache(cache).pageCache(null).build(),
                            HadoopFileStore.create(hadoop))) {
                LookupPlan plan = table.plan(List.of("k"), List.of("v"));
                RowGroupIndexes rgs = table.fileMetadata().get(0).rowGroupIndexes();
                Random random = new Random(42);
                proxy.resetStats();
                long t0 = System.nanoTime();
                for (int i = 0; i < lookups; i++) {
                    long key = random.nextInt(rows);
                    check(key, table.lookup(plan, new Object[] {key}));
                    if (gc && i % 10 == 9) {
                        System.gc();
                    }
                }
                double ms = (System.nanoTime() - t0) / 1e6;
                LatencyProxy.Stats s = proxy.stats();
                MetadataCache.Stats cs = cache.stats();
                note(
                        "c d_ms=%d index_bytes=%d row_groups=%d cache_bytes=%d (%s) lookups=%d"
                                + " index_reads=%d index_reads_per_lookup=%.2f gets_per_lookup=%.2f"
                                + " ms_per_lookup=%.2f evictions=%d errors=0 load=%s",
                        d,
                        indexBytes,
                        rowGroups,
                        cacheBytes,
                        variant,
                        lookups,
                        rgs.reads(),
                        rgs.reads() / (double) lookups,
                        s.gets() / (double) lookups,
                        ms / lookups,
                        cs.evictions(),
                        ObjectStoreSuite.loadAverage());
            }
        }
    }
}
