package dev.parquetlookup.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Owns ranged GETs of {@code s3a://} files through the JDK's {@link HttpClient} (HTTP/1.1,
 * keep-alive, no thread per request), signed by {@link S3GetSigner}: a client that does nothing but
 * ranged GETs, chosen with the Hadoop option {@value #CLIENT_OPTION} = {@code jdk}. Endpoint and
 * region are those of S3A's own client for the file system, path style is {@code
 * fs.s3a.path.style.access}, credentials come from S3A's credential provider chain ({@code
 * fs.s3a.aws.credentials.provider}, shared with S3A), the connect timeout is {@code
 * fs.s3a.connection.establish.timeout} and each request's timeout {@code
 * fs.s3a.connection.request.timeout}. It does not retry: {@link RetryingRangeSource} does.
 *
 * <p>Each GET is conditional on the listed ETag ({@code If-Match}): 412 is reported as S3A's {@link
 * RemoteFileChangedException} (a {@link FileChangedException} above), 404 as {@link
 * FileNotFoundException}, 403 as {@link AccessDeniedException}, 5xx and 429 as transient failures
 * (see {@link TransientFailures}), a dropped connection as {@link ConnectionFailedException}.
 * Cancelling a read's future aborts its requests.
 */
final class JdkS3RangeReader implements AsyncRangeReader {

    /** Hadoop option: {@code sdk} (S3A's asynchronous SDK client) or {@code jdk} (this class). */
    static final String CLIENT_OPTION = "parquet-lookup.s3.range-client";

    private static final Logger LOG = LoggerFactory.getLogger(JdkS3RangeReader.class);
    private static final long CREDENTIALS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The transport failed before a status line arrived (reset, closed, refused): transient. */
    static final class ConnectionFailedException extends IOException {
        ConnectionFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private record Resolved(AwsCredentials credentials, long atNanos) {}

    private final S3AFileSystem fs;
    private final HttpClient http;
    private final S3GetSigner signer;
    private final AwsCredentialsProvider credentials;
    private final String scheme;
    private final String host; // as sent in the Host header: with :port unless default
    private final String pathPrefix; // "/bucket" in path style, else ""
    private final Duration requestTimeout;
    private volatile Resolved resolved;

    private JdkS3RangeReader(
            S3AFileSystem fs,
            HttpClient http,
            String region,
            AwsCredentialsProvider credentials,
            URI endpoint,
            boolean pathStyle,
            Duration requestTimeout) {
        this.fs = fs;
        this.http = http;
        this.signer = new S3GetSigner(region);
        this.credentials = credentials;
        this.scheme = endpoint.getScheme();
        String bucket = fs.getBucket();
        String h = pathStyle ? endpoint.getHost() : bucket + "." + endpoint.getHost();
        int port = endpoint.getPort();
        boolean defaultPort = port == -1 || (scheme.equals("https") ? port == 443 : port == 80);
        this.host = defaultPort ? h : h + ":" + port;
        this.pathPrefix = pathStyle ? "/" + S3GetSigner.encodePath(bucket) : "";
        this.requestTimeout = requestTimeout;
    }

    /**
     * Why this client cannot serve {@code conf}'s file system (settings only S3A's own request
     * pipeline applies: SSE-C keys, requester pays, a proxy, access points), or null if it can.
     */
    static String unsupported(Configuration conf) {
        if ("SSE-C".equalsIgnoreCase(conf.getTrimmed("fs.s3a.encryption.algorithm", ""))) {
            return "SSE-C encryption";
        }
        if (conf.getBoolean("fs.s3a.requester.pays.enabled", false)) {
            return "requester pays";
        }
        if (!conf.getTrimmed("fs.s3a.proxy.host", "").isEmpty()) {
            return "a proxy (fs.s3a.proxy.host)";
        }
        if (conf.getBoolean("fs.s3a.accesspoint.required", false)
                || !conf.getTrimmed("fs.s3a.accesspoint.arn", "").isEmpty()) {
            return "an access point";
        }
        return null;
    }

    /** A reader for {@code s3a} with S3A's endpoint, region, path style and credentials. */
    static JdkS3RangeReader forFileSystem(FileSystem fs) throws IOException {
        S3AFileSystem s3a = (S3AFileSystem) fs;
        Configuration conf = s3a.getConf();
        S3Client sync = s3a.getS3AInternals().getAmazonS3Client("parquet-lookup ranged GETs");
        S3ServiceClientConfiguration config = sync.serviceClientConfiguration();
        String region = config.region().id();
        boolean ssl = conf.getBoolean("fs.s3a.connection.ssl.enabled", true);
        URI endpoint =
                config.endpointOverride()
                        .orElseGet(
                                () ->
                                        URI.create(
                                                (ssl ? "https" : "http")
                                                        + "://s3."
                                                        + region
                                                        + ".amazonaws.com"));
        if (endpoint.getHost() == null) {
            endpoint = URI.create((ssl ? "https://" : "http://") + endpoint);
        }
        boolean pathStyle = conf.getBoolean("fs.s3a.path.style.access", false);
        long connect =
                conf.getTimeDuration(
                        "fs.s3a.connection.establish.timeout", 30_000, TimeUnit.MILLISECONDS);
        long request =
                conf.getTimeDuration(
                        "fs.s3a.connection.request.timeout", 60_000, TimeUnit.MILLISECONDS);
        HttpClient http =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofMillis(Math.max(1, connect)))
                        .followRedirects(HttpClient.Redirect.NEVER)
                        .build();
        LOG.info(
                "{}: asynchronous ranged GETs through the JDK's HTTP client at {} (region {}, {})",
                s3a.getUri(),
                endpoint,
                region,
                pathStyle ? "path style" : "virtual host");
        return new JdkS3RangeReader(
                s3a,
                http,
                region,
                s3a.shareCredentials("parquet-lookup ranged GETs"),
                endpoint,
                pathStyle,
                request > 0 ? Duration.ofMillis(request) : null);
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        String path;
        AwsCredentials c;
        try {
            path = pathPrefix + "/" + S3GetSigner.encodePath(fs.pathToKey(new Path(file.path())));
            c = credentials();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(
                    new IOException("cannot sign a GET of " + file.path() + ": " + e, e));
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<byte[]>[] gets = new CompletableFuture[ranges.size()];
        for (int i = 0; i < gets.length; i++) {
            gets[i] = get(file, path, c, ranges.get(i));
        }
        if (gets.length == 1) {
            return gets[0].thenApply(bytes -> new byte[][] {bytes});
        }
        CompletableFuture<byte[][]> all =
                CompletableFuture.allOf(gets)
                        .thenApply(
                                ignored -> {
                                    byte[][] result = new byte[gets.length][];
                                    for (int i = 0; i < result.length; i++) {
                                        result[i] = gets[i].join();
                                    }
                                    return result;
                                });
        // Cancelling the whole read (a timeout) aborts every request of it.
        all.whenComplete(
                (bytes, failure) -> {
                    if (all.isCancelled()) {
                        for (CompletableFuture<byte[]> get : gets) {
                            get.cancel(true);
                        }
                    }
                });
        return all;
    }

    private AwsCredentials credentials() {
        Resolved r = resolved;
        long now = System.nanoTime();
        if (r == null || now - r.atNanos() > CREDENTIALS_REFRESH_NANOS) {
            r = new Resolved(credentials.resolveCredentials(), now);
            resolved = r;
        }
        return r.credentials();
    }

    private CompletableFuture<byte[]> get(
            FileId file, String path, AwsCredentials c, FileRange range) {
        if (range.length() == 0) {
            return CompletableFuture.completedFuture(new byte[0]);
        }
        CompletableFuture<HttpResponse<byte[]>> response;
        try {
            response =
                    http.sendAsync(
                            request(file, path, c, range), HttpResponse.BodyHandlers.ofByteArray());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(failure(file, range, e));
        }
        CompletableFuture<byte[]> result =
                response.handle(
                        (r, failure) -> {
                            if (failure != null) {
                                throw new CompletionException(failure(file, range, failure));
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

    private HttpRequest request(FileId file, String path, AwsCredentials c, FileRange range) {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(scheme + "://" + host + path))
                        .GET()
                        .header("Range", "bytes=" + range.offset() + "-" + (range.end() - 1));
        if (requestTimeout != null) {
            b.timeout(requestTimeout);
        }
        if (file.etag() != null) {
            b.header("If-Match", file.etag());
        }
        if (c.accessKeyId() != null && !c.accessKeyId().isEmpty()) {
            String token =
                    c instanceof AwsSessionCredentials session ? session.sessionToken() : null;
            S3GetSigner.Signed s =
                    signer.sign(
                            host, path, c.accessKeyId(), c.secretAccessKey(), token, Instant.now());
            b.header("x-amz-date", s.amzDate())
                    .header("x-amz-content-sha256", S3GetSigner.EMPTY_SHA256)
                    .header("Authorization", s.authorization());
            if (token != null) {
                b.header("x-amz-security-token", token);
            }
        }
        return b.build();
    }

    private static byte[] body(FileId file, FileRange range, HttpResponse<byte[]> r) {
        int status = r.statusCode();
        byte[] data = r.body();
        if (status == 206 || (status == 200 && range.offset() == 0)) {
            if (data.length < range.length() || (status == 200 && data.length != range.length())) {
                throw new CompletionException(
                        new EOFException(
                                what(file, range)
                                        + " returned "
                                        + data.length
                                        + " bytes (HTTP "
                                        + status
                                        + ")"));
            }
            return data.length == range.length() ? data : Arrays.copyOf(data, range.length());
        }
        throw new CompletionException(statusFailure(file, range, status, data));
    }

    private static IOException statusFailure(
            FileId file, FileRange range, int status, byte[] body) {
        String what = what(file, range);
        String said = errorCode(body);
        switch (status) {
            case 404:
                return new FileNotFoundException(
                        what + ": the object is gone (HTTP 404 " + said + ")");
            case 403:
                return new AccessDeniedException(
                        file.path(),
                        null,
                        what
                                + ": access denied (HTTP 403 "
                                + said
                                + "); check the credentials of fs.s3a.aws.credentials.provider"
                                + " and the bucket policy");
            case 412:
                return new IOException(
                        what,
                        new RemoteFileChangedException(
                                file.path(),
                                "read",
                                "the object no longer has ETag "
                                        + file.etag()
                                        + " (HTTP 412 "
                                        + said
                                        + ")"));
            case 429:
                return new IOException(what + ": SlowDown (HTTP 429 " + said + ")");
            default:
                // "status code: 503" is what TransientFailures retries for 500/502/503/504.
                return new IOException(what + " failed: status code: " + status + " " + said);
        }
    }

    private static String errorCode(byte[] body) {
        String text = new String(body, 0, Math.min(body.length, 512), StandardCharsets.UTF_8);
        int start = text.indexOf("<Code>");
        int end = text.indexOf("</Code>");
        return start >= 0 && end > start ? text.substring(start + 6, end) : "";
    }

    private static String what(FileId file, FileRange range) {
        return "GET of bytes " + range.offset() + ".." + range.end() + " of " + file.path();
    }

    private static IOException failure(FileId file, FileRange range, Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof HttpTimeoutException || t instanceof ConnectException) {
            return new IOException(what(file, range) + " failed: " + CauseChain.describe(t), t);
        }
        if (t instanceof IOException) {
            return new ConnectionFailedException(
                    what(file, range) + " failed: " + CauseChain.describe(t), t);
        }
        return new IOException(what(file, range) + " failed: " + CauseChain.describe(t), t);
    }
}
