package dev.parquetlookup.testing;

import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;

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
 * }</pre>
 */
public final class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {

    public static final String ACCESS_KEY = S3ProxyServer.ACCESS_KEY;
    public static final String SECRET_KEY = S3ProxyServer.SECRET_KEY;

    private S3ProxyServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path lib = Paths.get(System.getProperty("s3proxy.lib", "target/s3proxy/lib"));
        server = new S3ProxyServer(lib, lib.toAbsolutePath().getParent().getParent());
        server.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
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
}
