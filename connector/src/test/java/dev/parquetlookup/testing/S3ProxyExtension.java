package dev.parquetlookup.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs S3Proxy (an S3-compatible server over a local directory) as a separate JVM on a free
 * loopback port for the test class, and stops it after the class whatever happened. Its own JVM and
 * class path ({@code target/s3proxy/lib}, copied there by the {@code s3proxy-server} module) keep
 * its Logback and Jackson away from the tests' Log4j and Flink.
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

    public static final String ACCESS_KEY = "local-identity";
    public static final String SECRET_KEY = "local-credential";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path libDir =
            Paths.get(System.getProperty("s3proxy.lib", "target/s3proxy/lib")).toAbsolutePath();
    private Path workDir;
    private Path dataDir;
    private int port;
    private Process process;
    private Thread shutdownHook;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (!Files.isDirectory(libDir)) {
            throw new IllegalStateException(
                    "S3Proxy's jars are missing at "
                            + libDir
                            + ". They are copied there by the s3proxy-server module: build with"
                            + " `mvn -B -pl connector -am verify` (or from the root).");
        }
        Path target = libDir.getParent().getParent();
        workDir = Files.createTempDirectory(Files.createDirectories(target), "s3proxy-");
        dataDir = Files.createDirectories(workDir.resolve("data"));
        port = freePort();
        Files.writeString(
                workDir.resolve("logback.xml"),
                "<configuration><appender name=\"F\" class=\"ch.qos.logback.core.FileAppender\">"
                        + "<file>"
                        + workDir.resolve("s3proxy.log")
                        + "</file><encoder><pattern>%d %-5level %logger - %msg%n</pattern>"
                        + "</encoder></appender><root level=\"WARN\"><appender-ref ref=\"F\"/>"
                        + "</root></configuration>");
        shutdownHook = new Thread(this::stopQuietly, "s3proxy-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stopQuietly();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        if (workDir != null) {
            try (Stream<Path> walk = Files.walk(workDir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** Starts the server (again) on the same port over the same data directory. */
    public synchronized void start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("S3Proxy is already running on port " + port);
        }
        Path conf = workDir.resolve("s3proxy.conf");
        Files.writeString(
                conf,
                String.join(
                        "\n",
                        "s3proxy.endpoint=" + endpoint(),
                        "s3proxy.authorization=aws-v2-or-v4",
                        "s3proxy.identity=" + ACCESS_KEY,
                        "s3proxy.credential=" + SECRET_KEY,
                        "jclouds.provider=filesystem",
                        "jclouds.filesystem.basedir=" + dataDir,
                        ""));
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-Dlogback.configurationFile=" + workDir.resolve("logback.xml"));
        command.add("-cp");
        command.add(libDir + "/*");
        command.add("org.gaul.s3proxy.Main");
        command.add("--properties");
        command.add(conf.toString());
        process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        workDir.resolve("s3proxy.out").toFile()))
                        .start();
        awaitReady();
    }

    /** Stops the server (an outage); {@link #start()} brings it back with the same data. */
    public synchronized void stop() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(20, TimeUnit.SECONDS);
        }
        process = null;
    }

    private void stopQuietly() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Creates a bucket (a directory of the file-system backend). */
    public void createBucket(String name) throws IOException {
        Files.createDirectories(dataDir.resolve(name));
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /**
     * Hadoop options for {@code s3a://} paths on this server: path-style, plain HTTP, fixed
     * credentials, the classic input stream (exact GET counts, no HEAD when opened with a length)
     * and short S3A retries so an outage surfaces in well under a second.
     */
    public Map<String, String> hadoopOptions() {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("fs.s3a.endpoint", endpoint());
        o.put("fs.s3a.endpoint.region", "us-east-1");
        o.put("fs.s3a.path.style.access", "true");
        o.put("fs.s3a.connection.ssl.enabled", "false");
        o.put(
                "fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        o.put("fs.s3a.access.key", ACCESS_KEY);
        o.put("fs.s3a.secret.key", SECRET_KEY);
        o.put("fs.s3a.input.stream.type", "classic");
        o.put("fs.s3a.retry.limit", "1");
        o.put("fs.s3a.retry.interval", "100ms");
        o.put("fs.s3a.attempts.maximum", "0");
        o.put("fs.s3a.connection.establish.timeout", "2s");
        o.put("fs.s3a.connection.timeout", "5s");
        o.put("fs.s3a.bucket.probe", "0");
        return o;
    }

    private void awaitReady() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "S3Proxy exited with code " + process.exitValue() + ": " + logTail());
            }
            try {
                HttpURLConnection c =
                        (HttpURLConnection) URI.create(endpoint() + "/").toURL().openConnection();
                c.setConnectTimeout(1000);
                c.setReadTimeout(2000);
                int status = c.getResponseCode(); // 200 or 403: either way it answers
                c.disconnect();
                if (status > 0) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "S3Proxy did not answer on "
                                + endpoint()
                                + " within "
                                + START_TIMEOUT
                                + ": "
                                + logTail());
            }
            Thread.sleep(100); // polling a child process's port: there is nothing to wait on
        }
    }

    private String logTail() {
        try {
            Path out = workDir.resolve("s3proxy.out");
            String text = Files.exists(out) ? Files.readString(out, StandardCharsets.UTF_8) : "";
            return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
