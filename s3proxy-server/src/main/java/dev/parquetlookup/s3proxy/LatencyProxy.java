package dev.parquetlookup.s3proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 in front of an HTTP/1.1 server (S3Proxy) that holds the first byte of
 * every response for D ms, to measure clients at object-storage latency on loopback. Keep-alive
 * connections keep working: each direction is framed (request and response heads parsed, bodies
 * skipped by {@code Content-Length} or chunks), so the delay applies once per response message, and
 * requests are counted and tracked in flight from their first byte until their final response's
 * last byte is forwarded (or the connection ends).
 *
 * <p>The delay adds to the server's own time: a response the server starts after {@code t} ms
 * reaches the client after {@code t + D} ms. D can change at run time ({@link #setDelay}); a
 * response already being held keeps the delay it started with.
 *
 * <pre>{@code
 * try (LatencyProxy proxy = LatencyProxy.start(s3.port(), Duration.ofMillis(20))) {
 *     Map<String, String> hadoop = s3.hadoopOptions();
 *     hadoop.put("fs.s3a.endpoint", proxy.endpoint());
 *     ... run the job ...
 *     LatencyProxy.Stats stats = proxy.stats(); // requests, GETs, bytes, in flight (mean, max)
 *     proxy.setDelay(Duration.ZERO);
 *     proxy.resetStats(); // a new measuring window
 * }
 * }</pre>
 *
 * <p>{@link #setFaults} injects faults into chosen responses and connections ({@link Faults}: held
 * responses, resets mid-body, cut listings, 503 answers, refused connections).
 *
 * <p>Two platform threads per client connection (one per direction), one accept thread; {@link
 * #close()} closes every socket and joins every thread. JDK only, like {@link S3ProxyServer}.
 */
public final class LatencyProxy implements AutoCloseable {

    /**
     * Counters of one measuring window (since start or the last {@link #resetStats()}).
     *
     * @param requests requests whose first byte arrived
     * @param gets of which {@code GET}
     * @param heads of which {@code HEAD}
     * @param puts of which {@code PUT} or {@code POST}
     * @param completed requests whose final response was forwarded completely
     * @param requestBytes bytes forwarded client to server
     * @param responseBytes bytes forwarded server to client (heads and bodies)
     * @param inFlight requests in flight now
     * @param maxInFlight most requests in flight at once in the window
     * @param meanInFlight time-weighted mean of requests in flight over the window
     * @param meanRequestMillis mean time from a request's first byte to its response's last byte
     *     forwarded, over completed requests (includes the delay)
     * @param window the window's length
     * @param connections client connections accepted in the window
     * @param openConnections client connections open now
     */
    public record Stats(
            long requests,
            long gets,
            long heads,
            long puts,
            long completed,
            long requestBytes,
            long responseBytes,
            int inFlight,
            int maxInFlight,
            double meanInFlight,
            double meanRequestMillis,
            Duration window,
            long connections,
            int openConnections) {}

    private static final int BUFFER = 64 * 1024;
    private static final long HOLD_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int CUT_AFTER_BODY_BYTES = 16;

    /** The proxy's own answer to a ranged GET picked for an injected 503. */
    private static final byte[] SLOW_DOWN = slowDown();

    private static byte[] slowDown() {
        String body =
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>SlowDown</Code>"
                        + "<Message>Please reduce your request rate (injected).</Message></Error>";
        byte[] b = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String head =
                "HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                        + b.length
                        + "\r\n\r\n";
        byte[] h = head.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] all = java.util.Arrays.copyOf(h, h.length + b.length);
        System.arraycopy(b, 0, all, h.length, b.length);
        return all;
    }

    /** A request whose head was parsed: its method and what faults it may get. */
    private record Sent(String method, boolean rangedGet, boolean listing) {}

    private enum Fault {
        NONE,
        HOLD,
        CUT,
        ERROR
    }

    /** The faults set and what they injected: 1 in N by counters, hold times by a seeded draw. */
    private static final class FaultState {
        private final Faults faults;
        private final AtomicLong rangedGets = new AtomicLong();
        private final AtomicLong listings = new AtomicLong();
        private final AtomicLong accepted = new AtomicLong();
        private final java.util.Random random;
        private final AtomicLong held = new AtomicLong();
        private final AtomicLong resets = new AtomicLong();
        private final AtomicLong cutListings = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong refused = new AtomicLong();

        FaultState(Faults faults) {
            this.faults = faults;
            this.random = new java.util.Random(faults.seed());
        }

        private static boolean nth(int oneIn, long n) {
            return oneIn > 0 && n % oneIn == oneIn - 1;
        }

        /** The fault for the response to {@code sent} (null: not known), counted. */
        Fault pick(Sent sent) {
            if (sent == null) {
                return Fault.NONE;
            }
            if (sent.rangedGet()) {
                long n = rangedGets.getAndIncrement();
                if (nth(faults.errorOneIn(), n)) {
                    errors.incrementAndGet();
                    return Fault.ERROR;
                }
                if (nth(faults.resetOneIn(), n)) {
                    resets.incrementAndGet();
                    return Fault.CUT;
                }
                if (nth(faults.holdOneIn(), n)) {
                    held.incrementAndGet();
                    return Fault.HOLD;
                }
            } else if (sent.listing()) {
                long n = listings.getAndIncrement();
                if (nth(faults.cutListingOneIn(), n)) {
                    cutListings.incrementAndGet();
                    return Fault.CUT;
                }
            }
            return Fault.NONE;
        }

        synchronized long holdNanos() {
            long min = faults.holdMin().toNanos();
            long span = faults.holdMax().toNanos() - min;
            return min + (span == 0 ? 0 : (long) (random.nextDouble() * span));
        }

        boolean refuse() {
            long n = accepted.getAndIncrement();
            if (nth(faults.refuseOneIn(), n)) {
                refused.incrementAndGet();
                return true;
            }
            return false;
        }

        Faults.Counts counts() {
            return new Faults.Counts(
                    held.get(), resets.get(), cutListings.get(), errors.get(), refused.get());
        }
    }

    private final ServerSocket server;
    private final int upstreamPort;
    private final Thread acceptor;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile long delayNanos;
    private volatile boolean closed;
    private volatile FaultState faults = new FaultState(Faults.none());

    private final ProxyCounters counters = new ProxyCounters();

    private LatencyProxy(int upstreamPort, Duration delay) throws IOException {
        this.upstreamPort = upstreamPort;
        setDelay(delay);
        this.server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
        this.acceptor = new Thread(this::acceptLoop, "latency-proxy-" + port() + "-accept");
        acceptor.setDaemon(true);
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code 127.0.0.1:upstreamPort}.
     *
     * @param delay how long each response's first byte is held (zero: none)
     */
    public static LatencyProxy start(int upstreamPort, Duration delay) throws IOException {
        LatencyProxy proxy = new LatencyProxy(upstreamPort, delay);
        proxy.acceptor.start();
        return proxy;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code http://127.0.0.1:PORT}, for {@code fs.s3a.endpoint}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    public Duration delay() {
        return Duration.ofNanos(delayNanos);
    }

    /** Changes D for responses that start from now on. */
    public void setDelay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("The delay must be >= 0, got " + delay);
        }
        this.delayNanos = delay.toNanos();
    }

    /** Injects {@code faults} from now on (see {@link Faults}); their counts start again. */
    public void setFaults(Faults faults) {
        this.faults = new FaultState(faults);
    }

    /** The faults injected since the last {@link #setFaults}. */
    public Faults.Counts faultCounts() {
        return faults.counts();
    }

    /** The counters of the window since start or the last {@link #resetStats()}. */
    public Stats stats() {
        return counters.stats(connections.size());
    }

    /** Starts a new measuring window (requests in flight now stay in flight). */
    public void resetStats() {
        counters.reset();
    }

    /** Closes the listening socket and every connection, and waits for their threads. */
    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(10));
            for (Connection c : connections) {
                c.close();
            }
            for (Connection c : connections) {
                c.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (faults.refuse()) {
                reset(client);
                continue;
            }
            try {
                Connection c = new Connection(client);
                connections.add(c);
                counters.accepted();
                if (closed) {
                    c.close();
                }
                c.start();
            } catch (IOException e) {
                closeQuietly(client); // the server is unreachable: the client sees a reset
            }
        }
    }

    /** Closes {@code s} with a reset (RST) instead of an orderly close. */
    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closing anyway
        }
        closeQuietly(s);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    /** One client connection and its upstream connection, pumped by two threads. */
    private final class Connection {
        private final Socket client;
        private final Socket upstream;
        private final Thread up;
        private final Thread down;
        // Start times of the requests sent and not yet answered (HTTP/1.1: answered in order).
        private final ArrayDeque<Long> pending = new ArrayDeque<>();
        // Those requests whose heads were parsed, for the responses' framing (HEAD) and faults.
        private final ArrayDeque<Sent> methods = new ArrayDeque<>();
        private final AtomicInteger livePumps = new AtomicInteger(2);
        private boolean framingLost;

        Connection(Socket client) throws IOException {
            this.client = client;
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort));
                s.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(s);
                throw e;
            }
            this.upstream = s;
            long id = connectionIds.incrementAndGet();
            String name = "latency-proxy-" + port() + "-c" + id;
            this.up = new Thread(this::pumpRequests, name + "-up");
            this.down = new Thread(this::pumpResponses, name + "-down");
            up.setDaemon(true);
            down.setDaemon(true);
        }

        void start() {
            up.start();
            down.start();
        }

        void close() {
            closeQuietly(client);
            closeQuietly(upstream);
        }

        void join() throws InterruptedException {
            up.join();
            down.join();
        }

        private void pumpRequests() {
            HttpFramer framer = new HttpFramer(false);
            byte[] buf = new byte[BUFFER];
            try (InputStream in = client.getInputStream()) {
                OutputStream out = upstream.getOutputStream();
                boolean framing = true;
                int n;
                while ((n = in.read(buf)) > 0) {
                    int pos = 0;
                    while (framing && pos < n) {
                        if (framer.atMessageStart()) {
                            long now = System.nanoTime();
                            synchronized (this) {
                                pending.addLast(now);
                            }
                            counters.requestStarted(now);
                        }
                        boolean hadHead = framer.headParsed();
                        try {
                            pos += framer.consume(buf, pos, n - pos);
                        } catch (HttpFramer.NotHttpException e) {
                            framing = false;
                            loseFraming();
                            break;
                        }
                        if (!hadHead && (framer.headParsed() || framer.messageComplete())) {
                            counters.requestMethod(framer.method());
                            Sent sent =
                                    new Sent(
                                            framer.method(),
                                            framer.method().equals("GET") && framer.ranged(),
                                            framer.method().equals("GET")
                                                    && framer.target().contains("list-type="));
                            synchronized (this) {
                                methods.addLast(sent);
                            }
                        }
                    }
                    // Count and frame before forwarding: the server cannot answer before.
                    counters.forwarded(true, n);
                    out.write(buf, 0, n);
                    out.flush();
                }
                upstream.shutdownOutput(); // the client half-closed
            } catch (IOException e) {
                close();
            } finally {
                finish();
            }
        }

        private void pumpResponses() {
            HttpFramer framer = new HttpFramer(true);
            byte[] buf = new byte[BUFFER];
            try (InputStream in = upstream.getInputStream()) {
                OutputStream out = client.getOutputStream();
                boolean framing = true;
                boolean dropping = false; // the server's answer replaced by the proxy's 503
                boolean cutting = false; // this response is cut after its head and a few bytes
                int bodyForwarded = 0;
                int n;
                while ((n = in.read(buf)) > 0) {
                    counters.forwarded(false, n);
                    int pos = 0;
                    while (pos < n) {
                        if (!framing) {
                            out.write(buf, pos, n - pos);
                            pos = n;
                            break;
                        }
                        if (framer.atMessageStart()) {
                            Sent sent;
                            synchronized (this) {
                                sent = methods.peekFirst();
                                framer.setNextResponseToHead(
                                        sent != null && sent.method().equals("HEAD"));
                            }
                            FaultState f = faults;
                            Fault fault = f.pick(sent);
                            hold(delayNanos + (fault == Fault.HOLD ? f.holdNanos() : 0));
                            dropping = fault == Fault.ERROR;
                            cutting = fault == Fault.CUT;
                            bodyForwarded = 0;
                            if (dropping) {
                                out.write(SLOW_DOWN);
                                out.flush();
                            }
                        }
                        boolean inHead = !framer.headParsed() && !framer.messageComplete();
                        int used;
                        try {
                            // A response being cut is framed byte by byte up to its cut.
                            used = framer.consume(buf, pos, cutting ? 1 : n - pos);
                        } catch (HttpFramer.NotHttpException e) {
                            framing = false;
                            loseFraming();
                            continue;
                        }
                        if (framer.messageComplete() && !framer.interim() && !cutting) {
                            // Counted before its last bytes go out, so a client that has its
                            // answer always finds it counted.
                            answered();
                        }
                        if (!dropping) {
                            out.write(buf, pos, used);
                        }
                        pos += used;
                        if (cutting && !inHead && ++bodyForwarded >= CUT_AFTER_BODY_BYTES
                                || cutting && framer.messageComplete()) {
                            out.flush();
                            reset(client);
                            throw new SocketException("response cut by an injected fault");
                        }
                        if (framer.messageComplete()) {
                            dropping = false;
                        }
                    }
                    out.flush();
                }
                client.shutdownOutput(); // the server half-closed
            } catch (IOException e) {
                close();
            } finally {
                finish();
            }
        }

        /** The final response to the oldest pending request was forwarded. */
        private void answered() {
            Long startedAt;
            synchronized (this) {
                startedAt = pending.pollFirst();
                methods.pollFirst();
            }
            if (startedAt != null) {
                counters.requestEnded(System.nanoTime(), startedAt, true);
            }
        }

        /** Not HTTP/1.1 as expected: stop counting this connection's requests, keep forwarding. */
        private void loseFraming() {
            synchronized (this) {
                if (framingLost) {
                    return;
                }
                framingLost = true;
            }
            endPending();
        }

        private void endPending() {
            long now = System.nanoTime();
            while (true) {
                Long startedAt;
                synchronized (this) {
                    startedAt = pending.pollFirst();
                    methods.clear();
                }
                if (startedAt == null) {
                    return;
                }
                counters.requestEnded(now, startedAt, false);
            }
        }

        private void finish() {
            if (Thread.currentThread() == down) {
                // No more responses can come: requests still out are over (aborted).
                close();
                endPending();
            }
            if (livePumps.decrementAndGet() == 0) {
                close();
                connections.remove(this);
            }
        }
    }

    /**
     * Holds the calling pump thread for {@code nanos}: the injected latency itself (in slices, so
     * that {@link #close()} does not wait for a long hold).
     */
    private void hold(long nanos) throws IOException {
        long deadline = System.nanoTime() + nanos;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            if (closed) {
                throw new SocketException("the proxy closed");
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(left, HOLD_SLICE_NANOS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SocketException("interrupted while delaying a response");
            }
        }
    }
}
