package dev.parquetlookup.bench;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.disk.DiskTier;
import dev.parquetlookup.io.disk.TieredFileStore;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A probe of the disk tier at object-store latency (not a suite): the seed file on S3Proxy behind
 * {@link LatencyProxy} (first byte of each response delayed by D ms); engine lookups (no Flink) of
 * uniformly random keys on T threads, cold (no disk tier), during and after warm-up {@code all},
 * and on the local file. Prints lookups/s, GETs per lookup (counted by the proxy), time to warm.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.parquetlookup.bench.DiskTierProbe
 * [rows=1000000] [delayMs=20] [threads=16] [out=target/bench]}
 */
public final class DiskTierProbe {

    private DiskTierProbe() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            a.put(kv[0], kv[1]);
        }
        long rows = Long.parseLong(a.getOrDefault("rows", "1000000"));
        int delayMs = Integer.parseInt(a.getOrDefault("delayMs", "20"));
        int threads = Integer.parseInt(a.getOrDefault("threads", "16"));
        Path out = Paths.get(a.getOrDefault("out", "target/bench"));
        Files.createDirectories(out);
        SeedLayout layout = SeedLayout.lookupDefault(rows);
        Path file = SeedDataset.get(out, layout, System.out);
        System.out.printf(
                "probe rows=%d delay=%d ms threads=%d file=%d bytes layout=%s load=%s%n",
                rows, delayMs, threads, Files.size(file), layout.describe(), load());
        Path lib = S3ProxyServer.libDirBeside(DiskTierProbe.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, out)) {
            server.start();
            server.createBucket("probe");
            Map<String, String> direct = server.hadoopOptions();
            String dir = "s3a://probe/seed/";
            upload(direct, file, dir + file.getFileName());
            try (LatencyProxy proxy =
                    LatencyProxy.start(server.port(), Duration.ofMillis(delayMs))) {
                Map<String, String> hadoop = new LinkedHashMap<>(direct);
                hadoop.put("fs.s3a.endpoint", proxy.endpoint());
                run(hadoop, dir, file, rows, threads, proxy, out);
            }
        }
        System.out.printf("load at end=%s%n", load());
    }

    private static void run(
            Map<String, String> hadoop,
            String dir,
            Path file,
            long rows,
            int threads,
            LatencyProxy proxy,
            Path out)
            throws Exception {
        RefreshOptions refresh = RefreshOptions.defaults();
        // Cold: no disk tier.
        try (RefreshingTable cold = open(dir, hadoop, HadoopFileStore.create(hadoop))) {
            measure("cold (no tier)", cold, rows, threads, 2_000, proxy, 1);
        }
        // Warm-up all, then warm lookups.
        try (DiskTier tier = DiskTier.create(out.resolve("tier"), 4L << 30)) {
            TieredFileStore tiered = tier.wrap(HadoopFileStore.create(hadoop));
            try (RefreshingTable table = open(dir, hadoop, tiered)) {
                proxy.resetStats();
                long start = System.nanoTime();
                TableWarmup warmup =
                        TableWarmup.start("seed", table, tiered, TableWarmup.Mode.ALL, 4);
                warmup.done().get(30, TimeUnit.MINUTES);
                long warmNanos = System.nanoTime() - start;
                LatencyProxy.Stats s = proxy.stats();
                System.out.printf(
                        Locale.ROOT,
                        "RESULT probe=warmup-all bytes=%d ms=%.0f MB_per_s=%.1f gets=%d"
                                + " max_in_flight=%d%n",
                        warmup.plannedBytes(),
                        warmNanos / 1e6,
                        warmup.plannedBytes() / 1e6 / (warmNanos / 1e9),
                        s.gets(),
                        s.maxInFlight());
                warmup.close();
                tier.flush().get();
                measure("warm (tier, warmup all)", table, rows, threads, 200_000, proxy, 3);
                measure("warm (tier, warmup all), 2 threads", table, rows, 2, 200_000, proxy, 3);
                System.out.println("tier " + tier.stats());
            }
        }
        try (RefreshingTable local =
                open(
                        file.toAbsolutePath().toString(),
                        Map.of(),
                        HadoopFileStore.create(Map.of()))) {
            measure("local file (mmap)", local, rows, threads, 200_000, proxy, 3);
            measure("local file (mmap), 2 threads", local, rows, 2, 200_000, proxy, 3);
        }
    }

    private static RefreshingTable open(String path, Map<String, String> hadoop, FileStore store)
            throws Exception {
        return RefreshingTable.open(
                TableConfig.builder(path)
                        .hadoopOptions(hadoop)
                        .metadataCache(new MetadataCache(256L << 20))
                        .build(),
                RefreshOptions.defaults(),
                store);
    }

    private static void measure(
            String name,
            RefreshingTable table,
            long rows,
            int threads,
            int lookups,
            LatencyProxy proxy,
            int repetitions)
            throws Exception {
        LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
        List<Double> rates = new ArrayList<>();
        double getsPerLookup = 0;
        for (int rep = 0; rep < repetitions; rep++) {
            proxy.resetStats();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long start = System.nanoTime();
            List<Future<Long>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = 1000L * rep + t;
                int share = lookups / threads;
                futures.add(
                        pool.submit(
                                () -> {
                                    SplittableRandom random = new SplittableRandom(seed);
                                    long found = 0;
                                    for (int i = 0; i < share; i++) {
                                        long k = 1 + random.nextLong(rows);
                                        found += table.lookup(plan, new Object[] {k}).size();
                                    }
                                    return found;
                                }));
            }
            long found = 0;
            for (Future<Long> f : futures) {
                found += f.get();
            }
            long nanos = System.nanoTime() - start;
            pool.shutdown();
            int done = (lookups / threads) * threads;
            if (found != done) {
                throw new IllegalStateException(
                        name + ": " + found + " rows for " + done + " keys");
            }
            rates.add(done / (nanos / 1e9));
            getsPerLookup = (double) proxy.stats().gets() / done;
        }
        rates.sort(null);
        System.out.printf(
                Locale.ROOT,
                "RESULT probe=%s threads=%d lookups_per_s=%.0f (min %.0f, max %.0f)"
                        + " gets_per_lookup=%.3f%n",
                name.replace(' ', '_'),
                threads,
                rates.get(rates.size() / 2),
                rates.get(0),
                rates.get(rates.size() - 1),
                getsPerLookup);
    }

    private static void upload(Map<String, String> hadoop, Path file, String target)
            throws Exception {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        conf.set("fs.s3a.fast.upload.buffer", "bytebuffer");
        try (FileSystem fs = FileSystem.newInstance(URI.create(target), conf);
                OutputStream o = fs.create(new org.apache.hadoop.fs.Path(target), true)) {
            Files.copy(file, o);
        }
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "?";
        }
    }
}
