package dev.parquetlookup.io;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Owns the bound on read requests in flight: a call counting {@code n} requests starts at once
 * while at most {@code maxInFlight} are out, otherwise it waits in a queue and starts when earlier
 * ones complete. No thread waits: a queued call is started by the thread that completes a request.
 * A call larger than the bound starts alone once nothing else is out, so nothing waits forever.
 *
 * <p>Example: {@code limiter.submit(2, () -> source.readAllAsync(twoRanges))}.
 */
public final class RequestLimiter {

    private final int maxInFlight;
    private final ArrayDeque<Queued<?>> queue = new ArrayDeque<>();
    private int inFlight;
    private int peak;
    private boolean closed;

    public RequestLimiter(int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException(
                    "requests in flight must be at least 1, got " + maxInFlight);
        }
        this.maxInFlight = maxInFlight;
    }

    /** A limiter that never queues (synchronous callers, tests). */
    public static RequestLimiter unbounded() {
        return new RequestLimiter(Integer.MAX_VALUE);
    }

    public int maxInFlight() {
        return maxInFlight;
    }

    /** The most requests ever out at once through this limiter. */
    public synchronized int peakInFlight() {
        return peak;
    }

    /** Requests out now. */
    public synchronized int inFlight() {
        return inFlight;
    }

    /** Runs {@code call} (counting {@code requests} requests) now or when the bound allows it. */
    public <T> CompletableFuture<T> submit(int requests, Supplier<CompletableFuture<T>> call) {
        Queued<T> queued;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(
                        new IOException("reads stopped: the lookup function is closing"));
            }
            if (queue.isEmpty() && fits(requests)) {
                take(requests);
                queued = null;
            } else {
                queued = new Queued<>(requests, call, new CompletableFuture<>());
                queue.add(queued);
            }
        }
        if (queued != null) {
            return queued.result;
        }
        return start(requests, call);
    }

    private boolean fits(int requests) {
        return inFlight == 0 || (long) inFlight + requests <= maxInFlight;
    }

    private void take(int requests) {
        inFlight += requests;
        peak = Math.max(peak, inFlight);
    }

    private <T> CompletableFuture<T> start(int requests, Supplier<CompletableFuture<T>> call) {
        CompletableFuture<T> future;
        try {
            future = call.get();
        } catch (Throwable t) {
            future = CompletableFuture.failedFuture(t);
        }
        return future.whenComplete((value, failure) -> release(requests));
    }

    private void release(int requests) {
        List<Queued<?>> ready = null;
        synchronized (this) {
            inFlight -= requests;
            while (!queue.isEmpty() && fits(queue.peek().requests)) {
                Queued<?> next = queue.poll();
                take(next.requests);
                if (ready == null) {
                    ready = new ArrayList<>(2);
                }
                ready.add(next);
            }
        }
        if (ready != null) {
            for (Queued<?> next : ready) {
                next.run(this);
            }
        }
    }

    /** Fails every queued call; later calls fail at once. Requests already out run to their end. */
    public void close() {
        List<Queued<?>> dropped;
        synchronized (this) {
            closed = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
        }
        for (Queued<?> q : dropped) {
            q.result.completeExceptionally(
                    new IOException("reads stopped: the lookup function is closing"));
        }
    }

    private record Queued<T>(
            int requests, Supplier<CompletableFuture<T>> call, CompletableFuture<T> result) {
        void run(RequestLimiter limiter) {
            limiter.start(requests, call)
                    .whenComplete(
                            (value, failure) -> {
                                if (failure != null) {
                                    result.completeExceptionally(failure);
                                } else {
                                    result.complete(value);
                                }
                            });
        }
    }
}
