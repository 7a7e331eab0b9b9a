package dev.parquetlookup.engine.read;

import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Owns one file's asynchronous range reads in flight: a range already asked for by one lookup is
 * shared with every other lookup that needs it (single flight); new ranges are read together in one
 * {@link RangeSource#readAllAsync} started within the caller's {@link RequestLimiter}. Thread-safe.
 */
public final class InFlightReads {

    private final RangeSource source;

    /** Requests in flight by range: a second lookup needing the range joins the first's. */
    private final ConcurrentHashMap<FileRange, CompletableFuture<byte[]>> inFlight =
            new ConcurrentHashMap<>();

    InFlightReads(RangeSource source) {
        this.source = source;
    }

    /** The file's source, for the reads made in the caller's thread. */
    public RangeSource source() {
        return source;
    }

    /**
     * Starts (or joins) one request per range: a range already in flight for another lookup is
     * shared, the others are read in one {@link RangeSource#readAllAsync} started within {@code
     * limiter}. Local sources complete the futures before this returns.
     */
    public List<CompletableFuture<byte[]>> fetch(List<FileRange> ranges, RequestLimiter limiter) {
        List<CompletableFuture<byte[]>> result = new ArrayList<>(ranges.size());
        List<FileRange> mine = null;
        List<CompletableFuture<byte[]>> mineFutures = null;
        for (FileRange range : ranges) {
            CompletableFuture<byte[]> future = new CompletableFuture<>();
            CompletableFuture<byte[]> existing = inFlight.putIfAbsent(range, future);
            if (existing != null) {
                result.add(existing);
                continue;
            }
            if (mine == null) {
                mine = new ArrayList<>(ranges.size());
                mineFutures = new ArrayList<>(ranges.size());
            }
            mine.add(range);
            mineFutures.add(future);
            result.add(future);
        }
        if (mine != null) {
            List<FileRange> requested = mine;
            List<CompletableFuture<byte[]>> futures = mineFutures;
            limiter.submit(requested.size(), () -> source.readAllAsync(requested))
                    .whenComplete(
                            (bytes, failure) -> {
                                for (int i = 0; i < futures.size(); i++) {
                                    inFlight.remove(requested.get(i), futures.get(i));
                                    if (failure != null) {
                                        futures.get(i).completeExceptionally(unwrap(failure));
                                    } else {
                                        futures.get(i).complete(bytes[i]);
                                    }
                                }
                            });
        }
        return result;
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
