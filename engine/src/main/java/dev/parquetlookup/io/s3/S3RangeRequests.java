package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import io.netty.buffer.ByteBuf;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Owns the ranged GETs of one S3A file system for {@link NettyS3RangeReader}: where they go (S3A's
 * endpoint and region, {@code fs.s3a.path.style.access}, the bucket, the object key URI-encoded
 * once), their bytes ({@link #head}: the request line, {@code If-Match} with the listed ETag, SigV4
 * by {@link S3GetSigner} with credentials from S3A's provider chain, resolved again every 10 s, one
 * signature per object and second; {@link #writeRequest}: the {@code Range}), the timeouts from
 * {@code fs.s3a.connection.establish.timeout}, {@code fs.s3a.connection.request.timeout} and {@link
 * S3RangeReaderFactory#REQUEST_TIMEOUT}, and which settings only S3A's own client applies ({@link
 * #unsupported}). What an answer means is {@link S3RangeAnswers}.
 *
 * <pre>{@code
 * S3RangeRequests s3 = S3RangeRequests.forFileSystem(fs);
 * byte[] head = s3.head(file); // "GET /bucket/dir%20with%20space/a.bin HTTP/1.1\r\nHost: ..."
 * S3RangeRequests.writeRequest(buf, head, range); // + "Range: bytes=0-99\r\n\r\n"
 * }</pre>
 */
final class S3RangeRequests {

    /** The default of {@link S3RangeReaderFactory#REQUEST_TIMEOUT}: 10 s. */
    static final long DEFAULT_WHOLE_REQUEST_TIMEOUT_MILLIS = 10_000;

    private static final long CREDENTIALS_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(10);

    private record Resolved(AwsCredentials credentials, long atNanos) {}

    /**
     * The head of the GETs of one object ({@code file}, its {@link FileId#path()}) in one second,
     * signed with {@code credentials}.
     */
    private record Head(
            String file, String etag, AwsCredentials credentials, long second, byte[] bytes) {}

    /** Objects whose heads are kept (a power of two; a table's files beyond it share slots). */
    static final int HEADS = 1024;

    private static final byte[] RANGE = "Range: bytes=".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] END = "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    private final S3AFileSystem fs;
    private final S3GetSigner signer;
    private final AwsCredentialsProvider credentials;
    private final URI endpoint;
    private final String region;
    private final boolean pathStyle;
    private final String scheme;
    private final String hostName; // the bucket's host in virtual-host style
    private final String host; // as sent in the Host header: with :port unless default
    private final int port;
    private final String pathPrefix; // "/bucket" in path style, else ""
    private final long connectTimeoutMillis;
    private final long requestTimeoutMillis; // 0: none
    private final long wholeRequestTimeoutMillis; // 0: none
    private volatile Resolved resolved;
    private final Head[] heads = new Head[HEADS];

    private S3RangeRequests(
            S3AFileSystem fs,
            String region,
            AwsCredentialsProvider credentials,
            URI endpoint,
            boolean pathStyle,
            long connectTimeoutMillis,
            long requestTimeoutMillis,
            long wholeRequestTimeoutMillis) {
        this.fs = fs;
        this.region = region;
        this.signer = new S3GetSigner(region);
        this.credentials = credentials;
        this.endpoint = endpoint;
        this.pathStyle = pathStyle;
        this.scheme = endpoint.getScheme();
        String bucket = fs.getBucket();
        String h = pathStyle ? endpoint.getHost() : bucket + "." + endpoint.getHost();
        boolean https = scheme.equals("https");
        int p = endpoint.getPort();
        boolean defaultPort = p == -1 || (https ? p == 443 : p == 80);
        this.hostName = h;
        this.host = defaultPort ? h : h + ":" + p;
        this.port = p == -1 ? (https ? 443 : 80) : p;
        this.pathPrefix = pathStyle ? "/" + S3GetSigner.encodePath(bucket) : "";
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.requestTimeoutMillis = requestTimeoutMillis;
        this.wholeRequestTimeoutMillis = wholeRequestTimeoutMillis;
    }

    /**
     * Why a signed-GET client cannot serve {@code conf}'s file system (settings only S3A's own
     * request pipeline applies: SSE-C keys, requester pays, a proxy, access points), or null if it
     * can.
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

    /** The requests of {@code fs} (S3A): its endpoint, region, path style and credentials. */
    static S3RangeRequests forFileSystem(FileSystem fs) throws IOException {
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
        long connect =
                conf.getTimeDuration(
                        "fs.s3a.connection.establish.timeout", 30_000, TimeUnit.MILLISECONDS);
        long request =
                conf.getTimeDuration(
                        "fs.s3a.connection.request.timeout", 60_000, TimeUnit.MILLISECONDS);
        long whole =
                conf.getTimeDuration(
                        S3RangeReaderFactory.REQUEST_TIMEOUT,
                        DEFAULT_WHOLE_REQUEST_TIMEOUT_MILLIS,
                        TimeUnit.MILLISECONDS);
        return new S3RangeRequests(
                s3a,
                region,
                s3a.shareCredentials("parquet-lookup ranged GETs"),
                endpoint,
                conf.getBoolean("fs.s3a.path.style.access", false),
                Math.max(1, connect),
                Math.max(0, request),
                Math.max(0, whole));
    }

    /** What to log about where the GETs go. */
    String describe() {
        return endpoint
                + " (region "
                + region
                + ", "
                + (pathStyle ? "path style" : "virtual host")
                + ")";
    }

    boolean https() {
        return scheme.equals("https");
    }

    /** The host a request connects to (the bucket's host in virtual-host style). */
    String hostName() {
        return hostName;
    }

    int port() {
        return port;
    }

    long connectTimeoutMillis() {
        return connectTimeoutMillis;
    }

    /**
     * {@link S3RangeReaderFactory#REQUEST_TIMEOUT} in milliseconds, the bound of a whole GET; 0 for
     * none.
     */
    long wholeRequestTimeoutMillis() {
        return wholeRequestTimeoutMillis;
    }

    /** {@code fs.s3a.connection.request.timeout} in milliseconds; 0 for none. */
    long requestTimeoutMillis() {
        return requestTimeoutMillis;
    }

    /**
     * The URI-encoded path of {@code file}'s object: the request's path and canonical URI (a Hadoop
     * {@link Path} costs microseconds to parse: computed only for a new {@link #head}).
     */
    private String path(FileId file) {
        return pathPrefix + "/" + S3GetSigner.encodePath(fs.pathToKey(new Path(file.path())));
    }

    /** The credentials to sign with: S3A's provider chain, asked again every 10 s. */
    AwsCredentials credentials() {
        Resolved r = resolved;
        long now = System.nanoTime();
        if (r == null || now - r.atNanos() > CREDENTIALS_REFRESH_NANOS) {
            r = new Resolved(credentials.resolveCredentials(), now);
            resolved = r;
        }
        return r.credentials();
    }

    /**
     * The head of a GET of {@code file} up to its {@code Range} line, as sent: the request line,
     * {@code Host}, {@code If-Match} when the file has an ETag, and the signature's headers when
     * the credentials are not anonymous ({@link #writeRequest} adds the range). The signature
     * covers neither the range nor {@code If-Match}, so every GET of one object in one second with
     * the same credentials has the same head: it is signed once and kept ({@value #HEADS} objects,
     * by the hash of their file's path), not signed per GET.
     *
     * @throws RuntimeException when the credentials cannot be resolved
     */
    byte[] head(FileId file) {
        AwsCredentials c = credentials();
        long second = System.currentTimeMillis() / 1000;
        int slot = file.path().hashCode() & (HEADS - 1);
        Head h = heads[slot];
        if (h == null
                || h.second() != second
                || h.credentials() != c
                || !h.file().equals(file.path())
                || !Objects.equals(h.etag(), file.etag())) {
            byte[] bytes = signedHead(path(file), file.etag(), c, second);
            h = new Head(file.path(), file.etag(), c, second, bytes);
            // A plain array: a record's final fields make a racing reader see a whole one.
            heads[slot] = h;
        }
        return h.bytes();
    }

    private byte[] signedHead(String path, String etag, AwsCredentials c, long second) {
        StringBuilder head = new StringBuilder(512);
        head.append("GET ").append(path).append(" HTTP/1.1\r\n");
        head.append("Host: ").append(host).append("\r\n");
        if (etag != null) {
            head.append("If-Match: ").append(etag).append("\r\n");
        }
        if (c.accessKeyId() != null && !c.accessKeyId().isEmpty()) {
            String token =
                    c instanceof AwsSessionCredentials session ? session.sessionToken() : null;
            S3GetSigner.Signed s =
                    signer.sign(
                            host,
                            path,
                            c.accessKeyId(),
                            c.secretAccessKey(),
                            token,
                            Instant.ofEpochSecond(second));
            head.append("x-amz-date: ").append(s.amzDate()).append("\r\n");
            head.append("x-amz-content-sha256: ").append(S3GetSigner.EMPTY_SHA256).append("\r\n");
            head.append("Authorization: ").append(s.authorization()).append("\r\n");
            if (token != null) {
                head.append("x-amz-security-token: ").append(token).append("\r\n");
            }
        }
        return head.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Writes the GET of {@code range} to {@code out}: {@code head} (from {@link #head}), then
     * {@code Range: bytes=first-last} and the blank line that ends the request.
     */
    static void writeRequest(ByteBuf out, byte[] head, FileRange range) {
        if (range.length() <= 0) {
            // "bytes=0-" would ask for the whole object: empty ranges are never sent.
            throw new IllegalArgumentException("no GET for the empty range " + range);
        }
        out.writeBytes(head);
        out.writeBytes(RANGE);
        writeDecimal(out, range.offset());
        out.writeByte('-');
        writeDecimal(out, range.end() - 1);
        out.writeBytes(END);
    }

    private static void writeDecimal(ByteBuf out, long value) {
        if (value == 0) {
            out.writeByte('0');
            return;
        }
        int digits = 0;
        for (long v = value; v > 0; v /= 10) {
            digits++;
        }
        int at = out.writerIndex() + digits;
        out.ensureWritable(digits);
        for (long v = value; v > 0; v /= 10) {
            out.setByte(--at, (int) ('0' + v % 10));
        }
        out.writerIndex(out.writerIndex() + digits);
    }
}
