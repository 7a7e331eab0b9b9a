package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.AsyncRangeReaderFactory;
import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.TransientFailures;
import dev.parquetlookup.io.TransientReadException;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
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
 * What the S3 client makes of S3's answers and of transport failures ({@link S3RangeAnswers}), how
 * one read's GETs are combined and cancelled ({@link AsyncRangeReader#eachRange}, shared with the
 * hedging reader), and how the removed client option is handled ({@link S3RangeReaderFactory}).
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
        assertThat(changed)
                .isInstanceOf(FileChangedException.class)
                .hasMessageContaining("s3a://b/dir/f.parquet changed after it was opened")
                .hasMessageContaining("\"e1\"")
                .hasMessageContaining("HTTP 412 PreconditionFailed");
        assertThat(TransientFailures.isTransient(changed)).isFalse();
        for (int busy : new int[] {429, 500, 502, 503, 504}) {
            IOException failure = status(busy, error("SlowDown", "Reduce your rate"));
            assertThat(failure).as("HTTP %d", busy).isInstanceOf(TransientReadException.class);
            assertThat(TransientFailures.isTransient(failure)).as("HTTP %d", busy).isTrue();
            assertThat(failure).hasMessageContaining("f.parquet").hasMessageContaining("SlowDown");
        }
        assertThat(TransientFailures.isTransient(status(400, new byte[0]))).isFalse();
        assertThat(status(400, "not xml".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("HTTP 400");
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
                .isInstanceOf(TransientReadException.class)
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
        List<CompletableFuture<byte[][]>> started = new java.util.ArrayList<>();
        CompletableFuture<byte[][]> read =
                AsyncRangeReader.eachRange(
                        ranges,
                        i -> {
                            CompletableFuture<byte[][]> get = new CompletableFuture<>();
                            started.add(get);
                            return get;
                        });
        assertThat(started).as("no GET for an empty range").hasSize(2);
        started.get(1).complete(new byte[][] {{9}});
        started.get(0).complete(new byte[][] {{1, 2}});
        assertThat(read.join()).isEqualTo(new byte[][] {{1, 2}, {}, {9}});

        for (List<FileRange> rs : List.of(List.of(RANGE), List.of(RANGE, RANGE))) {
            started.clear();
            CompletableFuture<byte[][]> cancelled =
                    AsyncRangeReader.eachRange(
                            rs,
                            i -> {
                                CompletableFuture<byte[][]> get = new CompletableFuture<>();
                                started.add(get);
                                return get;
                            });
            cancelled.cancel(true);
            assertThat(started).hasSize(rs.size()).allSatisfy(g -> assertThat(g).isCancelled());
        }

        started.clear();
        CompletableFuture<byte[][]> failed =
                AsyncRangeReader.eachRange(
                        List.of(RANGE, RANGE),
                        i -> {
                            CompletableFuture<byte[][]> get = new CompletableFuture<>();
                            started.add(get);
                            return get;
                        });
        started.get(0).completeExceptionally(new IOException("reset"));
        assertThat(failed).isCompletedExceptionally();
        assertThat(started.get(1)).as("a failed range drops the other's GET").isCancelled();
    }

    @Test
    void theRemovedClientOptionIsAcceptedForNettyAndRefusedOtherwise() {
        Configuration conf = new Configuration(false);
        S3RangeReaderFactory.checkRemovedOptions(conf);
        conf.set("parquet-lookup.s3.range-client", "netty");
        S3RangeReaderFactory.checkRemovedOptions(conf); // a warning, no failure
        for (String removed : List.of("sdk", "sdk-light", "jdk", "curl")) {
            conf.set("parquet-lookup.s3.range-client", removed);
            assertThatThrownBy(() -> S3RangeReaderFactory.checkRemovedOptions(conf))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hadoop.parquet-lookup.s3.range-client")
                    .hasMessageContaining("'" + removed + "' was removed")
                    .hasMessageContaining("remove the option")
                    .hasMessageContaining("hadoop.parquet-lookup.s3.async-reads");
        }
    }

    @Test
    void theS3StoreIsFoundByItsScheme() {
        assertThat(AsyncRangeReaderFactory.forScheme("s3a"))
                .isInstanceOf(S3RangeReaderFactory.class);
        assertThat(AsyncRangeReaderFactory.forScheme("S3A")).isNotNull();
        assertThat(AsyncRangeReaderFactory.forScheme("hdfs")).isNull();
    }
}
