package dev.parquetlookup.testing;

import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Gives the test classes of a test JVM one S3Proxy ({@link S3ProxyServer}: its own JVM, jars in
 * {@code target/s3proxy/lib}) on a free loopback port, started by the first class that asks for it
 * and stopped when the JVM's tests are done (starting one takes seconds: one per JVM instead of one
 * per class, as e2e-tests shares one Flink cluster). Each class keeps to its own buckets. A class
 * may {@link #stop()} and {@link #start()} it for an outage (classes run one at a time); after the
 * class it runs again whatever happened, and the class's {@link LatencyProxy}s are closed.
 *
 * <pre>{@code
 * @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();
 * ...
 * S3.createBucket("bucket"); // a name no other class uses
 * Map<String, String> hadoop = S3.hadoopOptions(); // fs.s3a.* for s3a://bucket/...
 * S3.stop(); S3.start(); // an outage: same port, same data
 *
 * LatencyProxy slow = S3.latencyProxy(Duration.ofMillis(20)); // closed after the class
 * Map<String, String> remote = S3.hadoopOptions(slow); // the same, through the proxy
 * slow.stats().gets(); slow.setDelay(Duration.ZERO);
 * }</pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {

    public static final String ACCESS_KEY = S3ProxyServer.ACCESS_KEY;
    public static final String SECRET_KEY = S3ProxyServer.SECRET_KEY;

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(S3ProxyExtension.class);

    private S3ProxyServer server;
    private final List<LatencyProxy> proxies = new CopyOnWriteArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) {
        server =
                context.getRoot()
                        .getStore(NAMESPACE)
                        .getOrComputeIfAbsent("server", key -> new Shared(launch()), Shared.class)
                        .server();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (LatencyProxy proxy : proxies) {
            proxy.close();
        }
        proxies.clear();
        if (server != null && !server.isRunning()) {
            server.start(); // the class ended in an outage: the next class finds it running
        }
    }

    private static S3ProxyServer launch() {
        Path lib = Paths.get(System.getProperty("s3proxy.lib", "target/s3proxy/lib"));
        try {
            S3ProxyServer started =
                    new S3ProxyServer(lib, lib.toAbsolutePath().getParent().getParent());
            started.start();
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The server in the root store: JUnit closes it when the JVM's tests are done. */
    private record Shared(S3ProxyServer server) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    /** Starts the server (again) on the same port over the same data directory. */
    public void start() throws IOException, InterruptedException {
        server.start();
    }

    /** Stops the server (an outage); {@link #start()} brings it back with the same data. */
    public void stop() throws InterruptedException {
        server.stop();
    }

    /** Creates a bucket (a directory of the file-system backend) if it is not there. */
    public void createBucket(String name) throws IOException {
        server.createBucket(name);
    }

    /**
     * Uploads every regular file of {@code dir} as object {@code prefix + file name} of {@code
     * bucket}, a few at once, with one PUT each (S3A's copy sends several requests per file).
     */
    public void putFiles(Path dir, String bucket, String prefix) throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(Files::isRegularFile).sorted().toList();
        }
        Configuration conf = new Configuration();
        hadoopOptions().forEach(conf::set);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf)) {
            S3Client s3 = ((S3AFileSystem) fs).getS3AInternals().getAmazonS3Client("test upload");
            List<Future<?>> puts = new ArrayList<>();
            for (Path file : files) {
                puts.add(
                        pool.submit(
                                () ->
                                        s3.putObject(
                                                PutObjectRequest.builder()
                                                        .bucket(bucket)
                                                        .key(prefix + file.getFileName())
                                                        .build(),
                                                RequestBody.fromFile(file))));
            }
            for (Future<?> put : puts) {
                put.get();
            }
        } catch (ExecutionException e) {
            throw new IOException("upload to s3a://" + bucket + "/" + prefix, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("upload interrupted");
        } finally {
            pool.shutdownNow();
        }
    }

    public String endpoint() {
        return server.endpoint();
    }

    public int port() {
        return server.port();
    }

    /** See {@link S3ProxyServer#hadoopOptions()}. */
    public Map<String, String> hadoopOptions() {
        return server.hadoopOptions();
    }

    /**
     * Starts a {@link LatencyProxy} in front of the server that holds each response's first byte
     * for {@code delay} (changeable with {@link LatencyProxy#setDelay}) and counts requests and
     * requests in flight; closed after the test class. Use {@link #hadoopOptions(LatencyProxy)}. It
     * survives {@link #stop()}/{@link #start()} (same port): requests during an outage fail.
     */
    public LatencyProxy latencyProxy(Duration delay) throws IOException {
        LatencyProxy proxy = LatencyProxy.start(server.port(), delay);
        proxies.add(proxy);
        return proxy;
    }

    /** {@link #hadoopOptions()} with the endpoint of {@code proxy}. */
    public Map<String, String> hadoopOptions(LatencyProxy proxy) {
        Map<String, String> options = new LinkedHashMap<>(server.hadoopOptions());
        options.put("fs.s3a.endpoint", proxy.endpoint());
        return options;
    }
}
