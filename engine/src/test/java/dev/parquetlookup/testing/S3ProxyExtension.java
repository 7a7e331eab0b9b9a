package dev.parquetlookup.testing;

import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Runs S3Proxy ({@link S3ProxyServer}: its own JVM, jars in {@code target/s3proxy/lib}) on a free
 * loopback port for the test class, and stops it after the class whatever happened.
 *
 * <pre>{@code
 * @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();
 * ...
 * S3.createBucket("bucket");
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

    private S3ProxyServer server;
    private final List<LatencyProxy> proxies = new CopyOnWriteArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path lib = Paths.get(System.getProperty("s3proxy.lib", "target/s3proxy/lib"));
        server = new S3ProxyServer(lib, lib.toAbsolutePath().getParent().getParent());
        server.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (LatencyProxy proxy : proxies) {
            proxy.close();
        }
        proxies.clear();
        if (server != null) {
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

    /** Creates a bucket (a directory of the file-system backend). */
    public void createBucket(String name) throws IOException {
        server.createBucket(name);
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
