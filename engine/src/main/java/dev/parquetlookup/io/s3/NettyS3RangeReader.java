package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;

import org.apache.hadoop.fs.FileSystem;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkAsyncHttpResponseHandler;
import software.amazon.awssdk.http.async.SdkHttpContentPublisher;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Owns ranged GETs of {@code s3a://} files, the S3 store's {@link AsyncRangeReader}: the AWS SDK's
 * Netty HTTP client ({@link NettyNioAsyncHttpClient}: TLS, a pool of kept-alive HTTP/1.1
 * connections, timeouts) without the SDK's request pipeline (no marshalling, interceptors, endpoint
 * rules or SDK signing): each GET is an {@link SdkHttpRequest} built and signed by {@link
 * S3RangeRequests} and {@link S3GetSigner}, its body written straight into an array of the range's
 * length.
 *
 * <p>The client has two event-loop threads; connections are opened on demand up to {@code
 * fs.s3a.connection.maximum} (500 by default, above any in-flight bound of ours, so the connections
 * open are at most the requests in flight) and closed after 5 s idle; the connect timeout is {@code
 * fs.s3a.connection.establish.timeout}, and {@code fs.s3a.connection.request.timeout} bounds how
 * long a request waits for the next bytes of its answer (Netty's read and write timeouts; 0: none),
 * and {@value S3RangeReaderFactory#REQUEST_TIMEOUT} (10 s) how long a whole request may take: past
 * it the request is aborted and fails as transient. Answers mean what {@link S3RangeAnswers} says.
 * Cancelling a read's future aborts its requests (the connection is closed). A read's future
 * completes on an event-loop thread: what follows it must not block. It does not retry: {@link
 * dev.parquetlookup.io.RetryingRangeSource} does.
 */
final class NettyS3RangeReader implements AsyncRangeReader {

    private static final Logger LOG = LoggerFactory.getLogger(NettyS3RangeReader.class);

    private final S3RangeRequests s3;
    private final SdkAsyncHttpClient http;

    private NettyS3RangeReader(S3RangeRequests s3, SdkAsyncHttpClient http) {
        this.s3 = s3;
        this.http = http;
    }

    /** A reader for {@code s3a} with S3A's endpoint, region, path style and credentials. */
    static NettyS3RangeReader forFileSystem(FileSystem fs) throws IOException {
        S3RangeRequests s3 = S3RangeRequests.forFileSystem(fs);
        Duration idle = Duration.ofMillis(s3.requestTimeoutMillis());
        SdkAsyncHttpClient http =
                NettyNioAsyncHttpClient.builder()
                        .protocol(Protocol.HTTP1_1)
                        .eventLoopGroupBuilder(SdkEventLoopGroup.builder().numberOfThreads(2))
                        .maxConcurrency(fs.getConf().getInt("fs.s3a.connection.maximum", 500))
                        .connectionTimeout(Duration.ofMillis(s3.connectTimeoutMillis()))
                        .readTimeout(idle)
                        .writeTimeout(idle)
                        // Below servers' idle timeouts (Jetty, S3: 20-30 s), so a kept
                        // connection is not reused as the server closes it.
                        .connectionMaxIdleTime(Duration.ofSeconds(5))
                        .build();
        LOG.info(
                "{}: asynchronous ranged GETs through the SDK's Netty HTTP client at {}",
                fs.getUri(),
                s3.describe());
        return new NettyS3RangeReader(s3, http);
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        return s3.readAll(file, ranges, this::get);
    }

    @Override
    public void close() {
        http.close();
    }

    private CompletableFuture<byte[]> get(
            FileId file, String path, AwsCredentials c, FileRange range) {
        RangeAnswer answer = new RangeAnswer(file, range);
        CompletableFuture<Void> execution;
        try {
            SdkHttpRequest.Builder request =
                    SdkHttpRequest.builder()
                            .method(SdkHttpMethod.GET)
                            .protocol(s3.https() ? "https" : "http")
                            .host(s3.hostName())
                            .port(s3.port())
                            .encodedPath(path);
            s3.headers(path, c, file, range, request::putHeader);
            execution =
                    http.execute(
                            AsyncExecuteRequest.builder()
                                    .request(request.build())
                                    .requestContentPublisher(NoBody.INSTANCE)
                                    .responseHandler(answer)
                                    .build());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(S3RangeAnswers.transportFailure(file, range, e));
        }
        CompletableFuture<byte[]> result = answer.result;
        execution.whenComplete(
                (ignored, failure) -> {
                    if (failure != null) {
                        answer.onError(failure);
                    }
                });
        // Cancelling the result (a timeout, a hedge that won) fails the execution, which closes
        // the connection.
        result.whenComplete(
                (bytes, failure) -> {
                    if (result.isCancelled()) {
                        execution.cancel(true);
                    }
                });
        long whole = s3.wholeRequestTimeoutMillis();
        if (whole > 0 && !result.isDone()) {
            // The read and write timeouts bound idle time only: an answer trickling in, or one
            // whose connection stalls between timeouts, is bounded here. orTimeout's timer is
            // dropped when the copy completes with the result.
            result.copy()
                    .orTimeout(whole, TimeUnit.MILLISECONDS)
                    .whenComplete(
                            (bytes, failure) -> {
                                if (failure instanceof TimeoutException) {
                                    answer.onError(
                                            new TimeoutException(
                                                    "no complete answer within "
                                                            + whole
                                                            + " ms ("
                                                            + S3RangeReaderFactory.REQUEST_TIMEOUT
                                                            + ")"));
                                    execution.cancel(true);
                                }
                            });
        }
        return result;
    }

    /**
     * The answer to one GET: its status, then its body, copied into an array of the range's length
     * (a data answer) or of at most {@link S3RangeAnswers#ERROR_BODY_BYTES} (an error's XML).
     */
    private static final class RangeAnswer
            implements SdkAsyncHttpResponseHandler, Subscriber<ByteBuffer> {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final FileId file;
        private final FileRange range;
        private int status;
        private byte[] body;
        private int held; // bytes of the body in `body`
        private long received; // bytes of the body received

        RangeAnswer(FileId file, FileRange range) {
            this.file = file;
            this.range = range;
        }

        @Override
        public void onHeaders(SdkHttpResponse response) {
            status = response.statusCode();
            body =
                    new byte
                            [S3RangeAnswers.isData(status, range)
                                    ? range.length()
                                    : S3RangeAnswers.ERROR_BODY_BYTES];
        }

        @Override
        public void onStream(Publisher<ByteBuffer> stream) {
            stream.subscribe(this);
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer bytes) {
            int n = bytes.remaining();
            int copy = Math.min(n, body.length - held);
            bytes.get(body, held, copy);
            held += copy;
            received += n;
        }

        @Override
        public void onError(Throwable failure) {
            if (!result.isDone()) {
                result.completeExceptionally(S3RangeAnswers.transportFailure(file, range, failure));
            }
        }

        @Override
        public void onComplete() {
            if (!S3RangeAnswers.isData(status, range)) {
                result.completeExceptionally(
                        S3RangeAnswers.statusFailure(file, range, status, body, held));
                return;
            }
            IOException wrongLength = S3RangeAnswers.lengthFailure(file, range, status, received);
            if (wrongLength != null) {
                result.completeExceptionally(wrongLength);
            } else {
                result.complete(body);
            }
        }
    }

    /** The empty body of a GET: one empty buffer, then the end. */
    private enum NoBody implements SdkHttpContentPublisher {
        INSTANCE;

        private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

        @Override
        public Optional<Long> contentLength() {
            return Optional.of(0L);
        }

        @Override
        public void subscribe(Subscriber<? super ByteBuffer> subscriber) {
            subscriber.onSubscribe(
                    new Subscription() {
                        private boolean done;

                        @Override
                        public void request(long n) {
                            if (done) {
                                return;
                            }
                            done = true;
                            if (n <= 0) {
                                subscriber.onError(
                                        new IllegalArgumentException(
                                                "demand must be positive (rule 3.9): " + n));
                                return;
                            }
                            subscriber.onNext(EMPTY.duplicate());
                            subscriber.onComplete();
                        }

                        @Override
                        public void cancel() {
                            done = true;
                        }
                    });
        }
    }
}
