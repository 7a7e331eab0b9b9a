package dev.parquetlookup.bench;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code pageindex} suite's object-storage case: this engine's point lookups on the seed file
 * served by S3Proxy on loopback ({@code s3a://}, S3A's classic input stream: the fallback read
 * path, {@code parquet-lookup.s3.async-reads} = {@code false}), against the same lookups on the
 * same file on the local disk. Requests are counted through S3A's own statistics (the streams' and
 * the file systems' {@code IOStatistics}: GET, HEAD, LIST, bytes discarded between coalesced
 * ranges) and bytes through our counting {@code RangeSource}.
 *
 * <p>What the issue asks of object storage, checked here (a violation fails the run, like a
 * fingerprint mismatch): opening a file costs at most two GETs (the footer's tail, and a second
 * only for a footer larger than the tail: page indexes are read on the first lookup into a row
 * group) and no HEAD; after warm-up a lookup issues at most one GET per page range it needs
 * (adjacent ranges coalesced, the ranges of one lookup fetched in parallel) and no HEAD.
 *
 * <p>One thread, page cache off, each system with its own metadata cache (so the S3 open really
 * reads the tail). Both systems answer the same keys, in the same order, every repetition.
 */
final class S3LookupCase {

    static final String CASE = "s3-uniform";
    static final String LOCAL = "parquet-lookup-localfile";
    static final String S3 = "parquet-lookup-s3";

    private static final String BUCKET = "bench";

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    S3LookupCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /** One system's repetition: latencies of the same keys, and request counts (S3). */
    private record Rep(long[] sortedNanos, long totalNanos, long answersSum, Counts counts) {
        double opsPerSec() {
            return sortedNanos.length * 1e9 / Math.max(1, totalNanos);
        }

        double percentileMicros(double p) {
            int i =
                    (int)
                            Math.min(
                                    sortedNanos.length - 1,
                                    Math.round(p * (sortedNanos.length - 1)));
            return sortedNanos[i] / 1e3;
        }
    }

    /** Requests and bytes over the lookups of one repetition. */
    private record Counts(
            long pageRanges,
            long pageBytes,
            long gets,
            long maxGetsPerLookup,
            long heads,
            long discardedBytes) {}

    void run() throws Exception {
        SeedLayout layout = SeedLayout.lookupDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        Path lib = S3ProxyServer.libDirBeside(S3LookupCase.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, report.out())) {
            long t0 = System.nanoTime();
            server.start();
            server.createBucket(BUCKET);
            Map<String, String> hadoop = new LinkedHashMap<>(server.hadoopOptions());
            // S3A's streams (the fallback read path), whose own statistics count the requests;
            // the S3 store's client is measured by the objectstore suite.
            hadoop.put("parquet-lookup.s3.async-reads", "false");
            String dir = "s3a://" + BUCKET + "/seed/";
            upload(hadoop, file, dir + file.getFileName());
            report.note(
                    String.format(
                            Locale.ROOT,
                            "config suite=pageindex case=%s S3Proxy_4.1.0(filesystem_backend,own_JVM)"
                                    + " on 127.0.0.1 started and loaded with %d bytes in %.1f s;"
                                    + " %s: s3a://%s/seed/ through hadoop-aws 3.5.0"
                                    + " (fs.s3a.input.stream.type=classic, vectored reads);"
                                    + " %s: the same file on the local disk (the engine's default: memory-mapped);"
                                    + " both: %s, one thread, page cache off, own metadata cache",
                            CASE,
                            Files.size(file),
                            (System.nanoTime() - t0) / 1e9,
                            S3,
                            BUCKET,
                            LOCAL,
                            layout.describe()));
            measure(hadoop, dir, file);
        }
    }

    static void upload(Map<String, String> hadoop, Path file, String target) throws IOException {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        // Buffered in memory, not on disk, and no copyFromLocalFile: both go through the JVM's
        // cached local file system cast to LocalFileSystem, which fails once another suite (the
        // reader suite's parquet-java peer) cached the raw one.
        conf.set("fs.s3a.fast.upload.buffer", "bytebuffer");
        try (FileSystem fs = FileSystem.newInstance(URI.create(target), conf);
                OutputStream out = fs.create(new org.apache.hadoop.fs.Path(target), true)) {
            Files.copy(file, out);
        }
    }

    private void measure(Map<String, String> hadoop, String dir, Path file) throws Exception {
        long rows = options.rows();
        S3CountingStore s3Store = new S3CountingStore(HadoopFileStore.create(hadoop));
        long openStart = System.nanoTime();
        try (DimensionTable s3 = DimensionTable.open(config(dir, hadoop), s3Store);
                DimensionTable local =
                        DimensionTable.open(config(file.toAbsolutePath().toString(), Map.of()))) {
            Map<String, String> openFields = checkOpen(s3, s3Store, System.nanoTime() - openStart);
            LookupPlan s3Plan = s3.plan(List.of("k"), List.of("v"));
            LookupPlan localPlan = local.plan(List.of("k"), List.of("v"));
            int n = warmUp(s3, s3Plan, local, localPlan);
            long[] keys = KeyMix.UNIFORM.keys(rows, n, 0x53L);
            long truth = 0;
            for (int i = 0; i < n; i++) {
                truth += Fingerprint.answer(i, keys[i], CaseRunner.truth(rows, keys[i]));
            }
            List<Rep> s3Reps = new ArrayList<>();
            List<Rep> localReps = new ArrayList<>();
            for (int rep = 0; rep < options.repetitions(); rep++) {
                if (rep % 2 == 0) {
                    s3Reps.add(repetition(s3, s3Plan, s3Store, keys));
                    localReps.add(repetition(local, localPlan, null, keys));
                } else {
                    localReps.add(repetition(local, localPlan, null, keys));
                    s3Reps.add(repetition(s3, s3Plan, s3Store, keys));
                }
            }
            output(s3Reps, localReps, truth, n, openFields);
        }
    }

    /** Fails the run if opening cost more than 2 GETs per file or any HEAD; the open's fields. */
    private static Map<String, String> checkOpen(
            DimensionTable s3, S3CountingStore s3Store, long s3OpenNanos) {
        int files = s3.files().size();
        long openGets = s3Store.gets();
        long openHeads = s3Store.heads() - s3Store.headsByListing;
        if (openGets > 2L * files || openHeads != 0) {
            throw new IllegalStateException(
                    String.format(
                            "suite=pageindex case=%s: opening %d file(s) on S3 cost %d GETs and"
                                    + " %d HEADs, expected at most 2 GETs per file (tail, then"
                                    + " a larger footer) and no HEAD",
                            CASE, files, openGets, openHeads));
        }
        Map<String, String> openFields = new LinkedHashMap<>();
        openFields.put("open_ms", ResultRow.fmt1(s3OpenNanos / 1e6));
        openFields.put(
                "open_gets_per_file", ResultRow.fmt2(openGets / (double) Math.max(1, files)));
        openFields.put("open_heads_per_file", Long.toString(openHeads / Math.max(1, files)));
        openFields.put("listing_heads", Long.toString(s3Store.headsByListing));
        openFields.put("listing_lists", Long.toString(s3Store.listsByListing));
        return openFields;
    }

    /**
     * Warm-up, not recorded: three times the usual one, as S3Proxy's JVM and the AWS SDK need far
     * more JIT warm-up than the engine (GET latencies still halve after the first thousand
     * requests). Returns the lookups per repetition, sized so that S3's takes about --run-ms.
     */
    private int warmUp(
            DimensionTable s3, LookupPlan s3Plan, DimensionTable local, LookupPlan localPlan)
            throws IOException {
        long[] warm = KeyMix.UNIFORM.keys(options.rows(), 100_000, 0xC0FFEEL);
        long warmNanos = 3 * options.warmupMillis() * 1_000_000L;
        int warmed = 0;
        long s3WarmStart = System.nanoTime();
        long secondHalfStart = 0;
        int secondHalfFrom = 0;
        while (warmed < 20 || (System.nanoTime() - s3WarmStart < warmNanos && warmed < 100_000)) {
            if (secondHalfStart == 0 && System.nanoTime() - s3WarmStart >= warmNanos / 2) {
                secondHalfStart = System.nanoTime();
                secondHalfFrom = warmed;
            }
            lookup(s3, s3Plan, warm[warmed++ % warm.length]);
        }
        // The pace of the warmer second half sizes the repetitions.
        long perS3Lookup =
                secondHalfStart == 0 || warmed == secondHalfFrom
                        ? (System.nanoTime() - s3WarmStart) / warmed
                        : (System.nanoTime() - secondHalfStart) / (warmed - secondHalfFrom);
        long localWarmStart = System.nanoTime();
        for (int i = 0; i < 20 || System.nanoTime() - localWarmStart < warmNanos; i++) {
            lookup(local, localPlan, warm[i % warm.length]);
        }
        return (int)
                Math.max(
                        20,
                        Math.min(
                                100_000,
                                options.runMillis() * 1_000_000L / Math.max(1, perS3Lookup)));
    }

    /** Checks every repetition's answers, then writes the rows and ratios. */
    private void output(
            List<Rep> s3Reps,
            List<Rep> localReps,
            long truth,
            int n,
            Map<String, String> openFields) {
        for (Map.Entry<String, List<Rep>> e : Map.of(S3, s3Reps, LOCAL, localReps).entrySet()) {
            for (Rep r : e.getValue()) {
                if (r.answersSum() != truth) {
                    throw new IllegalStateException(
                            String.format(
                                    "fingerprint mismatch in suite=pageindex case=%s: %s gave"
                                            + " %s, expected %s over %d keys",
                                    CASE,
                                    e.getKey(),
                                    Fingerprint.hex(r.answersSum()),
                                    Fingerprint.hex(truth),
                                    n));
                }
            }
        }
        report.note(
                String.format(
                        "fingerprint suite=pageindex case=%s threads=1 keys=%d %s agree=%s,%s",
                        CASE, n, Fingerprint.hex(truth), LOCAL, S3));
        Map<String, String> fingerprint = Map.of("fingerprint", Fingerprint.hex(truth));
        report.result(row(LOCAL, localReps, false, fingerprint));
        Map<String, String> s3Extra = new LinkedHashMap<>(openFields);
        s3Extra.putAll(fingerprint);
        report.result(row(S3, s3Reps, true, s3Extra));
        report.ratio(PageIndexSuite.SUITE, CASE, 1, LOCAL, List.of(S3));
        ResultRow s3Row = report.find(PageIndexSuite.SUITE, S3, CASE, 1);
        ResultRow localRow = report.find(PageIndexSuite.SUITE, LOCAL, CASE, 1);
        report.ratioLine(
                PageIndexSuite.SUITE,
                CASE,
                1,
                S3 + "/" + LOCAL + "_p50_latency",
                s3Row.p50Micros() / Math.max(0.001, localRow.p50Micros()));
    }

    private static TableConfig config(String path, Map<String, String> hadoop) {
        return TableConfig.builder(path)
                .sortKey(List.of("k"))
                .hadoopOptions(hadoop)
                .metadataCache(new MetadataCache(EngineSystem.METADATA_CACHE_BYTES))
                .build();
    }

    private static String lookup(DimensionTable table, LookupPlan plan, long k) throws IOException {
        String found = null;
        for (Object[] row : table.lookup(plan, new Object[] {k})) {
            found = new String((byte[]) row[0], StandardCharsets.UTF_8);
        }
        return found;
    }

    /** The keys in order on one system; with {@code store}, S3 requests per lookup. */
    private static Rep repetition(
            DimensionTable table, LookupPlan plan, S3CountingStore store, long[] keys)
            throws IOException {
        long[] nanos = new long[keys.length];
        long sum = 0;
        long pageRanges0 = table.readStatistics().readRequests();
        long pageBytes0 = table.readStatistics().bytesRead();
        long heads0 = store == null ? 0 : store.heads();
        long discarded0 = store == null ? 0 : store.discardedBytes();
        long gets = 0;
        long maxGets = 0;
        long total = 0;
        for (int i = 0; i < keys.length; i++) {
            long getsBefore = store == null ? 0 : store.gets();
            long rangesBefore = table.readStatistics().readRequests();
            long t0 = System.nanoTime();
            String v = lookup(table, plan, keys[i]);
            long t1 = System.nanoTime();
            nanos[i] = t1 - t0;
            total += nanos[i];
            sum += Fingerprint.answer(i, keys[i], v);
            if (store != null) {
                long lookupGets = store.gets() - getsBefore;
                long lookupRanges = table.readStatistics().readRequests() - rangesBefore;
                if (lookupGets > lookupRanges) {
                    throw new IllegalStateException(
                            String.format(
                                    "suite=pageindex case=%s: the lookup of key %d issued %d GETs"
                                            + " for %d page ranges; at most one GET per range"
                                            + " expected",
                                    CASE, keys[i], lookupGets, lookupRanges));
                }
                gets += lookupGets;
                maxGets = Math.max(maxGets, lookupGets);
            }
        }
        long heads = store == null ? 0 : store.heads() - heads0;
        if (heads != 0) {
            throw new IllegalStateException(
                    String.format(
                            "suite=pageindex case=%s: %d lookups issued %d HEAD requests; none"
                                    + " expected after warm-up",
                            CASE, keys.length, heads));
        }
        Arrays.sort(nanos);
        Counts counts =
                new Counts(
                        table.readStatistics().readRequests() - pageRanges0,
                        table.readStatistics().bytesRead() - pageBytes0,
                        gets,
                        maxGets,
                        heads,
                        store == null ? 0 : store.discardedBytes() - discarded0);
        return new Rep(nanos, total, sum, counts);
    }

    private static ResultRow row(
            String system, List<Rep> reps, boolean s3, Map<String, String> more) {
        List<Rep> sorted = new ArrayList<>(reps);
        sorted.sort((a, b) -> Double.compare(a.opsPerSec(), b.opsPerSec()));
        Rep median = sorted.get(sorted.size() / 2);
        long ops = 0;
        long ranges = 0;
        long pageBytes = 0;
        long gets = 0;
        long maxGets = 0;
        long heads = 0;
        long discarded = 0;
        for (Rep r : reps) {
            ops += r.sortedNanos().length;
            ranges += r.counts().pageRanges();
            pageBytes += r.counts().pageBytes();
            gets += r.counts().gets();
            maxGets = Math.max(maxGets, r.counts().maxGetsPerLookup());
            heads += r.counts().heads();
            discarded += r.counts().discardedBytes();
        }
        double perOp = 1.0 / Math.max(1, ops);
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("ops", Long.toString(ops));
        extra.put("page_ranges_per_op", ResultRow.fmt2(ranges * perOp));
        extra.put("page_bytes_per_op", ResultRow.fmt0(pageBytes * perOp));
        if (s3) {
            extra.put("gets_per_op", ResultRow.fmt2(gets * perOp));
            extra.put("max_gets_per_op", Long.toString(maxGets));
            extra.put("heads_per_op", ResultRow.fmt2(heads * perOp));
            extra.put("get_bytes_per_op", ResultRow.fmt0((pageBytes + discarded) * perOp));
        }
        extra.putAll(more);
        return new ResultRow(
                PageIndexSuite.SUITE,
                system,
                CASE,
                1,
                median.opsPerSec(),
                median.percentileMicros(0.50),
                median.percentileMicros(0.99),
                // Bytes and requests that reached the storage: GETs and the bytes their ranges
                // carried on S3, positioned reads of the pages on the local file.
                (pageBytes + discarded) * perOp,
                (s3 ? gets : ranges) * perOp,
                null,
                sorted.get(0).opsPerSec(),
                sorted.get(sorted.size() - 1).opsPerSec(),
                reps.size(),
                extra);
    }
}
