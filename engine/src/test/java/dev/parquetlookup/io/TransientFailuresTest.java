package dev.parquetlookup.io;

import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class TransientFailuresTest {

    /** Stand-ins named like S3A's exceptions (hadoop-aws is not on the main class path). */
    static final class AWSServiceThrottledException extends IOException {
        AWSServiceThrottledException(String message) {
            super(message);
        }
    }

    static final class AWSClientIOException extends IOException {
        AWSClientIOException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static final class RemoteFileChangedException extends IOException {
        RemoteFileChangedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Test
    void networkFailuresAndBusyServersAreTransient() {
        assertThat(TransientFailures.isTransient(new SocketException("Connection reset"))).isTrue();
        assertThat(TransientFailures.isTransient(new SocketTimeoutException("Read timed out")))
                .isTrue();
        assertThat(TransientFailures.isTransient(new ConnectException("Connection refused")))
                .isTrue();
        assertThat(TransientFailures.isTransient(new EOFException("premature end"))).isTrue();
        assertThat(
                        TransientFailures.isTransient(
                                new IOException(
                                        "GET failed",
                                        new java.nio.channels.ClosedChannelException())))
                .isTrue();
        assertThat(
                        TransientFailures.isTransient(
                                new IOException("wrapped", new TimeoutException("late"))))
                .isTrue();
        assertThat(TransientFailures.isTransient(new AWSServiceThrottledException("slow down")))
                .isTrue();
        assertThat(
                        TransientFailures.isTransient(
                                new IOException(
                                        "GET s3a://b/k: (Service: S3, Status Code: 503, Request"
                                                + " ID: x)")))
                .isTrue();
        assertThat(
                        TransientFailures.isTransient(
                                new AWSClientIOException(
                                        "Unable to execute HTTP request",
                                        new ConnectException("Connection refused"))))
                .isTrue();
    }

    @Test
    void missingDeniedChangedAndUnknownFailuresAreNot() {
        assertThat(TransientFailures.isTransient(new FileNotFoundException("s3a://b/k"))).isFalse();
        assertThat(TransientFailures.isTransient(new AccessDeniedException("/d/f"))).isFalse();
        assertThat(
                        TransientFailures.isTransient(
                                new RemoteFileChangedException(
                                        "changed", new SocketException("Connection reset"))))
                .isFalse();
        assertThat(
                        TransientFailures.isTransient(
                                new FileChangedException(
                                        new FileId("s3a://b/k", 10, 1, "\"e1\"", null),
                                        "changed after it was opened",
                                        new SocketException("Connection reset"))))
                .isFalse();
        assertThat(TransientFailures.isTransient(new IOException("Status Code: 404"))).isFalse();
        assertThat(TransientFailures.isTransient(new IOException("corrupt footer"))).isFalse();
        assertThat(TransientFailures.isTransient(new InterruptedIOException("interrupted")))
                .isFalse();
    }

    @Test
    void nothingIsRetriedOnAnInterruptedThread() {
        Thread.currentThread().interrupt();
        try {
            assertThat(TransientFailures.isTransient(new SocketException("Connection reset")))
                    .isFalse();
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void causeCyclesTerminate() {
        IOException a = new IOException("a");
        IOException b = new IOException("b", a);
        a.initCause(b);
        assertThat(TransientFailures.isTransient(a)).isFalse();
    }
}
