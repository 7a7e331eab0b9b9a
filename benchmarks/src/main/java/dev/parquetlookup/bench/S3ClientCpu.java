package dev.parquetlookup.bench;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.io.hedge.HedgedRangeReader;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client's CPU per ranged GET ({@code objectstore-client}): N ranged 8 KiB GETs at random
 * offsets of one 16 MiB object, at most B in flight, straight to S3Proxy on loopback (D = 0, no
 * latency proxy in this JVM), through each of the two read paths of {@code s3a://} ({@code netty}:
 * the S3 store's client, our HTTP/1.1 client on Netty with our own signing; {@code s3a}: the
 * fallback, S3A's streams on the store's pool of blocking reads, forced with {@code
 * parquet-lookup.s3.async-reads} = {@code false}). Counts this process's CPU time (every thread:
 * the client's event loops and workers, JIT and GC included) over the measured GETs, after a
 * warm-up of N GETs per client; {@code threads_cpu_us_per_get} is the same for the JVM's Java
 * threads only (the client's event loops, the caller, the hedging timer: without the JIT's and the
 * GC's threads, whose share a loaded machine stretches over the first rounds); {@code hedges} and
 * {@code hedges_won} count the measured GETs' hedges (each an extra GET), {@code hedge_delay_ms}
 * and {@code median_ms} are the hedge delay and median GET (time on the wire) learnt at the end of
 * the round. S3Proxy runs in its own JVM and is not counted. {@code
 * -Dobjectstore-client.clients=netty} measures only the client, {@code
 * -Dobjectstore-client.hedge=false} it without hedging.
 *
 * <pre>{@code
 * java -jar benchmarks.jar objectstore-client [--quick]
 * }</pre>
 */
final class S3ClientCpu {

    private static final String BUCKET = "client-cpu";
    private static final int OBJECT_BYTES = 16 << 20;
    private static final int RANGE_BYTES = 8192;

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    S3ClientCpu(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void run() throws Exception {
        int gets = options.quick() ? 10_000 : 40_000;
        Path dir = Files.createDirectories(report.out().resolve("client-cpu"));
        byte[] data = new byte[OBJECT_BYTES];
        new SplittableRandom(7).nextBytes(data);
        Files.write(dir.resolve("blob.bin"), data);
        Path lib = S3ProxyServer.libDirBeside(S3ClientCpu.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, report.out())) {
            server.start();
            server.createBucket(BUCKET);
            OpenScaleData.upload(server.hadoopOptions(), dir, "s3a://" + BUCKET + "/cpu/");
            // Alternate the clients twice: the second round of each is the one to read.
            for (int round = 1; round <= 2; round++) {
                for (String client : clients()) {
                    for (int inFlight : List.of(8, 64)) {
                        measure(server.hadoopOptions(), client, inFlight, gets, data, round);
                    }
                }
            }
        }
    }

    private void measure(
            Map<String, String> base, String client, int inFlight, int gets, byte[] data, int round)
            throws Exception {
        Map<String, String> hadoop = new LinkedHashMap<>(base);
        if (client.equals("s3a")) {
            hadoop.put("parquet-lookup.s3.async-reads", "false");
        }
        if (!Boolean.parseBoolean(System.getProperty("objectstore-client.hedge", "true"))) {
            hadoop.put(HedgedRangeReader.ENABLED, "false");
        }
        try (HadoopFileStore store = HadoopFileStore.create(hadoop)) {
            FileId id = store.list("s3a://" + BUCKET + "/cpu/blob.bin").get(0);
            try (RangeSource source = store.open(id)) {
                issue(source, inFlight, gets, data, 1); // warm-up: client start, JIT
                System.gc();
                var os =
                        (com.sun.management.OperatingSystemMXBean)
                                ManagementFactory.getOperatingSystemMXBean();
                Map<Long, Long> threads0 = threadCpu();
                HedgeStatistics hedges = HedgeStatistics.shared();
                long hedges0 = hedges.hedgesSent();
                long won0 = hedges.hedgesWon();
                long cpu0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                issue(source, inFlight, gets, data, 2);
                long wall = System.nanoTime() - t0;
                long cpu = os.getProcessCpuTime() - cpu0;
                long threads = 0;
                for (Map.Entry<Long, Long> e : threadCpu().entrySet()) {
                    threads += e.getValue() - threads0.getOrDefault(e.getKey(), 0L);
                }
                note(
                        "client=%s round=%d in_flight=%d gets=%d range_bytes=%d cpu_us_per_get=%.1f"
                                + " threads_cpu_us_per_get=%.1f gets_per_s=%.0f cores_busy=%.2f"
                                + " hedges=%d hedges_won=%d hedge_delay_ms=%.1f median_ms=%.1f"
                                + " load=%s",
                        client,
                        round,
                        inFlight,
                        gets,
                        RANGE_BYTES,
                        cpu / 1e3 / gets,
                        threads / 1e3 / gets,
                        gets * 1e9 / wall,
                        cpu / (double) wall,
                        hedges.hedgesSent() - hedges0,
                        hedges.hedgesWon() - won0,
                        hedges.delayMicros() / 1e3,
                        hedges.medianMicros() / 1e3,
                        ObjectStoreSuite.loadAverage());
            }
        }
    }

    /**
     * The clients to measure: {@code -Dobjectstore-client.clients=netty} leaves out S3A's streams.
     */
    private static List<String> clients() {
        return List.of(System.getProperty("objectstore-client.clients", "s3a,netty").split(","));
    }

    /** CPU time of every live Java thread by id (the JIT's and GC's threads are not among them). */
    private static Map<Long, Long> threadCpu() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new java.util.HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long t = mx.getThreadCpuTime(id);
            if (t >= 0) {
                cpu.put(id, t);
            }
        }
        return cpu;
    }

    /** Issues {@code n} GETs, at most {@code inFlight} at once, checking every byte. */
    private static void issue(RangeSource source, int inFlight, int n, byte[] data, long seed)
            throws Exception {
        Semaphore permits = new Semaphore(inFlight);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < n && failed.get() == null; i++) {
            permits.acquire();
            long offset = random.nextLong(OBJECT_BYTES - RANGE_BYTES);
            CompletableFuture<byte[][]> read =
                    source.readAllAsync(List.of(new FileRange(offset, RANGE_BYTES)));
            read.whenComplete(
                    (bytes, failure) -> {
                        if (failure != null) {
                            failed.compareAndSet(null, failure);
                        } else if (bytes[0][0] != data[(int) offset]
                                || bytes[0][RANGE_BYTES - 1]
                                        != data[(int) offset + RANGE_BYTES - 1]) {
                            failed.compareAndSet(
                                    null, new AssertionError("wrong bytes at " + offset));
                        }
                        permits.release();
                    });
        }
        if (!permits.tryAcquire(inFlight, 120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("GETs did not complete within 120 s");
        }
        if (failed.get() != null) {
            throw new IllegalStateException("a GET failed", failed.get());
        }
    }

    private void note(String format, Object... args) {
        String line = "client-cpu " + String.format(Locale.ROOT, format, args);
        log.println("NOTE " + line);
        report.note(line);
    }
}
