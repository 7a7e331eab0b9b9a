package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Decorator that retries transient read failures ({@link TransientFailures}) with bounded
 * exponential backoff ({@link RetryPolicy}). When the attempts run out the read fails with an
 * {@link IOException} naming the file, the byte range and the attempts made, the last failure as
 * its cause and the earlier ones suppressed.
 *
 * <p>A decorator rather than retries inside {@link HadoopRangeSource}: the policy works the same
 * for every source, it is tested against {@link FaultInjectingRangeSource} without a file system,
 * and it sits above Hadoop's own retries (S3A retries each HTTP request itself; ours covers a whole
 * positioned or vectored read, including failures S3A gives up on). A read past the end of the file
 * is rejected before any attempt: the file is shorter than its {@link FileId} says, which no retry
 * fixes.
 *
 * <pre>{@code
 * RangeSource source = new RetryingRangeSource(store.open(file), RetryPolicy.defaults());
 * byte[] page = source.read(new FileRange(4, 1024));
 * }</pre>
 */
public final class RetryingRangeSource extends CopyingRangeSource {

    private static final Logger LOG = LoggerFactory.getLogger(RetryingRangeSource.class);

    /** Waits between attempts; a seam for tests. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    private final RetryPolicy policy;
    private final Sleeper sleeper;

    public RetryingRangeSource(RangeSource delegate, RetryPolicy policy) {
        this(delegate, policy, Thread::sleep);
    }

    RetryingRangeSource(RangeSource delegate, RetryPolicy policy, Sleeper sleeper) {
        super(delegate);
        this.policy = policy;
        this.sleeper = sleeper;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        checkInFile(position, length);
        run(
                () -> {
                    delegate().readFully(position, buffer, offset, length);
                    return null;
                },
                () -> describe(position, length));
    }

    /**
     * Sources that read inline (memory-mapped files) have no transient failures: their view is
     * handed through; others copy through {@link #readFully}, with its retries.
     */
    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        checkInFile(position, length);
        return delegate().readsInline()
                ? delegate().readWith(position, length, reader)
                : super.readWith(position, length, reader);
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        for (FileRange range : ranges) {
            checkInFile(range.offset(), range.length());
        }
        return run(() -> delegate().readAll(ranges), () -> describe(ranges));
    }

    /**
     * Like {@link #readAll} without holding a thread: each attempt that stays unanswered for the
     * policy's request timeout is abandoned (its future cancelled, which aborts an HTTP request)
     * and counts as a transient failure; retries wait their backoff on the JDK's shared delay
     * scheduler, not in a thread of ours.
     */
    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        try {
            for (FileRange range : ranges) {
                checkInFile(range.offset(), range.length());
            }
        } catch (EOFException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<byte[][]> result = new CompletableFuture<>();
        attemptAsync(ranges, 1, System.nanoTime(), null, result);
        return result;
    }

    private void attemptAsync(
            List<FileRange> ranges,
            int n,
            long start,
            IOException first,
            CompletableFuture<byte[][]> result) {
        CompletableFuture<byte[][]> attempt;
        try {
            attempt = delegate().readAllAsync(ranges);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<byte[][]> timed = attempt;
        if (!attempt.isDone()) {
            CompletableFuture<byte[][]> request = attempt;
            timed = new CompletableFuture<>();
            CompletableFuture<byte[][]> bounded = timed;
            request.whenComplete(
                    (bytes, failure) -> {
                        if (failure != null) {
                            bounded.completeExceptionally(failure);
                        } else {
                            bounded.complete(bytes);
                        }
                    });
            // orTimeout cancels its timer when the future completes first: nothing lingers.
            timed.orTimeout(policy.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                    .whenComplete(
                            (bytes, failure) -> {
                                if (failure instanceof TimeoutException) {
                                    request.cancel(true);
                                }
                            });
        }
        timed.whenComplete(
                (bytes, failure) -> {
                    if (failure == null) {
                        result.complete(bytes);
                        return;
                    }
                    Throwable cause = unwrap(failure);
                    if (!(cause instanceof IOException) && !(cause instanceof TimeoutException)) {
                        result.completeExceptionally(cause);
                        return;
                    }
                    IOException e =
                            cause instanceof IOException io
                                    ? io
                                    : timeout(ranges, (TimeoutException) cause);
                    if (!TransientFailures.isTransient(e)) {
                        if (first != null) {
                            e.addSuppressed(first);
                        }
                        result.completeExceptionally(e);
                        return;
                    }
                    if (n >= policy.maxAttempts()) {
                        result.completeExceptionally(
                                exhausted(policy, describe(ranges), n, start, e, first));
                        return;
                    }
                    long wait = policy.backoffMillis(n);
                    LOG.debug(
                            "{} failed (attempt {} of {}), retrying in {} ms: {}",
                            describe(ranges),
                            n,
                            policy.maxAttempts(),
                            wait,
                            e.toString());
                    IOException firstFailure = first == null ? e : first;
                    CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS)
                            .execute(
                                    () -> attemptAsync(ranges, n + 1, start, firstFailure, result));
                });
    }

    private IOException timeout(List<FileRange> ranges, TimeoutException cause) {
        IOException e =
                new IOException(
                        describe(ranges)
                                + " had no answer within "
                                + policy.requestTimeout().toMillis()
                                + " ms",
                        cause);
        return e;
    }

    /**
     * The failure under a future's wrappers: a {@link CompletionException}, and an {@link
     * UncheckedIOException} (how clients wrap I/O failures, as in {@link #retry}), so that one
     * classification ({@link TransientFailures}) sees the same failure in both paths.
     */
    private static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof UncheckedIOException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** One attempt of a synchronous call. */
    interface Attempt<T> {
        T run() throws IOException;
    }

    /** What a call does, for messages: built only when one is needed. */
    interface Description {
        String get();
    }

    private <T> T run(Attempt<T> attempt, Description what) throws IOException {
        return retry(policy, sleeper, attempt, what);
    }

    /**
     * Runs {@code attempt} until it succeeds, fails with a failure that is not transient, or has
     * made {@code policy.maxAttempts()} attempts, waiting the policy's backoff between them: the
     * one retry loop of synchronous storage calls (reads here, listings in {@link
     * RetryingFileStore}).
     */
    static <T> T retry(RetryPolicy policy, Sleeper sleeper, Attempt<T> attempt, Description what)
            throws IOException {
        long start = System.nanoTime();
        IOException first = null;
        for (int n = 1; ; n++) {
            IOException e;
            try {
                return attempt.run();
            } catch (IOException thrown) {
                e = thrown;
            } catch (UncheckedIOException thrown) {
                // Clients wrap I/O failures too: the S3 SDK's listing cut off mid-body comes as
                // UncheckedIOException(ConnectionClosedException), which S3A passes on.
                e = thrown.getCause();
            }
            if (!TransientFailures.isTransient(e)) {
                if (first != null) {
                    e.addSuppressed(first);
                }
                throw e;
            }
            if (n >= policy.maxAttempts()) {
                throw exhausted(policy, what.get(), n, start, e, first);
            }
            if (first == null) {
                first = e;
            }
            long wait = policy.backoffMillis(n);
            LOG.debug(
                    "{} failed (attempt {} of {}), retrying in {} ms: {}",
                    what.get(),
                    n,
                    policy.maxAttempts(),
                    wait,
                    e.toString());
            try {
                sleeper.sleep(wait);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                InterruptedIOException io =
                        new InterruptedIOException(
                                "interrupted while waiting to retry " + what.get());
                io.initCause(e);
                throw io;
            }
        }
    }

    private static IOException exhausted(
            RetryPolicy policy,
            String what,
            int attempts,
            long startNanos,
            IOException last,
            IOException first) {
        long millis = (System.nanoTime() - startNanos) / 1_000_000;
        IOException e =
                new IOException(
                        String.format(
                                "%s failed after %d attempts in %d ms: %s. The storage did not"
                                        + " answer; transient failures are retried %d times with"
                                        + " backoff up to %d ms. Check that the storage endpoint is"
                                        + " reachable.",
                                what,
                                attempts,
                                millis,
                                last.getMessage(),
                                policy.maxAttempts() - 1,
                                policy.maxBackoff().toMillis()),
                        last);
        if (first != null && first != last) {
            e.addSuppressed(first);
        }
        return e;
    }

    private void checkInFile(long position, int length) throws EOFException {
        FileId file = delegate().file();
        if (position < 0 || length < 0 || position + length > file.length()) {
            throw new EOFException(
                    String.format(
                            "read of %d bytes at offset %d is past the end of %s (%d bytes): the"
                                    + " file is truncated or was rewritten",
                            length, position, file.path(), file.length()));
        }
    }

    private String describe(long position, int length) {
        return String.format(
                "Read of bytes [%d, %d) (%d bytes) of %s",
                position, position + length, length, delegate().file().path());
    }

    private String describe(List<FileRange> ranges) {
        StringBuilder s = new StringBuilder("Read of ");
        s.append(ranges.size()).append(ranges.size() == 1 ? " range " : " ranges ");
        int shown = Math.min(ranges.size(), 4);
        for (int i = 0; i < shown; i++) {
            FileRange r = ranges.get(i);
            s.append(i == 0 ? "" : ", ")
                    .append('[')
                    .append(r.offset())
                    .append(", ")
                    .append(r.end())
                    .append(')');
        }
        if (shown < ranges.size()) {
            s.append(", ...");
        }
        return s.append(" of ").append(delegate().file().path()).toString();
    }
}
