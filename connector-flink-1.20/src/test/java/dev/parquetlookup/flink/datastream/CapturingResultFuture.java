package dev.parquetlookup.flink.datastream;

import org.apache.flink.streaming.api.functions.async.ResultFuture;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ResultFuture} that hands what it gets to a {@link CompletableFuture}, for calling an
 * async function directly in a test: {@code fn.timeout(input, new CapturingResultFuture<>(f))}.
 *
 * <p>The Flink 1.20 stand-in for the 2.x test class of this name in {@code connector/}: Flink
 * 1.20's {@code ResultFuture} has no {@code complete(CollectionSupplier)}.
 */
final class CapturingResultFuture<T> implements ResultFuture<T> {

    private final CompletableFuture<Collection<T>> future;

    CapturingResultFuture(CompletableFuture<Collection<T>> future) {
        this.future = future;
    }

    @Override
    public void complete(Collection<T> result) {
        future.complete(result);
    }

    @Override
    public void completeExceptionally(Throwable error) {
        future.completeExceptionally(error);
    }
}
