package dev.parquetlookup.io;

import org.junit.jupiter.api.Test;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Listings are retried whatever the client wraps a transient failure in (found from outside: a
 * listing cut off at table open came as {@code UncheckedIOException(ConnectionClosedException:
 * Premature end of chunk coded message body)} from the S3 SDK through S3A, was not retried, and
 * restarted the job).
 */
class RetryingFileStoreTest {

    private static final RetryPolicy FAST =
            new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(2));

    /** A store whose listing fails {@code failures} times with {@code failure}, then answers. */
    private static FileStore failingList(
            int failures, RuntimeException failure, AtomicInteger calls) {
        return new FileStore() {
            @Override
            public List<FileId> list(String path) {
                if (calls.incrementAndGet() <= failures) {
                    throw failure;
                }
                return List.of(new FileId(path + "/a.parquet", 10, 1));
            }

            @Override
            public FileId stat(String path) {
                throw new UnsupportedOperationException();
            }

            @Override
            public RangeSource open(FileId file) {
                throw new UnsupportedOperationException();
            }
        };
    }

    /** Named like the Apache HTTP client's exception the SDK throws for a body cut off. */
    static final class ConnectionClosedException extends IOException {
        ConnectionClosedException(String message) {
            super(message);
        }
    }

    @Test
    void aListingCutOffInsideAnUncheckedIOExceptionIsRetried() throws IOException {
        AtomicInteger calls = new AtomicInteger();
        UncheckedIOException cut =
                new UncheckedIOException(
                        new ConnectionClosedException(
                                "Premature end of chunk coded message body: closing chunk"
                                        + " expected"));
        FileStore store = new RetryingFileStore(failingList(2, cut, calls), FAST);
        assertThat(store.list("s3a://bucket/dim")).hasSize(1);
        assertThat(calls).hasValue(3);
    }

    @Test
    void aPermanentFailureInsideAnUncheckedIOExceptionIsNotRetried() {
        AtomicInteger calls = new AtomicInteger();
        UncheckedIOException missing =
                new UncheckedIOException(new FileNotFoundException("s3a://bucket/dim"));
        FileStore store = new RetryingFileStore(failingList(5, missing, calls), FAST);
        assertThatThrownBy(() -> store.list("s3a://bucket/dim"))
                .isInstanceOf(FileNotFoundException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void attemptsAreBoundedByThePolicy() {
        AtomicInteger calls = new AtomicInteger();
        UncheckedIOException cut =
                new UncheckedIOException(new ConnectionClosedException("Premature end"));
        FileStore store = new RetryingFileStore(failingList(10, cut, calls), FAST);
        assertThatThrownBy(() -> store.list("s3a://bucket/dim")).isInstanceOf(IOException.class);
        assertThat(calls).hasValue(4);
    }
}
