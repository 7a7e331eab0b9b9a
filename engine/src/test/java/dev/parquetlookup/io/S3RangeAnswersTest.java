package dev.parquetlookup.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.RemoteFileChangedException;

import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the signed-GET clients ({@code jdk}, {@code netty}) make of S3's answers and of transport
 * failures ({@link S3RangeAnswers}), how one read's GETs are combined and cancelled ({@link
 * S3RangeRequests#readAll}), and the client option's check ({@link S3RangeClients}).
 */
class S3RangeAnswersTest {

    private static final FileId FILE = new FileId("s3a://b/dir/f.parquet", 1000, 1, "\"e1\"", null);
    private static final FileRange RANGE = new FileRange(100, 50);

    private static byte[] error(String code, String message) {
        return ("<?xml version=\"1.0\"?><Error><Code>"
                        + code
                        + "</Code><Message>"
                        + message
                        + "</Message></Error>")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static IOException status(int status, byte[] body) {
        return S3RangeAnswers.statusFailure(FILE, RANGE, status, body, body.length);
    }

    @Test
    void eachStatusIsTheFailureItMeansNamingFileRangeAndS3sError() {
        assertThat(status(404, error("NoSuchKey", "The key does not exist")))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("s3a://b/dir/f.parquet")
                .hasMessageContaining("100..150")
                .hasMessageContaining("HTTP 404 NoSuchKey: The key does not exist");
        assertThat(status(403, error("AccessDenied", "Access Denied")))
                .isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("HTTP 403 AccessDenied: Access Denied")
                .hasMessageContaining("fs.s3a.aws.credentials.provider");
        IOException changed = status(412, error("PreconditionFailed", "At least one failed"));
        assertThat(changed.getCause())
                .isInstanceOf(RemoteFileChangedException.class)
                .hasMessageContaining("\"e1\"")
                .hasMessageContaining("HTTP 412 PreconditionFailed");
        assertThat(TransientFailures.isTransient(changed)).isFalse();
        for (int busy : new int[] {429, 500, 502, 503, 504}) {
            IOException failure = status(busy, error("SlowDown", "Reduce your rate"));
            assertThat(TransientFailures.isTransient(failure)).as("HTTP %d", busy).isTrue();
            assertThat(failure).hasMessageContaining("f.parquet").hasMessageContaining("SlowDown");
        }
        assertThat(TransientFailures.isTransient(status(400, new byte[0]))).isFalse();
        assertThat(status(400, "not xml".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("status code: 400");
    }

    @Test
    void dataAnswersAreCheckedForLength() {
        assertThat(S3RangeAnswers.isData(206, RANGE)).isTrue();
        assertThat(S3RangeAnswers.isData(200, RANGE)).as("a whole object for a range").isFalse();
        assertThat(S3RangeAnswers.isData(200, new FileRange(0, 50))).isTrue();
        assertThat(S3RangeAnswers.lengthFailure(FILE, RANGE, 206, 50)).isNull();
        assertThat(S3RangeAnswers.lengthFailure(FILE, RANGE, 206, 60))
                .as("longer: a prefix")
                .isNull();
        assertThat(S3RangeAnswers.lengthFailure(FILE, RANGE, 206, 49))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("returned 49 bytes (HTTP 206)");
        assertThat(S3RangeAnswers.lengthFailure(FILE, new FileRange(0, 50), 200, 60))
                .as("200 is the whole object: it must be the range")
                .isInstanceOf(EOFException.class);
    }

    @Test
    void transportFailuresAreTransientAndNameTheirCauses() {
        IOException closed =
                S3RangeAnswers.transportFailure(
                        FILE, RANGE, new CompletionException(new IOException("connection closed")));
        assertThat(closed)
                .isInstanceOf(S3RangeAnswers.ConnectionFailedException.class)
                .hasMessageContaining("100..150")
                .hasMessageContaining("connection closed");
        for (Throwable t :
                List.of(
                        new ConnectException("refused"),
                        new HttpTimeoutException("request timed out"),
                        new ClosedChannelException())) {
            IOException failure = S3RangeAnswers.transportFailure(FILE, RANGE, t);
            assertThat(TransientFailures.isTransient(failure)).as("%s", t).isTrue();
            assertThat(failure.getCause()).isSameAs(t);
        }
        IOException other =
                S3RangeAnswers.transportFailure(FILE, RANGE, new IllegalStateException("bug"));
        assertThat(other).hasMessageContaining("IllegalStateException").hasMessageContaining("bug");
        assertThat(TransientFailures.isTransient(other)).isFalse();
    }

    @Test
    void aReadCombinesItsGetsInOrderAndCancellingItCancelsEach() {
        List<FileRange> ranges = List.of(new FileRange(0, 2), new FileRange(5, 0), RANGE);
        List<CompletableFuture<byte[]>> started = new java.util.ArrayList<>();
        CompletableFuture<byte[][]> read =
                S3RangeRequests.readAll(
                        ranges,
                        i -> {
                            CompletableFuture<byte[]> get = new CompletableFuture<>();
                            started.add(get);
                            return get;
                        });
        assertThat(started).as("no GET for an empty range").hasSize(2);
        started.get(1).complete(new byte[] {9});
        started.get(0).complete(new byte[] {1, 2});
        assertThat(read.join()).isEqualTo(new byte[][] {{1, 2}, {}, {9}});

        for (List<FileRange> rs : List.of(List.of(RANGE), List.of(RANGE, RANGE))) {
            started.clear();
            CompletableFuture<byte[][]> cancelled =
                    S3RangeRequests.readAll(
                            rs,
                            i -> {
                                CompletableFuture<byte[]> get = new CompletableFuture<>();
                                started.add(get);
                                return get;
                            });
            cancelled.cancel(true);
            assertThat(started).hasSize(rs.size()).allSatisfy(g -> assertThat(g).isCancelled());
        }
    }

    @Test
    void anUnknownClientIsRefusedNamingTheChoices() throws Exception {
        Configuration conf = new Configuration();
        conf.set(S3RangeClients.CLIENT_OPTION, "curl");
        try (FileSystem fs = FileSystem.newInstance(URI.create("file:///"), conf)) {
            assertThatThrownBy(() -> S3RangeClients.forFileSystem(fs))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hadoop.parquet-lookup.s3.range-client")
                    .hasMessageContaining("'curl'")
                    .hasMessageContaining("'netty'")
                    .hasMessageContaining("'sdk-light'")
                    .hasMessageContaining("'jdk'")
                    .hasMessageContaining("'sdk'");
        }
    }
}
