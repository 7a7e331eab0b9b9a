package dev.parquetlookup.s3proxy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LatencyProxy} in front of the JDK's HTTP/1.1 server on loopback. */
class LatencyProxyTest {

    private static final int CONCURRENT = 8;

    private HttpServer server;
    private ExecutorService serverThreads;
    private volatile CountDownLatch allArrived = new CountDownLatch(0);

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        serverThreads = Executors.newFixedThreadPool(CONCURRENT * 2);
        server.setExecutor(serverThreads);
        // GET /page/N: N bytes, with Content-Length
        server.createContext("/page/", this::page);
        // GET /chunked/N: N bytes, chunked
        server.createContext("/chunked/", this::chunked);
        // POST /echo: the body back
        server.createContext("/echo", this::echo);
        // GET /barrier: answers once CONCURRENT requests are in the server at once
        server.createContext("/barrier", this::barrier);
        server.start();
    }

    @AfterEach
    void stopServer() throws InterruptedException {
        server.stop(0);
        serverThreads.shutdownNow();
        assertThat(serverThreads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void keepAliveRequestsAreEachDelayedAndCounted() throws Exception {
        Duration delay = Duration.ofMillis(40);
        try (LatencyProxy proxy = LatencyProxy.start(server.getAddress().getPort(), delay)) {
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                byte[] body = get(proxy, "/page/" + (1000 + i), "GET");
                long elapsed = System.nanoTime() - start;
                assertThat(body).isEqualTo(bytes(1000 + i));
                assertThat(Duration.ofNanos(elapsed)).isGreaterThanOrEqualTo(delay);
            }
            LatencyProxy.Stats stats = proxy.stats();
            assertThat(stats.requests()).isEqualTo(5);
            assertThat(stats.gets()).isEqualTo(5);
            assertThat(stats.completed()).isEqualTo(5);
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.maxInFlight()).isEqualTo(1);
            // keep-alive: the client reused its connection through the proxy
            assertThat(stats.connections()).isEqualTo(1);
            assertThat(stats.meanRequestMillis()).isGreaterThanOrEqualTo(40.0);
            assertThat(stats.responseBytes()).isGreaterThan(5 * 1000);
        }
    }

    @Test
    void chunkedHeadAndBodiesKeepTheirFraming() throws Exception {
        try (LatencyProxy proxy =
                LatencyProxy.start(server.getAddress().getPort(), Duration.ZERO)) {
            assertThat(get(proxy, "/chunked/70000", "GET")).isEqualTo(bytes(70000));
            assertThat(get(proxy, "/page/500", "HEAD")).isEmpty();
            byte[] payload = bytes(100_000);
            assertThat(post(proxy, "/echo", payload)).isEqualTo(payload);
            assertThat(get(proxy, "/page/10", "GET")).isEqualTo(bytes(10));

            LatencyProxy.Stats stats = proxy.stats();
            assertThat(stats.requests()).isEqualTo(4);
            assertThat(stats.gets()).isEqualTo(2);
            assertThat(stats.heads()).isEqualTo(1);
            assertThat(stats.puts()).isEqualTo(1);
            assertThat(stats.completed()).isEqualTo(4);
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.requestBytes()).isGreaterThan(100_000);
            assertThat(stats.responseBytes()).isGreaterThan(170_000);
        }
    }

    @Test
    void concurrentRequestsAreTrackedInFlight() throws Exception {
        allArrived = new CountDownLatch(CONCURRENT);
        ExecutorService clients = Executors.newFixedThreadPool(CONCURRENT);
        try (LatencyProxy proxy =
                LatencyProxy.start(server.getAddress().getPort(), Duration.ofMillis(10))) {
            List<Future<byte[]>> answers = new ArrayList<>();
            for (int i = 0; i < CONCURRENT; i++) {
                answers.add(clients.submit(() -> get(proxy, "/barrier", "GET")));
            }
            for (Future<byte[]> answer : answers) {
                assertThat(new String(answer.get(60, TimeUnit.SECONDS), StandardCharsets.US_ASCII))
                        .isEqualTo("all here");
            }
            LatencyProxy.Stats stats = proxy.stats();
            assertThat(stats.requests()).isEqualTo(CONCURRENT);
            assertThat(stats.completed()).isEqualTo(CONCURRENT);
            assertThat(stats.maxInFlight()).isEqualTo(CONCURRENT);
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.meanInFlight()).isGreaterThan(0.0).isLessThanOrEqualTo(CONCURRENT);

            proxy.resetStats();
            LatencyProxy.Stats fresh = proxy.stats();
            assertThat(fresh.requests()).isZero();
            assertThat(fresh.maxInFlight()).isZero();
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void theDelayChangesAtRunTime() throws Exception {
        try (LatencyProxy proxy =
                LatencyProxy.start(server.getAddress().getPort(), Duration.ZERO)) {
            assertThat(get(proxy, "/page/1", "GET")).isEqualTo(bytes(1));
            Duration delay = Duration.ofMillis(120);
            proxy.setDelay(delay);
            assertThat(proxy.delay()).isEqualTo(delay);
            long start = System.nanoTime();
            assertThat(get(proxy, "/page/2", "GET")).isEqualTo(bytes(2));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(delay);
            assertThatThrownBy(() -> proxy.setDelay(Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void closeEndsEveryThreadAndSocket() throws Exception {
        LatencyProxy proxy = LatencyProxy.start(server.getAddress().getPort(), Duration.ZERO);
        int port = proxy.port();
        // an idle keep-alive connection and a half-sent request stay open until close
        Socket idle = new Socket(InetAddress.getLoopbackAddress(), port);
        Socket halfSent = new Socket(InetAddress.getLoopbackAddress(), port);
        halfSent.getOutputStream().write("GET /page/5 HTTP/1.1\r\nHost: x\r\n".getBytes());
        halfSent.getOutputStream().flush();
        assertThat(get(proxy, "/page/3", "GET")).isEqualTo(bytes(3));
        proxy.close();
        try (idle;
                halfSent) {
            assertClosedByPeer(idle);
            assertClosedByPeer(halfSent);
        }
        assertThat(proxy.stats().openConnections()).isZero();
        assertThat(proxy.stats().inFlight()).isZero();
        String prefix = "latency-proxy-" + port + "-";
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith(prefix) && t.isAlive());
        assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                .isInstanceOf(IOException.class);
    }

    /** The peer closed: end of stream, or a reset if it closed with bytes unread. */
    private static void assertClosedByPeer(Socket s) {
        int read;
        try {
            read = s.getInputStream().read();
        } catch (IOException reset) {
            return;
        }
        assertThat(read).isEqualTo(-1);
    }

    private static byte[] get(LatencyProxy proxy, String path, String method) throws IOException {
        HttpURLConnection c =
                (HttpURLConnection) URI.create(proxy.endpoint() + path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setReadTimeout(60_000);
        assertThat(c.getResponseCode()).isEqualTo(200);
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    private static byte[] post(LatencyProxy proxy, String path, byte[] body) throws IOException {
        HttpURLConnection c =
                (HttpURLConnection) URI.create(proxy.endpoint() + path).toURL().openConnection();
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        c.setReadTimeout(60_000);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        assertThat(c.getResponseCode()).isEqualTo(200);
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    private void page(HttpExchange exchange) throws IOException {
        int n = Integer.parseInt(exchange.getRequestURI().getPath().substring("/page/".length()));
        byte[] body = bytes(n);
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(n));
            exchange.sendResponseHeaders(200, -1);
        } else {
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
        exchange.close();
    }

    private void chunked(HttpExchange exchange) throws IOException {
        int n =
                Integer.parseInt(
                        exchange.getRequestURI().getPath().substring("/chunked/".length()));
        byte[] body = bytes(n);
        exchange.sendResponseHeaders(200, 0); // 0: chunked
        try (OutputStream out = exchange.getResponseBody()) {
            for (int off = 0; off < n; off += 4096) {
                out.write(body, off, Math.min(4096, n - off));
                out.flush();
            }
        }
        exchange.close();
    }

    private void echo(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }

    private void barrier(HttpExchange exchange) throws IOException {
        allArrived.countDown();
        try {
            if (!allArrived.await(60, TimeUnit.SECONDS)) {
                exchange.sendResponseHeaders(500, -1);
                exchange.close();
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.close();
            return;
        }
        byte[] body = "all here".getBytes(StandardCharsets.US_ASCII);
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }
}
