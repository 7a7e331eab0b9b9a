package dev.parquetlookup.s3proxy;

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
 * S3Proxy (an S3-compatible server over a local directory) as a separate JVM on a free loopback
 * port, for the connector's S3 tests and the benchmarks. Its own JVM and class path (the jars this
 * module copies to {@code target/lib}, which its users copy on to their own {@code
 * target/s3proxy/lib}) keep S3Proxy's Logback and Jackson away from Flink's Log4j. This class uses
 * only the JDK: depend on this module with every transitive dependency excluded.
 *
 * <pre>{@code
 * try (S3ProxyServer s3 = new S3ProxyServer(Path.of("target/s3proxy/lib"), Path.of("target"))) {
 *     s3.start();
 *     s3.createBucket("bucket");
 *     Map<String, String> hadoop = s3.hadoopOptions(); // fs.s3a.* for s3a://bucket/...
 *     s3.stop(); s3.start(); // an outage: same port, same data
 * }
 * }</pre>
 */
public final class S3ProxyServer implements AutoCloseable {

    public static final String ACCESS_KEY = "local-identity";
    public static final String SECRET_KEY = "local-credential";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path libDir;
    private final Path workDir;
    private final Path dataDir;
    private final int port;
    private final Thread shutdownHook;
    private Process process;

    /**
     * Prepares a server (not started) whose data and logs live in a new directory under {@code
     * parent}, deleted by {@link #close()}.
     *
     * @param libDir S3Proxy's jars
     * @throws IllegalStateException if {@code libDir} is missing, saying how to build it
     */
    public S3ProxyServer(Path libDir, Path parent) throws IOException {
        this.libDir = libDir.toAbsolutePath();
        if (!Files.isDirectory(this.libDir)) {
            throw new IllegalStateException(
                    "S3Proxy's jars are missing at "
                            + this.libDir
                            + ". The s3proxy-server module copies them to its target/lib and the"
                            + " connector and benchmarks modules on to their target/s3proxy/lib:"
                            + " build with `mvn -B -pl <module> -am verify` (or package, from the"
                            + " root), or point the system property s3proxy.lib at such a folder.");
        }
        this.workDir =
                Files.createTempDirectory(
                        Files.createDirectories(parent.toAbsolutePath()), "s3proxy-");
        this.dataDir = Files.createDirectories(workDir.resolve("data"));
        this.port = freePort();
        Files.writeString(
                workDir.resolve("logback.xml"),
                "<configuration><appender name=\"F\" class=\"ch.qos.logback.core.FileAppender\">"
                        + "<file>"
                        + workDir.resolve("s3proxy.log")
                        + "</file><encoder><pattern>%d %-5level %logger - %msg%n</pattern>"
                        + "</encoder></appender><root level=\"WARN\"><appender-ref ref=\"F\"/>"
                        + "</root></configuration>");
        this.shutdownHook = new Thread(this::stopQuietly, "s3proxy-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * The jars folder: the system property {@code s3proxy.lib} if set, else {@code s3proxy/lib}
     * beside the jar or classes folder {@code anchor} was loaded from (a module's {@code target}).
     */
    public static Path libDirBeside(Class<?> anchor) {
        String property = System.getProperty("s3proxy.lib");
        if (property != null) {
            return Paths.get(property);
        }
        try {
            Path codeSource =
                    Paths.get(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            return codeSource.getParent().resolve("s3proxy").resolve("lib");
        } catch (Exception e) {
            return Paths.get("target", "s3proxy", "lib");
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

    /** Whether the server's process runs (started and not stopped since). */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
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

    /** Stops the server and deletes its data and logs. */
    @Override
    public void close() throws IOException {
        stopQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        try (Stream<Path> walk = Files.walk(workDir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
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
