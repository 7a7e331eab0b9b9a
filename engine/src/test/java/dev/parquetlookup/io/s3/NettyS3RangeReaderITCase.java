package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.io.RetryingRangeSource;
import dev.parquetlookup.io.TransientFailures;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.testing.S3ProxyExtension;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The S3 store's client ({@link NettyS3RangeReader}) against S3Proxy on loopback (which checks
 * every signature): ranges come back byte for byte for keys that need encoding; a wrong secret is a
 * 403 {@link AccessDeniedException} and a deleted object a 404 {@link FileNotFoundException},
 * neither retried; 503 answers are retried by {@link RetryingRangeSource} until the read succeeds;
 * a request past the request timeout is abandoned and retried; an outage is a transient failure and
 * the client reads again once the server is back; an object overwritten in place fails as {@link
 * FileChangedException}.
 */
class NettyS3RangeReaderITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "netty-client";
    private static final int LENGTH = 1 << 20;
    private static final RetryPolicy RETRY =
            new RetryPolicy(4, Duration.ofMillis(10), Duration.ofMillis(50));

    private static LatencyProxy proxy;
    private static byte[] data;

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        proxy = S3.latencyProxy(Duration.ZERO);
        data = new byte[LENGTH];
        new SplittableRandom(3).nextBytes(data);
        put("s3a://" + BUCKET + "/blob.bin", data);
        put("s3a://" + BUCKET + "/dir with space/a+b=c,d.bin", data);
    }

    private static Map<String, String> hadoop(String endpoint) {
        Map<String, String> options = new LinkedHashMap<>(S3.hadoopOptions());
        options.put("fs.s3a.endpoint", endpoint);
        return options;
    }

    private static void put(String path, byte[] bytes) throws IOException {
        Configuration conf = new Configuration();
        S3.hadoopOptions().forEach(conf::set);
        try (FileSystem fs =
                        FileSystem.newInstance(new org.apache.hadoop.fs.Path(path).toUri(), conf);
                OutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true)) {
            out.write(bytes);
        }
    }

    private static void delete(String path) throws IOException {
        Configuration conf = new Configuration();
        S3.hadoopOptions().forEach(conf::set);
        try (FileSystem fs =
                FileSystem.newInstance(new org.apache.hadoop.fs.Path(path).toUri(), conf)) {
            fs.delete(new org.apache.hadoop.fs.Path(path), false);
        }
    }

    private static FileId stat(String path) throws IOException {
        try (HadoopFileStore store = HadoopFileStore.create(S3.hadoopOptions())) {
            return store.stat(path);
        }
    }

    private static String stackTrace(Throwable t) {
        java.io.StringWriter out = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(out));
        return out.toString();
    }

    private static Throwable failureOf(CompletableFuture<?> read) {
        ExecutionException e =
                org.junit.jupiter.api.Assertions.assertThrows(
                        ExecutionException.class, () -> read.get(60, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void rangesComeBackByteForByteThroughSignedGets() throws Exception {
        for (String key : List.of("blob.bin", "dir with space/a+b=c,d.bin")) {
            FileId file = stat("s3a://" + BUCKET + "/" + key);
            List<FileRange> ranges =
                    List.of(
                            new FileRange(0, 4),
                            new FileRange(12_345, 8192),
                            new FileRange(LENGTH - 1, 1),
                            new FileRange(500_000, 0),
                            new FileRange(0, LENGTH));
            proxy.resetStats();
            try (HadoopFileStore store = HadoopFileStore.create(hadoop(proxy.endpoint()));
                    RangeSource source = store.open(file)) {
                byte[][] got = source.readAllAsync(ranges).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < ranges.size(); i++) {
                    FileRange r = ranges.get(i);
                    assertThat(got[i])
                            .as("%s %s", key, r)
                            .isEqualTo(Arrays.copyOfRange(data, (int) r.offset(), (int) r.end()));
                }
                assertThat(store.asyncReadsStarted()).isTrue();
            }
            assertThat(proxy.stats().gets()).as("one GET per non-empty range").isEqualTo(4);
        }
    }

    @Test
    void aWrongSecretIsAccessDeniedAndNotRetried() throws Exception {
        FileId file = stat("s3a://" + BUCKET + "/blob.bin");
        Map<String, String> options = hadoop(proxy.endpoint());
        options.put("fs.s3a.secret.key", "not-the-secret");
        proxy.resetStats();
        try (HadoopFileStore store = HadoopFileStore.create(options);
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(0, 100))));
            assertThat(failure)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("HTTP 403")
                    .hasMessageContaining("blob.bin");
        }
        assertThat(proxy.stats().gets()).as("a 403 is not retried").isEqualTo(1);
    }

    @Test
    void aDeletedObjectIsNotFoundAndNotRetried() throws Exception {
        String path = "s3a://" + BUCKET + "/deleted.bin";
        put(path, data);
        FileId file = stat(path);
        delete(path);
        proxy.resetStats();
        try (HadoopFileStore store = HadoopFileStore.create(hadoop(proxy.endpoint()));
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(0, 100))));
            assertThat(failure)
                    .isInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining("HTTP 404")
                    .hasMessageContaining("deleted.bin");
        }
        assertThat(proxy.stats().gets()).as("a 404 is not retried").isEqualTo(1);
    }

    @Test
    void anObjectOverwrittenInPlaceFailsAsChanged() throws Exception {
        String path = "s3a://" + BUCKET + "/overwritten.bin";
        put(path, data);
        FileId file = stat(path);
        byte[] other = data.clone();
        other[0] ^= 1;
        put(path, other);
        try (HadoopFileStore store = HadoopFileStore.create(hadoop(proxy.endpoint()));
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(0, 100))));
            assertThat(failure)
                    .isInstanceOf(FileChangedException.class)
                    .hasMessageContaining("overwritten.bin")
                    .hasMessageContaining("changed after it was opened");
            // The object listed again (its new ETag) reads at once: requests of one path are not
            // kept across ETags (the signed head is reused only for the same path and ETag).
            FileId relisted = stat(path);
            assertThat(relisted.etag()).isNotEqualTo(file.etag());
            try (RangeSource again = store.open(relisted)) {
                assertThat(
                                again.readAllAsync(List.of(new FileRange(0, 100)))
                                        .get(30, TimeUnit.SECONDS)[0])
                        .isEqualTo(Arrays.copyOf(other, 100));
            }
        }
    }

    @Test
    void serviceUnavailableIsRetriedUntilTheReadSucceeds() throws Exception {
        FileId file = stat("s3a://" + BUCKET + "/blob.bin");
        try (FaultServer faults = new FaultServer(proxy.port(), 2);
                HadoopFileStore store =
                        HadoopFileStore.create(hadoop("http://127.0.0.1:" + faults.port()));
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            byte[][] got =
                    source.readAllAsync(List.of(new FileRange(1000, 64))).get(60, TimeUnit.SECONDS);
            assertThat(got[0]).isEqualTo(Arrays.copyOfRange(data, 1000, 1064));
            assertThat(faults.answered503()).as("503 answers before the success").isEqualTo(2);
        }
        try (FaultServer faults = new FaultServer(proxy.port(), 10);
                HadoopFileStore store =
                        HadoopFileStore.create(hadoop("http://127.0.0.1:" + faults.port()));
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(0, 64))));
            assertThat(failure)
                    .hasMessageContaining("failed after 4 attempts")
                    .satisfies(
                            t ->
                                    assertThat(stackTrace(t).toLowerCase(java.util.Locale.ROOT))
                                            .contains("http 503 serviceunavailable"));
            assertThat(faults.answered503()).isEqualTo(4);
        }
    }

    @Test
    void aRequestPastTheTimeoutIsAbandonedAndRetriedThenTheClientReadsAgain() throws Exception {
        FileId file = stat("s3a://" + BUCKET + "/blob.bin");
        try (LatencyProxy slow = S3.latencyProxy(Duration.ofSeconds(5));
                HadoopFileStore store = HadoopFileStore.create(hadoop(slow.endpoint()));
                RangeSource source =
                        new RetryingRangeSource(
                                store.open(file),
                                new RetryPolicy(
                                        2,
                                        Duration.ofMillis(10),
                                        Duration.ofMillis(10),
                                        Duration.ofMillis(300)))) {
            Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(0, 64))));
            assertThat(failure).hasMessageContaining("failed after 2 attempts");
            assertThat(slow.stats().gets()).as("the timed-out GET was sent again").isEqualTo(2);
            slow.setDelay(Duration.ZERO);
            assertThat(source.readAllAsync(List.of(new FileRange(7, 9))).get(60, TimeUnit.SECONDS))
                    .isEqualTo(new byte[][] {Arrays.copyOfRange(data, 7, 16)});
        }
    }

    @Test
    void anOutageIsTransientAndReadsResumeWhenTheServerIsBack() throws Exception {
        FileId file = stat("s3a://" + BUCKET + "/blob.bin");
        try (HadoopFileStore store = HadoopFileStore.create(hadoop(S3.endpoint()));
                RangeSource source = store.open(file)) {
            assertThat(source.readAllAsync(List.of(new FileRange(0, 8))).get(60, TimeUnit.SECONDS))
                    .isEqualTo(new byte[][] {Arrays.copyOf(data, 8)});
            S3.stop();
            try {
                Throwable failure = failureOf(source.readAllAsync(List.of(new FileRange(8, 8))));
                assertThat(TransientFailures.isTransient(failure))
                        .as("an outage is worth retrying: %s", failure)
                        .isTrue();
            } finally {
                S3.start();
            }
            assertThat(source.readAllAsync(List.of(new FileRange(8, 8))).get(60, TimeUnit.SECONDS))
                    .isEqualTo(new byte[][] {Arrays.copyOfRange(data, 8, 16)});
        }
    }

    /**
     * A loopback server in front of {@code upstreamPort} that answers the first request of each of
     * the first {@code failures} connections carrying a {@code Range} header with 503 (S3's
     * ServiceUnavailable) and closes it, and pipes every other connection through unchanged (so the
     * signature over its own host and port still holds at S3Proxy).
     */
    private static final class FaultServer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket();
        private final int upstreamPort;
        private final AtomicInteger left;
        private final AtomicInteger answered = new AtomicInteger();
        private final Thread acceptor;

        FaultServer(int upstreamPort, int failures) throws IOException {
            this.upstreamPort = upstreamPort;
            this.left = new AtomicInteger(failures);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            acceptor = new Thread(this::accept, "fault-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int answered503() {
            return answered.get();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Thread t = new Thread(() -> serve(client), "fault-server-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket client) {
            try (client) {
                InputStream in = client.getInputStream();
                byte[] head = readHead(in);
                String text = new String(head, StandardCharsets.ISO_8859_1).toLowerCase();
                if (text.contains("\r\nrange:") && left.getAndDecrement() > 0) {
                    byte[] body =
                            "<Error><Code>ServiceUnavailable</Code><Message>busy</Message></Error>"
                                    .getBytes(StandardCharsets.UTF_8);
                    // Counted before it is sent: the client may act on the answer (and the
                    // test read the count) before this thread runs again.
                    answered.incrementAndGet();
                    OutputStream out = client.getOutputStream();
                    out.write(
                            ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/xml"
                                            + "\r\nContent-Length: "
                                            + body.length
                                            + "\r\nConnection: close\r\n\r\n")
                                    .getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                    return;
                }
                try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
                    upstream.getOutputStream().write(head);
                    Thread back = new Thread(() -> pipe(upstream, client), "fault-server-back");
                    back.setDaemon(true);
                    back.start();
                    pipe(client, upstream);
                    back.join();
                }
            } catch (IOException | InterruptedException e) {
                // the connection ended
            }
        }

        private static void pipe(Socket from, Socket to) {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException e) {
                // closed
            } finally {
                try {
                    to.shutdownOutput();
                } catch (IOException e) {
                    // closed
                }
            }
        }

        private static byte[] readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                head.write(b);
                matched =
                        (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            return head.toByteArray();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
