package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentials;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Owns ranged GETs of {@code s3a://} files through the JDK's {@link HttpClient} (HTTP/1.1,
 * keep-alive, no thread per request), signed by {@link S3GetSigner}: a client that does nothing but
 * ranged GETs, chosen with the Hadoop option {@value S3RangeClients#CLIENT_OPTION} = {@code jdk}.
 * Where the GETs go, their headers and credentials are {@link S3RangeRequests}'s; the connect
 * timeout is {@code fs.s3a.connection.establish.timeout} and each request's timeout (to its
 * response headers) {@code fs.s3a.connection.request.timeout}. It does not retry: {@link
 * RetryingRangeSource} does.
 *
 * <p>Answers mean what {@link S3RangeAnswers} says: 412 is S3A's {@link RemoteFileChangedException}
 * (a {@link FileChangedException} above), 404 {@link FileNotFoundException}, 403 {@link
 * AccessDeniedException}, 5xx and 429 transient failures, a dropped connection {@link
 * S3RangeAnswers.ConnectionFailedException}. Cancelling a read's future aborts its requests.
 */
final class JdkS3RangeReader implements AsyncRangeReader {

    private static final Logger LOG = LoggerFactory.getLogger(JdkS3RangeReader.class);

    private final S3RangeRequests s3;
    private final HttpClient http;
    private final Duration requestTimeout;

    private JdkS3RangeReader(S3RangeRequests s3, HttpClient http) {
        this.s3 = s3;
        this.http = http;
        this.requestTimeout =
                s3.requestTimeoutMillis() > 0 ? Duration.ofMillis(s3.requestTimeoutMillis()) : null;
    }

    /** A reader for {@code s3a} with S3A's endpoint, region, path style and credentials. */
    static JdkS3RangeReader forFileSystem(FileSystem fs) throws IOException {
        S3RangeRequests s3 = S3RangeRequests.forFileSystem(fs);
        HttpClient http =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofMillis(s3.connectTimeoutMillis()))
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        LOG.info(
                "{}: asynchronous ranged GETs through the JDK's HTTP client at {}",
                fs.getUri(),
                s3.describe());
        return new JdkS3RangeReader(s3, http);
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        return s3.readAll(file, ranges, this::get);
    }

    private CompletableFuture<byte[]> get(
            FileId file, String path, AwsCredentials c, FileRange range) {
        CompletableFuture<HttpResponse<byte[]>> response;
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s3.origin() + path)).GET();
            if (requestTimeout != null) {
                b.timeout(requestTimeout);
            }
            s3.headers(path, c, file, range, b::header);
            response = http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(S3RangeAnswers.transportFailure(file, range, e));
        }
        CompletableFuture<byte[]> result =
                response.handle(
                        (r, failure) -> {
                            if (failure != null) {
                                throw new CompletionException(
                                        S3RangeAnswers.transportFailure(file, range, failure));
                            }
                            return body(file, range, r);
                        });
        result.whenComplete(
                (bytes, failure) -> {
                    if (result.isCancelled()) {
                        response.cancel(true);
                    }
                });
        return result;
    }

    private static byte[] body(FileId file, FileRange range, HttpResponse<byte[]> r) {
        int status = r.statusCode();
        byte[] data = r.body();
        if (!S3RangeAnswers.isData(status, range)) {
            throw new CompletionException(
                    S3RangeAnswers.statusFailure(file, range, status, data, data.length));
        }
        IOException wrongLength = S3RangeAnswers.lengthFailure(file, range, status, data.length);
        if (wrongLength != null) {
            throw new CompletionException(wrongLength);
        }
        return data.length == range.length() ? data : Arrays.copyOf(data, range.length());
    }
}
