package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The client of one object store for ranged reads: every read of a remote file whose store has one
 * (lookups, synchronous reads, the footer at open, the disk tier's warm-up) is a request of this
 * client, and no thread is held while a request is out. A store adds one with an {@link
 * AsyncRangeReaderFactory} registered for its URI scheme.
 *
 * <p>The reader maps its store's answers to the engine's failures: a file that is no longer the
 * version listed ({@code If-Match} refused, another ETag) is a {@link FileChangedException}, a
 * missing object a {@link java.io.FileNotFoundException}, a failure that may heal by waiting
 * (throttling, HTTP 5xx, a dropped connection, a timeout) a {@link TransientReadException}; every
 * other failure is an {@link java.io.IOException} naming the file and range, and is not retried. It
 * does not retry itself: {@link RetryingRangeSource} does, above every store.
 *
 * <p>Example: {@code byte[][] pages = reader.readAll(file, List.of(new FileRange(4,
 * 1024))).join();}
 */
public interface AsyncRangeReader extends AutoCloseable {

    /**
     * Reads {@code ranges} of {@code file} (each inside the file's listed length). The future
     * completes with one array per range, in order, or fails with an {@link java.io.IOException}
     * (see the class comment). Cancelling the future aborts the requests still out. It may complete
     * on the client's own threads: what follows it must not block.
     */
    CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges);

    /**
     * One read of {@code ranges} made of one request per range, for readers that send each range on
     * its own: {@code get} starts the request of range {@code i} (its bytes as a one-element array;
     * empty ranges are not asked for); the result holds their bytes in order. A read of one range
     * is that range's request itself. The first failure fails the read and cancels the other
     * requests, and cancelling the result cancels, and so aborts, every request.
     */
    static CompletableFuture<byte[][]> eachRange(
            List<FileRange> ranges, IntFunction<CompletableFuture<byte[][]>> get) {
        if (ranges.size() == 1 && ranges.get(0).length() > 0) {
            return get.apply(0);
        }
        byte[][] result = new byte[ranges.size()][];
        if (result.length == 0) {
            return CompletableFuture.completedFuture(result);
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<byte[][]>[] gets = new CompletableFuture[result.length];
        for (int i = 0; i < gets.length; i++) {
            gets[i] =
                    ranges.get(i).length() == 0
                            ? CompletableFuture.completedFuture(new byte[][] {new byte[0]})
                            : get.apply(i);
        }
        CompletableFuture<byte[][]> all = new CompletableFuture<>();
        AtomicInteger left = new AtomicInteger(gets.length);
        for (int i = 0; i < gets.length; i++) {
            int index = i;
            gets[i].whenComplete(
                    (bytes, failure) -> {
                        if (failure != null) {
                            all.completeExceptionally(failure);
                        } else {
                            result[index] = bytes[0];
                            if (left.decrementAndGet() == 0) {
                                all.complete(result);
                            }
                        }
                    });
        }
        all.whenComplete(
                (bytes, failure) -> {
                    if (failure != null) {
                        for (CompletableFuture<byte[][]> g : gets) {
                            g.cancel(true);
                        }
                    }
                });
        return all;
    }

    /**
     * A request's future that tells when the request went on the wire: a hedging reader times the
     * request from then, not from when it was asked for, so a request that waits behind the
     * client's own (for a connection, for its event loop) is not taken for a late answer. A read of
     * one range may return one ({@link #readAll}).
     */
    interface Sent {
        /** What {@link #sentNanos} gives while the request waits to be written. */
        long NOT_YET = Long.MIN_VALUE;

        /** When the request was written ({@link System#nanoTime()}), or {@link #NOT_YET}. */
        long sentNanos();
    }

    /** Releases the client's connections and threads; called once, when the file store closes. */
    @Override
    default void close() {}
}
