package dev.parquetlookup.bench;

import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The test server's own ceiling: ranged GETs per second that S3Proxy (with the latency proxy at D =
 * 0 in the path) serves on this machine when many clients ask at once. Each client thread keeps one
 * HTTP/1.1 connection and issues one signed (AWS signature V2) ranged GET at a time at random
 * offsets of the file, reading each body completely: a client far lighter than S3A, so the figure
 * is the server's (and the loopback path's), not a client's. A lookup result at or near this
 * ceiling is limited by the test server on this machine, not by the connector.
 *
 * <pre>{@code
 * S3Ceiling.Result r = S3Ceiling.measure(proxy, "bench", "seed/f.parquet", length, 64, 8192,
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

    private static final DateTimeFormatter HTTP_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);

    private S3Ceiling() {}

    static Result measure(
            LatencyProxy proxy,
            String bucket,
            String key,
            long length,
            int clients,
            int rangeBytes,
            Duration window)
            throws Exception {
        if (length <= rangeBytes) {
            throw new IllegalStateException(
                    key + " is too short (" + length + " bytes) for the ceiling's ranges");
        }
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            // Warm-up (connections, JIT in both JVMs) for half the window, then the window.
            runClients(
                    pool, proxy, bucket, key, length, clients, rangeBytes, window.dividedBy(2), 1);
            proxy.resetStats();
            runClients(pool, proxy, bucket, key, length, clients, rangeBytes, window, 2);
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
            LatencyProxy proxy,
            String bucket,
            String key,
            long length,
            int clients,
            int rangeBytes,
            Duration window,
            long salt)
            throws Exception {
        long deadline = System.nanoTime() + window.toNanos();
        List<Future<Long>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            SplittableRandom random = new SplittableRandom(0xCE111L * 31 + c * 7919L + salt);
            done.add(
                    pool.submit(
                            () ->
                                    client(
                                            proxy.port(),
                                            bucket,
                                            key,
                                            length,
                                            rangeBytes,
                                            deadline,
                                            random)));
        }
        for (Future<Long> f : done) {
            f.get(window.toMillis() + 120_000, TimeUnit.MILLISECONDS);
        }
    }

    private static long client(
            int port,
            String bucket,
            String key,
            long length,
            int rangeBytes,
            long deadline,
            SplittableRandom r)
            throws Exception {
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(
                new SecretKeySpec(
                        S3ProxyServer.SECRET_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String resource = "/" + bucket + "/" + key;
        String date = "";
        String authorization = "";
        long reads = 0;
        byte[] body = new byte[rangeBytes];
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(60_000);
            InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
            OutputStream out = socket.getOutputStream();
            while (System.nanoTime() < deadline) {
                String now = HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC));
                if (!now.equals(date)) {
                    date = now;
                    byte[] signature =
                            mac.doFinal(
                                    ("GET\n\n\n" + date + "\n" + resource)
                                            .getBytes(StandardCharsets.UTF_8));
                    authorization =
                            "AWS "
                                    + S3ProxyServer.ACCESS_KEY
                                    + ":"
                                    + Base64.getEncoder().encodeToString(signature);
                }
                long offset = r.nextLong(length - rangeBytes);
                String request =
                        "GET "
                                + resource
                                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                                + port
                                + "\r\nDate: "
                                + date
                                + "\r\nRange: bytes="
                                + offset
                                + "-"
                                + (offset + rangeBytes - 1)
                                + "\r\nAuthorization: "
                                + authorization
                                + "\r\n\r\n";
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String head = readHead(in);
                long contentLength = contentLength(head);
                if (!head.startsWith("HTTP/1.1 206") || contentLength != rangeBytes) {
                    throw new IOException(
                            "the ceiling's ranged GET got an unexpected answer: "
                                    + head.lines().findFirst().orElse(head)
                                    + " (Content-Length "
                                    + contentLength
                                    + ", expected 206 with "
                                    + rangeBytes
                                    + " bytes)");
                }
                int read = 0;
                while (read < rangeBytes) {
                    int n = in.read(body, read, rangeBytes - read);
                    if (n < 0) {
                        throw new IOException("the server closed the connection mid-body");
                    }
                    read += n;
                }
                reads++;
            }
        }
        return reads;
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder(512);
        int tail = 0;
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("the server closed the connection before a response head");
            }
            sb.append((char) b);
            tail = (tail << 8) | b;
            if (tail == 0x0d0a0d0a) {
                return sb.toString();
            }
            if (sb.length() > 64 * 1024) {
                throw new IOException("no end of a response head in 64 KiB");
            }
        }
    }

    private static long contentLength(String head) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                return Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        return -1;
    }
}
