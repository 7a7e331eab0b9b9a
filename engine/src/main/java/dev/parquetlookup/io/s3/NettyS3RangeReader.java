package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.hadoop.fs.FileSystem;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Owns ranged GETs of {@code s3a://} files, the S3 store's {@link AsyncRangeReader}: a small
 * HTTP/1.1 client on Netty (the Netty jars the AWS SDK's {@code netty-nio-client} brings) made for
 * one kind of request, a signed GET without a body: each GET's bytes are written by {@link
 * S3RangeRequests} (signed by {@link S3GetSigner} once per object and second) straight into one
 * pooled buffer on a kept-alive connection, its answer framed by {@link HttpAnswerParser} (no
 * header objects) and its body copied once, from Netty's pooled buffers straight into an array of
 * the range's length. It replaced the SDK's {@code NettyNioAsyncHttpClient} (2026-12-06), whose
 * per-request pipeline (reactive-streams adapters, handlers added and removed per request, five
 * layers of connection pools, metrics) cost most of a GET's client CPU, and then Netty's HTTP codec
 * ({@code docs/objectstore.md}, "Cheaper requests").
 *
 * <p>Connections: two event-loop threads; a connection is taken from the idle ones (most recently
 * used first) or opened, up to {@code fs.s3a.connection.maximum} (500 by default, above any
 * in-flight bound of ours, so the connections open are at most the requests in flight; past it a
 * GET waits for a connection), carries one request at a time, goes back to the idle ones after a
 * complete answer that allows it, and is closed after {@value #MAX_IDLE_SECONDS} s idle (below
 * servers' idle timeouts, Jetty and S3: 20-30 s, so a kept connection is not reused as the server
 * closes it). TLS for {@code https} endpoints with the JDK's trust store and host-name checking.
 *
 * <p>Timeouts: {@code fs.s3a.connection.establish.timeout} bounds a connect, {@code
 * fs.s3a.connection.request.timeout} how long a request waits for the next bytes of its answer (0:
 * none), and {@value S3RangeReaderFactory#REQUEST_TIMEOUT} (10 s) how long a whole request may take
 * from its start: past either the request is aborted (its connection closed) and fails as
 * transient. Answers mean what {@link S3RangeAnswers} says. A read's future completes on an
 * event-loop thread: what follows it must not block. It does not retry: {@link
 * dev.parquetlookup.io.RetryingRangeSource} does.
 *
 * <p>Cancelling a read's future (a hedge's loser, a retry's timeout) abandons its requests: one not
 * yet written is not sent; one on the wire whose answer is at most {@value #MAX_DRAIN_BYTES} bytes
 * is drained: its answer is read to its end within {@value #DRAIN_MILLIS} ms and dropped (its
 * future is cancelled already, so no byte of it reaches a caller) and the connection goes back to
 * the idle ones; past that time, or for a larger answer, the connection is closed (HTTP/1.1 cannot
 * abort a request otherwise). Why: a hedge's loser usually answers a few milliseconds after the
 * winner, and closing its connection cost a reconnect (on loopback about a tenth of the event
 * loops' samples at 64 GETs in flight, {@code docs/objectstore.md}).
 */
final class NettyS3RangeReader implements AsyncRangeReader {

    private static final Logger LOG = LoggerFactory.getLogger(NettyS3RangeReader.class);

    static final int MAX_IDLE_SECONDS = 5;

    /** A cancelled GET's answer up to this long (1 MiB, the hedged ranges) is drained. */
    static final int MAX_DRAIN_BYTES = 1 << 20;

    /** How long a cancelled GET's answer may take to drain before its connection is closed. */
    static final long DRAIN_MILLIS = 1000;

    private final S3RangeRequests s3;
    private final EventLoopGroup loops;
    private final Bootstrap bootstrap;
    private final SslContext ssl; // null for http
    private final int maxConnections;
    private final long idleTimeoutNanos; // 0: none
    private final long wholeTimeoutNanos; // 0: none

    /** Idle connections, the most recently used first. */
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    /** GETs waiting for a connection while {@link #maxConnections} are open. */
    private final ConcurrentLinkedQueue<Exchange> waiting = new ConcurrentLinkedQueue<>();

    /** Connections open or being opened. */
    private final AtomicInteger open = new AtomicInteger();

    private NettyS3RangeReader(S3RangeRequests s3, int maxConnections) throws IOException {
        this.s3 = s3;
        this.maxConnections = maxConnections;
        this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(s3.requestTimeoutMillis());
        this.wholeTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(s3.wholeRequestTimeoutMillis());
        this.ssl = s3.https() ? SslContextBuilder.forClient().build() : null;
        this.loops = new NioEventLoopGroup(2, new DefaultThreadFactory("parquet-lookup-s3", true));
        this.bootstrap =
                new Bootstrap()
                        .group(loops)
                        .channel(NioSocketChannel.class)
                        .option(
                                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                                (int) Math.min(Integer.MAX_VALUE, s3.connectTimeoutMillis()))
                        .option(ChannelOption.TCP_NODELAY, true)
                        .option(ChannelOption.SO_KEEPALIVE, true)
                        // A ranged GET's answer of a few KiB in one read, not from 2 KiB up.
                        .option(
                                ChannelOption.RCVBUF_ALLOCATOR,
                                new AdaptiveRecvByteBufAllocator(1024, 16 << 10, 1 << 16));
        loops.scheduleAtFixedRate(
                this::closeIdle, MAX_IDLE_SECONDS, MAX_IDLE_SECONDS, TimeUnit.SECONDS);
    }

    private SslHandler tls(SocketChannel ch) {
        SslHandler handler = ssl.newHandler(ch.alloc(), s3.hostName(), s3.port());
        SSLEngine engine = handler.engine();
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(parameters);
        handler.setHandshakeTimeoutMillis(s3.connectTimeoutMillis());
        return handler;
    }

    /** A reader for {@code s3a} with S3A's endpoint, region, path style and credentials. */
    static NettyS3RangeReader forFileSystem(FileSystem fs) throws IOException {
        S3RangeRequests s3 = S3RangeRequests.forFileSystem(fs);
        NettyS3RangeReader reader =
                new NettyS3RangeReader(
                        s3, Math.max(1, fs.getConf().getInt("fs.s3a.connection.maximum", 500)));
        LOG.info("{}: asynchronous ranged GETs through Netty at {}", fs.getUri(), s3.describe());
        return reader;
    }

    /**
     * One GET per range; the head of the GETs (request line, host, ETag, signature) is made once
     * for the read. A read of one range, what the hedging reader asks for, is its GET itself.
     */
    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        byte[] head;
        try {
            head = s3.head(file);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new IOException("cannot sign a GET of " + file.path() + ": " + e, e));
        }
        return AsyncRangeReader.eachRange(ranges, i -> get(file, head, ranges.get(i)));
    }

    @Override
    public void close() {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        for (Exchange e; (e = waiting.poll()) != null; ) {
            e.fail(new IOException("the S3 client was closed"));
        }
    }

    private Exchange get(FileId file, byte[] head, FileRange range) {
        Exchange exchange = new Exchange(file, head, range);
        Connection c = takeIdle();
        if (c != null) {
            exchange.dispatchOn(c);
        } else {
            connectOrWait(exchange);
        }
        return exchange;
    }

    /** An idle connection still open, or null. */
    private Connection takeIdle() {
        for (Connection c; (c = idle.pollFirst()) != null; ) {
            if (c.channel.isActive()) {
                return c;
            }
            c.channel.close();
        }
        return null;
    }

    private void connectOrWait(Exchange exchange) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            waiting.add(exchange);
            serveWaiting(); // a connection may have gone idle meanwhile
            return;
        }
        Connection c = new Connection();
        ChannelFuture connect;
        try {
            connect =
                    bootstrap
                            .clone()
                            .handler(
                                    new ChannelInitializer<SocketChannel>() {
                                        @Override
                                        protected void initChannel(SocketChannel ch) {
                                            if (ssl != null) {
                                                ch.pipeline().addLast(tls(ch));
                                            }
                                            ch.pipeline().addLast(c);
                                        }
                                    })
                            .connect(s3.hostName(), s3.port());
        } catch (RuntimeException e) {
            open.decrementAndGet();
            exchange.fail(e);
            return;
        }
        connect.channel().closeFuture().addListener((ChannelFutureListener) f -> closed(c));
        connect.addListener(
                (ChannelFutureListener)
                        f -> {
                            if (f.isSuccess()) {
                                exchange.dispatchOn(c);
                            } else {
                                exchange.fail(f.cause());
                                f.channel().close();
                            }
                        });
    }

    /** A connection was closed: it no longer counts, and a waiting GET may open one. */
    private void closed(Connection c) {
        open.decrementAndGet();
        idle.remove(c);
        if (!waiting.isEmpty()) {
            Exchange next = waiting.poll();
            if (next != null) {
                connectOrWait(next);
            }
        }
    }

    /** A connection is free again after a complete answer. */
    private void release(Connection c) {
        if (!waiting.isEmpty()) {
            Exchange next = waiting.poll();
            if (next != null) {
                next.dispatchOn(c);
                return;
            }
        }
        c.idleSince = System.nanoTime();
        idle.addFirst(c);
        if (!waiting.isEmpty()) {
            serveWaiting();
        }
    }

    private void serveWaiting() {
        while (!waiting.isEmpty()) {
            Connection c = takeIdle();
            if (c == null) {
                return;
            }
            Exchange next = waiting.poll();
            if (next == null) {
                idle.addFirst(c);
                return;
            }
            next.dispatchOn(c);
        }
    }

    /** Closes connections idle for {@value #MAX_IDLE_SECONDS} s or more (every 5 s). */
    private void closeIdle() {
        long now = System.nanoTime();
        for (Connection c : idle) {
            if (now - c.idleSince >= TimeUnit.SECONDS.toNanos(MAX_IDLE_SECONDS) && idle.remove(c)) {
                c.channel.close();
            }
        }
    }

    /**
     * One GET of one range and its answer: its status, then its body, copied into an array of the
     * range's length (a data answer) or of at most {@link S3RangeAnswers#ERROR_BODY_BYTES} (an
     * error's XML). It completes with that one array. Cancelling it closes its connection.
     */
    private final class Exchange extends CompletableFuture<byte[][]>
            implements Runnable, HttpAnswerParser.Listener, AsyncRangeReader.Sent {
        private final FileId file;
        private final FileRange range;
        private final long startNanos = System.nanoTime();
        private byte[] head; // until sent
        private volatile long sentNanos = NOT_YET;
        // Set and read on the connection's event loop, except `connection` (volatile for cancel).
        private volatile Connection connection;
        private long lastReadNanos;
        private int status;
        private byte[] body;
        private int held; // bytes of the body in `body`
        private long received; // bytes of the body received
        private long drainUntil; // cancelled, its answer drained until then; 0: not drained

        Exchange(FileId file, byte[] head, FileRange range) {
            this.file = file;
            this.head = head;
            this.range = range;
        }

        void dispatchOn(Connection c) {
            connection = c;
            EventLoop loop = c.channel.eventLoop();
            if (loop.inEventLoop()) {
                run();
            } else {
                loop.execute(this);
            }
        }

        /** On the connection's event loop: sends the request. */
        @Override
        public void run() {
            Connection c = connection;
            Channel ch = c.channel;
            if (isDone()) {
                // Cancelled while it waited for a connection: the connection is free.
                if (ch.isActive()) {
                    release(c);
                }
                return;
            }
            if (!ch.isActive()) {
                fail(new IOException("the connection was closed before the request was sent"));
                return;
            }
            c.current = this;
            lastReadNanos = System.nanoTime();
            c.armTimer(deadline(), lastReadNanos);
            ByteBuf request = ch.alloc().ioBuffer(head.length + 64);
            try {
                S3RangeRequests.writeRequest(request, head, range);
            } catch (RuntimeException e) {
                request.release();
                abort(e);
                return;
            }
            head = null;
            sentNanos = lastReadNanos;
            ch.writeAndFlush(request, ch.voidPromise());
        }

        @Override
        public long sentNanos() {
            return sentNanos;
        }

        /**
         * When this GET times out (or, drained, its connection is given up), as things stand;
         * {@code Long.MAX_VALUE} for never.
         */
        long deadline() {
            if (drainUntil != 0) {
                return drainUntil; // cancelled: only the drain's own bound applies
            }
            long deadline = Long.MAX_VALUE;
            if (wholeTimeoutNanos > 0) {
                deadline = startNanos + wholeTimeoutNanos;
            }
            if (idleTimeoutNanos > 0) {
                deadline = Math.min(deadline, lastReadNanos + idleTimeoutNanos);
            }
            return deadline;
        }

        /** On the event loop, at or after {@link #deadline()}: aborts the GET if it is past. */
        void checkTimeouts(long now) {
            if (isDone()) {
                if (drainUntil != 0 && now >= drainUntil) {
                    finished(); // its answer took too long to drain
                    connection.channel.close();
                }
                return;
            }
            if (wholeTimeoutNanos > 0 && now - startNanos >= wholeTimeoutNanos) {
                abort(
                        new TimeoutException(
                                "no complete answer within "
                                        + TimeUnit.NANOSECONDS.toMillis(wholeTimeoutNanos)
                                        + " ms ("
                                        + S3RangeReaderFactory.REQUEST_TIMEOUT
                                        + ")"));
            } else if (idleTimeoutNanos > 0 && now - lastReadNanos >= idleTimeoutNanos) {
                abort(
                        new TimeoutException(
                                "no bytes of the answer within "
                                        + TimeUnit.NANOSECONDS.toMillis(idleTimeoutNanos)
                                        + " ms (fs.s3a.connection.request.timeout)"));
            }
        }

        /** Fails the GET and closes its connection. */
        void abort(Throwable failure) {
            fail(failure);
            Connection c = connection;
            if (c != null) {
                c.channel.close();
            }
        }

        void fail(Throwable failure) {
            finished();
            completeExceptionally(S3RangeAnswers.transportFailure(file, range, failure));
        }

        private void finished() {
            Connection c = connection;
            if (c != null && c.current == this) {
                c.current = null;
            }
        }

        @Override
        public void status(int code) {
            status = code;
            if (isDone()) {
                return; // cancelled: the answer is drained, not kept
            }
            body =
                    new byte
                            [S3RangeAnswers.isData(code, range)
                                    ? range.length()
                                    : S3RangeAnswers.ERROR_BODY_BYTES];
        }

        @Override
        public void body(ByteBuf bytes, int index, int length) {
            received += length;
            if (body == null) {
                return; // drained
            }
            int copy = Math.min(length, body.length - held);
            bytes.getBytes(index, body, held, copy);
            held += copy;
        }

        /**
         * The answer's last byte came: the connection is free (a cancelled GET's too: its answer
         * was drained), the GET decided.
         */
        @Override
        public void end(boolean keepAlive) {
            finished();
            Connection c = connection;
            if (keepAlive) {
                release(c);
            } else {
                c.channel.close();
            }
            if (body == null) {
                return; // cancelled before its answer came: nothing of it is kept
            }
            if (!S3RangeAnswers.isData(status, range)) {
                completeExceptionally(
                        S3RangeAnswers.statusFailure(file, range, status, body, held));
                return;
            }
            IOException wrongLength = S3RangeAnswers.lengthFailure(file, range, status, received);
            if (wrongLength != null) {
                completeExceptionally(wrongLength);
            } else {
                complete(new byte[][] {body});
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            // What CompletableFuture.cancel does, with an exception whose stack is not filled in
            // (a hedge's loser is cancelled on an event loop, where filling it in was a share of
            // the hedge's cost): the future is cancelled all the same (isCancelled, join, get).
            boolean cancelled = completeExceptionally(new Cancelled()) || isCancelled();
            Connection c = connection;
            if (cancelled && c != null) {
                // A hedge that won or a retry's timeout: the answer is not wanted.
                EventLoop loop = c.channel.eventLoop();
                if (loop.inEventLoop()) {
                    cancelOnLoop(c);
                } else {
                    loop.execute(() -> cancelOnLoop(c));
                }
            }
            return cancelled;
        }

        /** Drains the answer if it is short, else closes the connection (see the class). */
        private void cancelOnLoop(Connection c) {
            if (c.current != this || drainUntil != 0) {
                return; // not sent (its connection is released when it would be), or answered
            }
            long now = System.nanoTime();
            if (range.length() - received <= MAX_DRAIN_BYTES && c.channel.isActive()) {
                drainUntil =
                        Math.min(deadline(), now + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS));
                body = null;
                c.armTimer(drainUntil, now);
            } else {
                finished();
                c.channel.close();
            }
        }
    }

    /** The cancellation of a GET: nothing to trace, its stack is not filled in. */
    private static final class Cancelled extends CancellationException {
        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    /**
     * The handler of one connection, and the connection in the pool: parses the answer of its
     * current GET ({@link HttpAnswerParser}) into that GET.
     */
    private static final class Connection extends ChannelInboundHandlerAdapter {
        // Set when the handler is added, before the connection is used or pooled.
        Channel channel;
        Exchange current;
        long idleSince; // written before the connection goes back to the pool
        private final HttpAnswerParser parser = new HttpAnswerParser();
        // The timer of the connection's GETs, armed lazily: a GET's deadline is later than the
        // one before it on the same connection, so one timer usually serves many GETs (one
        // scheduled task per connection and timeout period instead of one per GET).
        private ScheduledFuture<?> timer;
        private long timerAt;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        /** On the event loop: makes sure the timer fires by {@code deadline}. */
        void armTimer(long deadline, long now) {
            if (deadline == Long.MAX_VALUE || (timer != null && timerAt <= deadline)) {
                return;
            }
            if (timer != null) {
                timer.cancel(false);
            }
            timerAt = deadline;
            timer = channel.eventLoop().schedule(this::fire, deadline - now, TimeUnit.NANOSECONDS);
        }

        private void fire() {
            timer = null;
            Exchange e = current;
            if (e == null || !channel.isActive()) {
                return;
            }
            long now = System.nanoTime();
            e.checkTimeouts(now);
            if (current == e) {
                armTimer(e.deadline(), now);
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                Exchange e = current;
                if (e == null) {
                    ctx.close(); // bytes no request asked for
                    return;
                }
                e.lastReadNanos = System.nanoTime();
                try {
                    parser.feed(in, e);
                } catch (RuntimeException malformed) {
                    e.abort(malformed);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            Exchange e = current;
            if (e != null) {
                if (parser.endsAtClose()) {
                    e.end(false); // an answer without a length ends with its connection
                } else {
                    e.fail(new IOException("the connection was closed during the request"));
                }
            }
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Exchange e = current;
            if (e != null) {
                e.abort(cause);
            } else {
                ctx.close();
            }
        }
    }
}
