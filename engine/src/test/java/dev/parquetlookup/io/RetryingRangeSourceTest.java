package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryingRangeSourceTest {

    private static final RetryPolicy POLICY =
            new RetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(250));

    private final List<Long> sleeps = new ArrayList<>();

    private RetryingRangeSource retrying(RangeSource source) {
        return new RetryingRangeSource(source, POLICY, sleeps::add);
    }

    @Test
    void transientFailuresAreRetriedWithBoundedExponentialBackoff() throws IOException {
        BytesRangeSource bytes = BytesRangeSource.counting(1000);
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCalls(1, 3, () -> new SocketException("Connection reset"));
        RangeSource source = retrying(new FaultInjectingRangeSource(bytes, plan));

        byte[] read = source.read(new FileRange(10, 5));

        assertThat(read).containsExactly(10, 11, 12, 13, 14);
        assertThat(plan.calls()).isEqualTo(4);
        assertThat(plan.injected()).isEqualTo(3);
        assertThat(bytes.reads.get()).isEqualTo(1);
        // Bounds 100, 200, 250 (capped); each wait is drawn in [bound/2, bound].
        assertThat(sleeps).hasSize(3);
        assertThat(sleeps.get(0)).isBetween(50L, 100L);
        assertThat(sleeps.get(1)).isBetween(100L, 200L);
        assertThat(sleeps.get(2)).isBetween(125L, 250L);
    }

    @Test
    void exhaustedRetriesNameTheFileTheRangeAndTheAttempts() {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failAll(() -> new SocketTimeoutException("Read timed out"));
        RangeSource source =
                retrying(new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan));

        assertThatThrownBy(() -> source.read(new FileRange(100, 50)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("mem:/test/part-0.parquet")
                .hasMessageContaining("[100, 150)")
                .hasMessageContaining("failed after 4 attempts")
                .hasMessageContaining("Read timed out")
                .hasCauseInstanceOf(SocketTimeoutException.class);
        assertThat(plan.calls()).isEqualTo(4);
        assertThat(sleeps).hasSize(3);
    }

    @Test
    void vectoredReadsAreRetriedAsAWhole() throws IOException {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCall(1, () -> new EOFException("connection closed mid-body"));
        RangeSource source =
                retrying(new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan));

        byte[][] read = source.readAll(List.of(new FileRange(0, 2), new FileRange(500, 3)));

        assertThat(read[0]).containsExactly(0, 1);
        assertThat(read[1]).containsExactly((byte) 500, (byte) 501, (byte) 502);
        assertThat(plan.calls()).isEqualTo(2);

        plan.failAll(() -> new SocketException("Connection reset"));
        assertThatThrownBy(
                        () -> source.readAll(List.of(new FileRange(0, 2), new FileRange(500, 3))))
                .hasMessageContaining("2 ranges [0, 2), [500, 503) of mem:/test/part-0.parquet")
                .hasMessageContaining("after 4 attempts");
    }

    @Test
    void missingFilesAndReadsPastTheEndAreNeverRetried() {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCall(1, () -> new FileNotFoundException("mem:/test/part-0.parquet"));
        RangeSource source =
                retrying(new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan));

        assertThatThrownBy(() -> source.read(new FileRange(0, 10)))
                .isInstanceOf(FileNotFoundException.class);
        assertThat(plan.calls()).isEqualTo(1);

        assertThatThrownBy(() -> source.read(new FileRange(995, 10)))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("past the end of mem:/test/part-0.parquet (1000 bytes)");
        assertThatThrownBy(
                        () -> source.readAll(List.of(new FileRange(0, 1), new FileRange(999, 2))))
                .isInstanceOf(EOFException.class);
        // Neither read past the end reached the source.
        assertThat(plan.calls()).isEqualTo(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void aPermanentFailureAfterTransientOnesStopsAtOnce() {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCall(1, () -> new SocketException("Connection reset"))
                        .failCall(2, () -> new IOException("Status Code: 403 access denied"));
        RangeSource source =
                retrying(new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan));

        assertThatThrownBy(() -> source.read(new FileRange(0, 10)))
                .hasMessageContaining("403")
                .satisfies(
                        e ->
                                assertThat(e.getSuppressed())
                                        .anySatisfy(
                                                s ->
                                                        assertThat(s)
                                                                .isInstanceOf(
                                                                        SocketException.class)));
        assertThat(plan.calls()).isEqualTo(2);
    }

    @Test
    void interruptDuringBackoffStopsRetrying() {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failAll(() -> new SocketException("Connection reset"));
        RangeSource source =
                new RetryingRangeSource(
                        new FaultInjectingRangeSource(BytesRangeSource.counting(100), plan),
                        POLICY,
                        millis -> {
                            throw new InterruptedException();
                        });
        try {
            assertThatThrownBy(() -> source.read(new FileRange(0, 10)))
                    .isInstanceOf(java.io.InterruptedIOException.class)
                    .hasMessageContaining("interrupted while waiting to retry");
            assertThat(plan.calls()).isEqualTo(1);
        } finally {
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    @Test
    void closeReachesTheSource() throws IOException {
        BytesRangeSource bytes = BytesRangeSource.counting(10);
        retrying(bytes).close();
        assertThat(bytes.closes.get()).isEqualTo(1);
    }

    @Test
    void policyBoundsDoubleUpToTheMaximum() {
        RetryPolicy p = new RetryPolicy(10, Duration.ofMillis(10), Duration.ofMillis(70));
        assertThat(p.backoffBoundMillis(1)).isEqualTo(10);
        assertThat(p.backoffBoundMillis(2)).isEqualTo(20);
        assertThat(p.backoffBoundMillis(3)).isEqualTo(40);
        assertThat(p.backoffBoundMillis(4)).isEqualTo(70);
        assertThat(p.backoffBoundMillis(60)).isEqualTo(70);
        assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("at least 1");
        assertThatThrownBy(() -> new RetryPolicy(2, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("initial");
    }

    /** An asynchronous read that never answers fails after the request timeout and is retried. */
    @Test
    void anAsyncReadThatNeverAnswersTimesOutAndIsRetried() throws Exception {
        BytesRangeSource bytes = BytesRangeSource.counting(1000);
        FaultInjectingRangeSource.Plan plan = FaultInjectingRangeSource.plan().hangCalls(1, 2);
        RangeSource source =
                new RetryingRangeSource(
                        new FaultInjectingRangeSource(bytes, plan),
                        new RetryPolicy(
                                3,
                                Duration.ofMillis(1),
                                Duration.ofMillis(2),
                                Duration.ofMillis(50)));

        byte[][] read =
                source.readAllAsync(List.of(new FileRange(10, 3), new FileRange(500, 2)))
                        .get(30, TimeUnit.SECONDS);

        assertThat(read[0]).containsExactly(10, 11, 12);
        assertThat(read[1]).containsExactly((byte) 500, (byte) 501);
        assertThat(plan.calls()).as("two unanswered attempts, then an answer").isEqualTo(3);
        assertThat(plan.injected()).isEqualTo(2);
    }

    @Test
    void anAsyncReadUnansweredOnEveryAttemptFailsNamingTheTimeout() {
        FaultInjectingRangeSource.Plan plan = FaultInjectingRangeSource.plan().hangCalls(1, 100);
        RangeSource source =
                new RetryingRangeSource(
                        new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan),
                        new RetryPolicy(
                                2,
                                Duration.ofMillis(1),
                                Duration.ofMillis(2),
                                Duration.ofMillis(20)));

        assertThatThrownBy(
                        () ->
                                source.readAllAsync(List.of(new FileRange(100, 50)))
                                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IOException.class)
                .hasMessageContaining("mem:/test/part-0.parquet")
                .hasMessageContaining("failed after 2 attempts")
                .hasMessageContaining("had no answer within 20 ms");
        assertThat(plan.calls()).isEqualTo(2);
    }

    @Test
    void asyncTransientFailuresAreRetriedAndPermanentOnesAreNot() throws Exception {
        FaultInjectingRangeSource.Plan plan =
                FaultInjectingRangeSource.plan()
                        .failCall(1, () -> new SocketException("Connection reset"))
                        .failCall(3, () -> new FileNotFoundException("gone"));
        RangeSource source =
                new RetryingRangeSource(
                        new FaultInjectingRangeSource(BytesRangeSource.counting(1000), plan),
                        new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(2)));

        assertThat(source.readAllAsync(List.of(new FileRange(1, 2))).get(30, TimeUnit.SECONDS)[0])
                .containsExactly(1, 2);
        assertThatThrownBy(
                        () ->
                                source.readAllAsync(List.of(new FileRange(1, 2)))
                                        .get(30, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(FileNotFoundException.class);
        assertThat(plan.calls()).isEqualTo(3);
    }

    @Test
    void anAsyncReadFailingWithAnUncheckedIoExceptionIsClassifiedByItsCause() throws Exception {
        List<String> calls = new ArrayList<>();
        RangeSource wrapping =
                new ForwardingRangeSource(BytesRangeSource.counting(1000)) {
                    @Override
                    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
                        calls.add("read");
                        return switch (calls.size()) {
                            case 1 ->
                                    CompletableFuture.failedFuture(
                                            new UncheckedIOException(
                                                    new SocketException("Connection reset")));
                            case 3 ->
                                    CompletableFuture.failedFuture(
                                            new CompletionException(
                                                    new UncheckedIOException(
                                                            new FileNotFoundException("gone"))));
                            default -> super.readAllAsync(ranges);
                        };
                    }
                };
        RangeSource source =
                new RetryingRangeSource(
                        wrapping, new RetryPolicy(4, Duration.ofMillis(1), Duration.ofMillis(2)));

        // A transient cause under the unchecked wrapper is retried, as the synchronous path does.
        assertThat(source.readAllAsync(List.of(new FileRange(1, 2))).get(30, TimeUnit.SECONDS)[0])
                .containsExactly(1, 2);
        assertThat(calls).hasSize(2);
        // A permanent one is not, and the caller sees the cause itself.
        assertThatThrownBy(
                        () ->
                                source.readAllAsync(List.of(new FileRange(1, 2)))
                                        .get(30, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(FileNotFoundException.class);
        assertThat(calls).hasSize(3);
    }
}
