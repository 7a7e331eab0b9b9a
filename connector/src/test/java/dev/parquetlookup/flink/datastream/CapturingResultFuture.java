package dev.parquetlookup.flink.datastream;

import org.apache.flink.streaming.api.functions.async.CollectionSupplier;
import org.apache.flink.streaming.api.functions.async.ResultFuture;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link ResultFuture} that hands what it gets to a {@link CompletableFuture}, for calling an
 * async function directly in a test: {@code fn.timeout(input, new CapturingResultFuture<>(f))}.
 *
 * <p>Compiled against Flink 2.x, whose {@code ResultFuture} also has {@code
 * complete(CollectionSupplier)}; the same class runs on Flink 1.20 (connector-flink-1.20 runs these
 * tests), where that method is never called.
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

    @Override
    public void complete(CollectionSupplier<T> supplier) {
        throw new UnsupportedOperationException("the connector completes with a collection");
    }
}
