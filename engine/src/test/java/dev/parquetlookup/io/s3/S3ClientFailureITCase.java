package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.io.RetryingRangeSource;
import dev.parquetlookup.io.TransientFailures;
import dev.parquetlookup.io.TransientReadException;
import dev.parquetlookup.testing.S3ProxyExtension;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client-side failures of ranged GETs (the connection closed by the other end before any answer, as
 * a server or a load balancer does with a kept-alive connection) with the S3 store's client against
 * a loopback server: the error thrown, and logged by its {@code toString()} as lookups and warm-up
 * log it, names the file, the byte range and every cause in the chain (Netty reports such failures
 * with exceptions whose own message says little), and keeps the HTTP client's exception as its
 * cause; the failure is transient, so the read's retry policy tries again.
 */
class S3ClientFailureITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "client-failure";
    private static final String PATH = "s3a://" + BUCKET + "/blob.bin";
    private static final RetryPolicy RETRY =
            new RetryPolicy(2, Duration.ofMillis(10), Duration.ofMillis(20));

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        Configuration conf = new Configuration();
        S3.hadoopOptions().forEach(conf::set);
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(PATH);
        try (FileSystem fs = FileSystem.newInstance(path.toUri(), conf);
                OutputStream out = fs.create(path, true)) {
            out.write(new byte[64 * 1024]);
        }
    }

    private static Map<String, String> hadoop(int port) {
        Map<String, String> options = new LinkedHashMap<>(S3.hadoopOptions());
        options.put("fs.s3a.endpoint", "http://127.0.0.1:" + port);
        return options;
    }

    private static List<Throwable> chain(Throwable t) {
        List<Throwable> chain = new ArrayList<>();
        for (; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }

    @Test
    void aConnectionClosedBeforeAnyAnswerNamesFileRangeAndCause() throws Exception {
        FileId file;
        try (HadoopFileStore store = HadoopFileStore.create(S3.hadoopOptions())) {
            file = store.stat(PATH);
        }
        try (HangUpServer server = new HangUpServer();
                HadoopFileStore store = HadoopFileStore.create(hadoop(server.port()));
                RangeSource source = new RetryingRangeSource(store.open(file), RETRY)) {
            CompletableFuture<byte[][]> read =
                    source.readAllAsync(List.of(new FileRange(4096, 100)));
            ExecutionException e =
                    org.junit.jupiter.api.Assertions.assertThrows(
                            ExecutionException.class, () -> read.get(60, TimeUnit.SECONDS));
            Throwable failure = e.getCause();
            List<Throwable> chain = chain(failure);
            System.out.printf(
                    "%s%n  chain: %s%n",
                    failure, chain.stream().map(t -> t.getClass().getName()).toList());
            Throwable innermost = chain.get(chain.size() - 1);
            assertThat(TransientFailures.isTransient(failure))
                    .as("a connection closed under a request is worth retrying: %s", failure)
                    .isTrue();
            assertThat(server.hungUp())
                    .as("GETs hung up: each attempt of the retry policy")
                    .isGreaterThanOrEqualTo(RETRY.maxAttempts());
            assertThat(failure).isInstanceOf(IOException.class);
            assertThat(failure.toString())
                    .as("what lookups log")
                    .contains(PATH)
                    .contains("4096")
                    .contains("4196")
                    .contains(innermost.getClass().getSimpleName());
            assertThat(chain)
                    .as("the HTTP client's failure is kept as the cause of a transient failure")
                    .anySatisfy(
                            t ->
                                    assertThat(t)
                                            .isInstanceOf(TransientReadException.class)
                                            .hasCauseInstanceOf(IOException.class));
        }
    }

    /**
     * A loopback server that reads each request's head and closes the connection without a byte of
     * answer.
     */
    private static final class HangUpServer implements AutoCloseable {
        private final ServerSocket server = new ServerSocket();
        private final AtomicInteger hungUp = new AtomicInteger();

        HangUpServer() throws IOException {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = new Thread(this::accept, "hang-up-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int hungUp() {
            return hungUp.get();
        }

        private void accept() {
            while (!server.isClosed()) {
                try (Socket client = server.accept()) {
                    readHead(client.getInputStream());
                    hungUp.incrementAndGet();
                } catch (IOException e) {
                    // closed, or the client went first
                }
            }
        }

        private static void readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return;
                }
                head.write(b);
                matched =
                        (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
