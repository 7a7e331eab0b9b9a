package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

import javax.annotation.Nullable;

import java.io.EOFException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Owns ranged GETs of {@code s3a://} files through the AWS SDK's asynchronous client (Netty, no
 * thread per request): the client S3A itself builds for its file system, so endpoint, region, path
 * style, credentials provider, timeouts, retries, proxy and audit interceptors are S3A's settings
 * ({@code fs.s3a.*}), and its connection pool is {@code fs.s3a.connection.maximum} (500 by default,
 * above any in-flight bound of ours). S3A keeps listing and opening files.
 *
 * <p>Each GET is conditional on the listed ETag ({@code If-Match}): an object overwritten in place
 * answers 412, reported as S3A's {@link RemoteFileChangedException}, which {@link
 * HadoopRangeSource} turns into a {@link FileChangedException} like S3A's own reads.
 *
 * <p>Loaded only when {@code hadoop-aws} is on the class path and the file system is S3A ({@link
 * #forFileSystem}); anything missing there falls back to blocking reads on a bounded pool.
 */
final class S3AsyncRangeReader implements AsyncRangeReader {

    private static final Logger LOG = LoggerFactory.getLogger(S3AsyncRangeReader.class);

    private final S3AFileSystem fs;
    private final S3AsyncClient client;
    private final String bucket;
    private final boolean owned; // built by us (LightSdkS3Client), not S3A's

    private S3AsyncRangeReader(S3AFileSystem fs, S3AsyncClient client, boolean owned) {
        this.fs = fs;
        this.client = client;
        this.owned = owned;
        this.bucket = fs.getBucket();
    }

    /**
     * A reader for {@code fs} if it is S3A and S3A hands out its asynchronous client, else null.
     */
    @Nullable
    static AsyncRangeReader forFileSystem(FileSystem fs) {
        if (!(fs instanceof S3AFileSystem s3a)) {
            return null;
        }
        if (!s3a.getConf().get("fs.s3a.encryption.algorithm", "").isEmpty()
                || s3a.getConf().getBoolean("fs.s3a.requester.pays.enabled", false)) {
            // SSE-C keys and requester-pays headers are added by S3A's own request factory.
            LOG.info(
                    "{}: encryption or requester-pays configured: reads go through S3A streams",
                    fs.getUri());
            return null;
        }
        try {
            S3AsyncClient client =
                    s3a.getS3AInternals().getStore().clientManager().getOrCreateAsyncClient();
            LOG.info("{}: asynchronous ranged GETs through S3A's asynchronous client", fs.getUri());
            return new S3AsyncRangeReader(s3a, client, false);
        } catch (IOException | RuntimeException | LinkageError e) {
            LOG.warn(
                    "{}: S3A's asynchronous client is not available ({}); reads go through S3A"
                            + " streams on a bounded pool",
                    fs.getUri(),
                    e.toString());
            return null;
        }
    }

    /** A reader for {@code fs} through {@code client} (one built for ranged GETs only). */
    static AsyncRangeReader withClient(FileSystem fs, S3AsyncClient client) {
        return new S3AsyncRangeReader((S3AFileSystem) fs, client, true);
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        String key;
        try {
            key = fs.pathToKey(new Path(file.path()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<byte[]>[] gets = new CompletableFuture[ranges.size()];
        for (int i = 0; i < gets.length; i++) {
            gets[i] = get(file, key, ranges.get(i));
        }
        if (gets.length == 1) {
            return gets[0].thenApply(bytes -> new byte[][] {bytes});
        }
        return CompletableFuture.allOf(gets)
                .thenApply(
                        ignored -> {
                            byte[][] result = new byte[gets.length][];
                            for (int i = 0; i < result.length; i++) {
                                result[i] = gets[i].join();
                            }
                            return result;
                        });
    }

    @Override
    public void close() {
        if (owned) {
            client.close();
        }
    }

    private CompletableFuture<byte[]> get(FileId file, String key, FileRange range) {
        if (range.length() == 0) {
            return CompletableFuture.completedFuture(new byte[0]);
        }
        GetObjectRequest.Builder request =
                GetObjectRequest.builder()
                        .bucket(bucket)
                        .key(key)
                        .range("bytes=" + range.offset() + "-" + (range.end() - 1));
        if (file.etag() != null) {
            request.ifMatch(file.etag());
        }
        CompletableFuture<ResponseBytes<GetObjectResponse>> response;
        try {
            response = client.getObject(request.build(), AsyncResponseTransformer.toBytes());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(failure(file, range, e));
        }
        CompletableFuture<byte[]> result =
                response.handle(
                        (bytes, failure) -> {
                            if (failure != null) {
                                throw new CompletionException(failure(file, range, failure));
                            }
                            byte[] data = bytes.asByteArrayUnsafe();
                            if (data.length != range.length()) {
                                throw new CompletionException(
                                        new EOFException(
                                                "GET of "
                                                        + range.length()
                                                        + " bytes at "
                                                        + range.offset()
                                                        + " of "
                                                        + file.path()
                                                        + " returned "
                                                        + data.length
                                                        + " bytes"));
                            }
                            return data;
                        });
        // Cancelling the result (a timeout) aborts the HTTP request.
        result.whenComplete(
                (bytes, failure) -> {
                    if (result.isCancelled()) {
                        response.cancel(true);
                    }
                });
        return result;
    }

    private static IOException failure(FileId file, FileRange range, Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        String what = "GET of bytes " + range.offset() + ".." + range.end() + " of " + file.path();
        if (t instanceof S3Exception s3) {
            String status = "HTTP " + s3.statusCode() + ": " + s3.getMessage();
            IOException mapped =
                    switch (s3.statusCode()) {
                        case 412 -> S3RangeAnswers.changed(file, what, status, s3);
                        case 403 -> S3RangeAnswers.denied(file, what, status);
                        case 404 -> S3RangeAnswers.gone(what, "HTTP 404");
                        default -> null;
                    };
            if (mapped != null) {
                if (mapped.getCause() == null) {
                    mapped.initCause(s3);
                }
                return mapped;
            }
        }
        if (t instanceof IOException io) {
            return io;
        }
        // The SDK's client-side failures say little themselves: their causes go in the message.
        return new IOException(what + " failed: " + CauseChain.describe(t), t);
    }
}
