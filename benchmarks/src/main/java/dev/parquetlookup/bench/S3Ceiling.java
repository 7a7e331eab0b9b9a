package dev.parquetlookup.bench;

import dev.parquetlookup.s3proxy.LatencyProxy;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The test server's own ceiling: ranged GETs per second that S3Proxy (with this JVM's S3A clients
 * and the latency proxy at D = 0 in the path) serves on this machine when many clients ask at once.
 * Each client thread has its own S3A stream and issues one vectored read of one range at a time, at
 * random offsets of the file (one GET each, as the connector's lookups issue them). A lookup result
 * at or near this ceiling is limited by the test server on this machine, not by the connector.
 *
 * <pre>{@code
 * S3Ceiling.Result r = S3Ceiling.measure(hadoop, "s3a://bench/seed/f.parquet", proxy, 64, 8192,
 *         Duration.ofSeconds(3));
 * r.getsPerSecond();
 * }</pre>
 */
final class S3Ceiling {

    /**
     * @param getsPerSecond GETs completed per second over the window, counted by the proxy
     * @param meanRequestMillis mean GET time through the proxy
     * @param meanInFlight time-weighted mean of GETs in flight
     */
    record Result(
            int clients,
            int rangeBytes,
            double getsPerSecond,
            double meanRequestMillis,
            double meanInFlight,
            int maxInFlight,
            long gets,
            Duration window) {}

    private S3Ceiling() {}

    static Result measure(
            Map<String, String> hadoop,
            String uri,
            LatencyProxy proxy,
            int clients,
            int rangeBytes,
            Duration window)
            throws Exception {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        // Enough connections and S3A threads that the clients, not the pools, set the concurrency.
        conf.set("fs.s3a.connection.maximum", Integer.toString(clients * 2));
        conf.set("fs.s3a.threads.max", Integer.toString(clients * 2));
        Path path = new Path(uri);
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try (FileSystem fs = FileSystem.newInstance(URI.create(uri), conf)) {
            FileStatus status = fs.getFileStatus(path);
            long length = status.getLen();
            if (length <= rangeBytes) {
                throw new IllegalStateException(
                        uri + " is too short (" + length + " bytes) for the ceiling's ranges");
            }
            // Warm-up (connections, JIT in both JVMs) for half the window, then the window.
            runClients(pool, fs, status, clients, rangeBytes, window.dividedBy(2), 1);
            proxy.resetStats();
            runClients(pool, fs, status, clients, rangeBytes, window, 2);
            LatencyProxy.Stats stats = proxy.stats();
            return new Result(
                    clients,
                    rangeBytes,
                    stats.completed() * 1e9 / stats.window().toNanos(),
                    stats.meanRequestMillis(),
                    stats.meanInFlight(),
                    stats.maxInFlight(),
                    stats.gets(),
                    stats.window());
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private static void runClients(
            ExecutorService pool,
            FileSystem fs,
            FileStatus status,
            int clients,
            int rangeBytes,
            Duration window,
            long salt)
            throws Exception {
        long deadline = System.nanoTime() + window.toNanos();
        List<Future<Long>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            SplittableRandom random = new SplittableRandom(0xCE111L * 31 + c * 7919L + salt);
            done.add(pool.submit(() -> client(fs, status, rangeBytes, deadline, random)));
        }
        for (Future<Long> f : done) {
            f.get(window.toMillis() + 120_000, TimeUnit.MILLISECONDS);
        }
    }

    private static long client(
            FileSystem fs, FileStatus status, int rangeBytes, long deadline, SplittableRandom r)
            throws Exception {
        long reads = 0;
        long length = status.getLen();
        try (FSDataInputStream in =
                fs.openFile(status.getPath())
                        .withFileStatus(status)
                        .opt("fs.option.openfile.read.policy", "random")
                        .build()
                        .get()) {
            while (System.nanoTime() < deadline) {
                FileRange range =
                        FileRange.createFileRange(r.nextLong(length - rangeBytes), rangeBytes);
                in.readVectored(List.of(range), ByteBuffer::allocate);
                ByteBuffer data = range.getData().get(60, TimeUnit.SECONDS);
                if (data.remaining() != rangeBytes) {
                    throw new IOException(
                            "short ranged GET: "
                                    + data.remaining()
                                    + " of "
                                    + rangeBytes
                                    + " bytes");
                }
                reads++;
            }
        }
        return reads;
    }
}
