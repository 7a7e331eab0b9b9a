package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cancelled GET of the S3 store's client ({@link NettyS3RangeReader}: a hedge's loser) against a
 * loopback server the test drives, with one connection allowed: a short answer arriving after the
 * cancel is drained and its connection carries the next GET (the server sees one connection), and
 * none of its bytes reach a caller (the server answers it with bytes that are not the file's); an
 * answer that does not come within {@value NettyS3RangeReader#DRAIN_MILLIS} ms, or one too long to
 * drain, has its connection closed, and the next GET opens another. A GET waiting for the
 * connection is not on the wire yet ({@link AsyncRangeReader.Sent}), so a hedging reader does not
 * time it.
 */
class CancelledGetDrainTest {

    private static final byte[] DATA = new byte[3 << 20];
    private static final FileId FILE =
            new FileId("s3a://drain/blob.bin", DATA.length, 1L, "\"etag\"", null);

    static {
        new SplittableRandom(26).nextBytes(DATA);
    }

    private HandServer server;
    private FileSystem fs;
    private NettyS3RangeReader reader;

    @BeforeEach
    void start() throws IOException {
        server = new HandServer();
        Configuration conf = new Configuration();
        conf.set("fs.s3a.endpoint", "http://127.0.0.1:" + server.port());
        conf.set("fs.s3a.endpoint.region", "us-east-1");
        conf.set("fs.s3a.path.style.access", "true");
        conf.set("fs.s3a.connection.ssl.enabled", "false");
        conf.set(
                "fs.s3a.aws.credentials.provider",
                "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        conf.set("fs.s3a.access.key", "access");
        conf.set("fs.s3a.secret.key", "secret");
        conf.set("fs.s3a.bucket.probe", "0");
        conf.set("fs.s3a.connection.maximum", "1");
        fs = FileSystem.newInstance(URI.create("s3a://drain/"), conf);
        reader = NettyS3RangeReader.forFileSystem(fs);
    }

    @AfterEach
    void stop() throws IOException {
        reader.close();
        fs.close();
        server.close();
    }

    private byte[] get(FileRange range) throws Exception {
        return reader.readAll(FILE, List.of(range)).get(1, TimeUnit.MINUTES)[0];
    }

    private static byte[] bytes(FileRange range) {
        return Arrays.copyOfRange(DATA, (int) range.offset(), (int) range.end());
    }

    private static long sentNanos(CompletableFuture<byte[][]> get) {
        return ((AsyncRangeReader.Sent) get).sentNanos();
    }

    @Test
    void aCancelledGetsShortAnswerIsDrainedAndItsConnectionCarriesTheNextGet() throws Exception {
        FileRange first = new FileRange(0, 1000);
        assertThat(get(first)).isEqualTo(bytes(first)); // opens the one connection
        server.holdRequest(2, true);
        CompletableFuture<byte[][]> loser =
                reader.readAll(FILE, List.of(new FileRange(4096, 8192)));
        assertThat(server.held.await(1, TimeUnit.MINUTES))
                .isTrue(); // on the wire, its answer held by the server
        assertThat(sentNanos(loser)).isNotEqualTo(AsyncRangeReader.Sent.NOT_YET);
        FileRange nextRange = new FileRange(20_000, 3000);
        CompletableFuture<byte[][]> next = reader.readAll(FILE, List.of(nextRange));
        assertThat(sentNanos(next))
                .as("waits for the one connection: not on the wire")
                .isEqualTo(AsyncRangeReader.Sent.NOT_YET);
        assertThat(loser.cancel(true)).isTrue();
        server.release.countDown(); // the loser's answer (bytes not the file's) comes now
        assertThat(next.get(1, TimeUnit.MINUTES)[0])
                .as("the next GET's own bytes, not the drained answer's")
                .isEqualTo(bytes(nextRange));
        assertThat(sentNanos(next)).isNotEqualTo(AsyncRangeReader.Sent.NOT_YET);
        assertThat(loser).isCancelled();
        assertThat(server.connections()).as("the drained connection was reused").isEqualTo(1);
        assertThat(server.requests()).isEqualTo(3);
    }

    @Test
    void anAnswerThatDoesNotComeWithinTheDrainTimeHasItsConnectionClosed() throws Exception {
        FileRange first = new FileRange(0, 1000);
        assertThat(get(first)).isEqualTo(bytes(first));
        server.holdRequest(2, false); // never answered
        CompletableFuture<byte[][]> loser =
                reader.readAll(FILE, List.of(new FileRange(4096, 8192)));
        assertThat(server.held.await(1, TimeUnit.MINUTES)).isTrue();
        FileRange nextRange = new FileRange(50_000, 3000);
        CompletableFuture<byte[][]> next = reader.readAll(FILE, List.of(nextRange));
        long cancelled = System.nanoTime();
        loser.cancel(true);
        assertThat(next.get(1, TimeUnit.MINUTES)[0]).isEqualTo(bytes(nextRange));
        assertThat(System.nanoTime() - cancelled)
                .as("the connection is given up after the drain time, not before")
                .isGreaterThanOrEqualTo(
                        TimeUnit.MILLISECONDS.toNanos(NettyS3RangeReader.DRAIN_MILLIS));
        assertThat(server.connections()).as("the held one closed, another opened").isEqualTo(2);
        server.release.countDown();
    }

    @Test
    void aCancelledGetTooLongToDrainHasItsConnectionClosedAtOnce() throws Exception {
        FileRange first = new FileRange(0, 1000);
        assertThat(get(first)).isEqualTo(bytes(first));
        server.holdRequest(2, false);
        CompletableFuture<byte[][]> loser =
                reader.readAll(
                        FILE, List.of(new FileRange(0, NettyS3RangeReader.MAX_DRAIN_BYTES + 1)));
        assertThat(server.held.await(1, TimeUnit.MINUTES)).isTrue();
        FileRange nextRange = new FileRange(70_000, 3000);
        CompletableFuture<byte[][]> next = reader.readAll(FILE, List.of(nextRange));
        long cancelled = System.nanoTime();
        loser.cancel(true);
        assertThat(next.get(1, TimeUnit.MINUTES)[0]).isEqualTo(bytes(nextRange));
        assertThat(System.nanoTime() - cancelled)
                .as("closed at once, not after the drain time")
                .isLessThan(TimeUnit.MILLISECONDS.toNanos(NettyS3RangeReader.DRAIN_MILLIS));
        assertThat(server.connections()).isEqualTo(2);
        server.release.countDown();
    }

    /**
     * An HTTP/1.1 server on loopback that answers each ranged GET with the file's bytes ({@code
     * 206}, a length), keeping connections alive; the request chosen by {@link #holdRequest} is
     * held until {@link #release} and then answered with bytes that are not the file's, or never.
     */
    private static final class HandServer implements AutoCloseable {
        private static final Pattern RANGE =
                Pattern.compile("(?im)^range: bytes=(\\d+)-(\\d+)\\r?$");

        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final ServerSocket server = new ServerSocket();
        private final AtomicInteger connections = new AtomicInteger();
        private final AtomicInteger requests = new AtomicInteger();
        private volatile int holdIndex = -1;
        private volatile boolean answerHeld;

        HandServer() throws IOException {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = new Thread(this::accept, "drain-test-server");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int connections() {
            return connections.get();
        }

        int requests() {
            return requests.get();
        }

        /** Holds the {@code index}-th request (from 1); answers it once released if asked. */
        void holdRequest(int index, boolean answer) {
            answerHeld = answer;
            holdIndex = index;
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    connections.incrementAndGet();
                    Thread t = new Thread(() -> serve(client), "drain-test-connection");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return; // closed
                }
            }
        }

        private void serve(Socket client) {
            try (client) {
                InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream();
                for (String head; (head = readHead(in)) != null; ) {
                    int index = requests.incrementAndGet();
                    Matcher m = RANGE.matcher(head);
                    if (!m.find()) {
                        throw new IOException("no range in " + head);
                    }
                    int from = Integer.parseInt(m.group(1));
                    int to = Integer.parseInt(m.group(2));
                    byte[] body = Arrays.copyOfRange(DATA, from, to + 1);
                    if (index == holdIndex) {
                        held.countDown();
                        release.await();
                        if (!answerHeld) {
                            return;
                        }
                        Arrays.fill(body, (byte) 0x5A); // not the file's bytes
                    }
                    out.write(
                            String.format(
                                            Locale.ROOT,
                                            "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes"
                                                    + " %d-%d/%d\r\nContent-Length: %d\r\n\r\n",
                                            from,
                                            to,
                                            DATA.length,
                                            body.length)
                                    .getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the client closed the connection, or the test ended
            }
        }

        /** The next request's head, or null at the end of the connection. */
        private static String readHead(InputStream in) throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
                matched =
                        (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            return head.toString(StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
