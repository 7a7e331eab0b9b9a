package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;

import javax.annotation.Nullable;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.AbstractList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * The row groups of one open file whose page index is read lazily ({@link LazyPageIndex}) or
 * synthesized lazily from page headers ({@link LazySynthesis}): row group {@code r} is fetched and
 * decoded (or walked) on its first use, kept in the bounded {@link MetadataCache} (weighed by its
 * bytes), and fetched again after it was evicted. As a {@code List<RowGroupInfo>}, {@link
 * #get(int)} returns a row group with its page index, reading it on the calling thread when needed;
 * an asynchronous lookup asks {@link #loadAsync} instead, so no thread waits on the read.
 *
 * <p>Single flight: concurrent loads of one row group share one read (synchronous and asynchronous
 * alike). A failed read leaves nothing behind: the next use reads again.
 *
 * <p>A row group a lookup is using stays reachable through a weak reference while the lookup holds
 * it, so an eviction in the middle of a lookup never reads it twice; without a cache (tools) every
 * row group read is kept.
 *
 * <p>Example: {@code RowGroupIndexes rgs = meta.rowGroupIndexes(); RowGroupInfo rg = rgs.get(3);}
 * costs one ranged read the first time, none while row group 3 stays cached.
 */
public final class RowGroupIndexes extends AbstractList<RowGroupInfo> {

    private final Plan index;
    private final List<String> sortKey;
    private final RangeSource source;
    @Nullable private final MetadataCache cache;
    // Per row group: a WeakReference<RowGroupInfo> with a cache, the RowGroupInfo itself without.
    private final AtomicReferenceArray<Object> recent;
    private final ConcurrentHashMap<Integer, CompletableFuture<RowGroupInfo>> loading =
            new ConcurrentHashMap<>();
    private final AtomicLong reads = new AtomicLong();

    RowGroupIndexes(
            Plan index, List<String> sortKey, RangeSource source, @Nullable MetadataCache cache) {
        this.index = index;
        this.sortKey = List.copyOf(sortKey);
        this.source = source;
        this.cache = cache;
        this.recent = new AtomicReferenceArray<>(index.rowGroupCount());
    }

    /** How each row group's index is read or synthesized. */
    public Plan index() {
        return index;
    }

    /** These row groups read through {@code source}, kept in {@code cache}. */
    RowGroupIndexes bind(RangeSource source, MetadataCache cache) {
        return new RowGroupIndexes(index, sortKey, source, cache);
    }

    @Override
    public int size() {
        return index.rowGroupCount();
    }

    /**
     * Row group {@code r} with its page index, read on the calling thread when not at hand.
     *
     * @throws java.io.UncheckedIOException if the read fails (its cause names file and row group)
     * @throws LookupFileException if the index is damaged or its pages are out of order
     */
    @Override
    public RowGroupInfo get(int r) {
        RowGroupInfo info = cached(r);
        if (info != null) {
            return info;
        }
        try {
            return load(r);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Row group {@code r} with its page index if it is at hand without a read, else null. */
    @Nullable
    public RowGroupInfo cached(int r) {
        Object kept = recent.get(r);
        RowGroupInfo info =
                kept instanceof WeakReference<?> w ? (RowGroupInfo) w.get() : (RowGroupInfo) kept;
        if (info != null) {
            return info;
        }
        if (cache != null) {
            info = cache.rowGroup(index.file(), sortKey, r);
            if (info != null) {
                recent.set(r, new WeakReference<>(info));
            }
        }
        return info;
    }

    /** Row group {@code r} with its page index, read on this thread (one read per row group). */
    public RowGroupInfo load(int r) throws IOException {
        CompletableFuture<RowGroupInfo> mine = new CompletableFuture<>();
        CompletableFuture<RowGroupInfo> other = loading.putIfAbsent(r, mine);
        if (other != null) {
            return join(other);
        }
        try {
            RowGroupInfo info = cached(r);
            if (info == null) {
                reads.incrementAndGet();
                RowGroupInfo loaded;
                try {
                    loaded = index.load(r, source);
                } catch (IOException e) {
                    throw readFailure(r, index.ranges(r), e);
                }
                info = keep(loaded);
            }
            mine.complete(info);
            return info;
        } catch (IOException | RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(r, mine);
        }
    }

    /**
     * Row group {@code r} with its page index: a completed future when at hand, else one read
     * started within {@code limiter} (or joined, when another lookup started it). The future fails
     * with an {@link IOException} naming file and row group, or a {@link LookupFileException}.
     */
    public CompletableFuture<RowGroupInfo> loadAsync(int r, RequestLimiter limiter) {
        RowGroupInfo at = cached(r);
        if (at != null) {
            return CompletableFuture.completedFuture(at);
        }
        CompletableFuture<RowGroupInfo> mine = new CompletableFuture<>();
        CompletableFuture<RowGroupInfo> other = loading.putIfAbsent(r, mine);
        if (other != null) {
            return other;
        }
        RowGroupInfo raced = cached(r);
        if (raced != null) {
            mine.complete(raced);
            loading.remove(r, mine);
            return mine;
        }
        List<FileRange> ranges = index.ranges(r);
        reads.incrementAndGet();
        BiConsumer<byte[][], Throwable> done =
                (bytes, failure) -> {
                    try {
                        if (failure != null) {
                            // I/O failures name the row group; others (a lost mapped
                            // page's InternalError) pass as they are, for the caller.
                            Throwable cause = unwrap(failure);
                            mine.completeExceptionally(
                                    cause instanceof IOException
                                            ? readFailure(r, ranges, cause)
                                            : cause);
                        } else {
                            mine.complete(keep(index.decode(r, bytes, source)));
                        }
                    } catch (IOException e) {
                        mine.completeExceptionally(readFailure(r, ranges, e));
                    } catch (RuntimeException | Error e) {
                        mine.completeExceptionally(e);
                    } finally {
                        loading.remove(r, mine);
                    }
                };
        CompletableFuture<byte[][]> fetch =
                limiter.submit(ranges.size(), () -> source.readAllAsync(ranges));
        if (index instanceof LazySynthesis) {
            // Walking a row group's pages (decoding key pages) is not for an I/O thread.
            fetch.whenCompleteAsync(done);
        } else {
            fetch.whenComplete(done);
        }
        return mine;
    }

    /** Reads of row-group indexes started so far (single flight: one per cold row group). */
    public long reads() {
        return reads.get();
    }

    private RowGroupInfo keep(RowGroupInfo info) {
        if (cache == null) {
            recent.set(info.ordinal(), info);
        } else {
            recent.set(info.ordinal(), new WeakReference<>(info));
            cache.putRowGroup(index.file(), sortKey, info);
        }
        return info;
    }

    private IOException readFailure(int r, List<FileRange> ranges, Throwable cause) {
        String bytes =
                ranges.isEmpty()
                        ? ""
                        : " (bytes "
                                + ranges.get(0).offset()
                                + "-"
                                + ranges.get(ranges.size() - 1).end()
                                + ")";
        return new IOException(
                index.action()
                        + " of row group "
                        + r
                        + " of file "
                        + index.file()
                        + bytes
                        + " failed: "
                        + cause.getMessage()
                        + ". The lookup fails; the next lookup into the row group reads it again.",
                cause);
    }

    private static RowGroupInfo join(CompletableFuture<RowGroupInfo> future) throws IOException {
        try {
            return future.join();
        } catch (CompletionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        }
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    // AbstractList's equals and hashCode would read every row group.
    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    /**
     * How the row groups of one file get their page index on first use, row group by row group (the
     * enclosing class runs the plan, single flight, into the metadata cache): read from the file's
     * own index ({@link LazyPageIndex}) or synthesized from the row group's page headers ({@link
     * LazySynthesis}). Immutable, taken from the footer at open, shared by every table that opens
     * the file version.
     *
     * <p>Example: {@code plan.load(3, source)} reads row group 3's ColumnIndex and OffsetIndexes
     * (own) or walks its chunks' page headers (synthesized); an asynchronous lookup fetches {@code
     * plan.ranges(3)} without holding a thread and hands the bytes to {@code plan.decode}.
     */
    public abstract static sealed class Plan permits LazyPageIndex, LazySynthesis {

        final FileId file;
        final List<RowGroupInfo> footerRowGroups;
        final SortKeyResolver.SortKey key;
        // False for a file served through a key index: its pages need not be in key order.
        final boolean checkOrder;

        Plan(
                FileId file,
                List<RowGroupInfo> footerRowGroups,
                SortKeyResolver.SortKey key,
                boolean checkOrder) {
            this.file = file;
            this.footerRowGroups = footerRowGroups;
            this.key = key;
            this.checkOrder = checkOrder;
        }

        public FileId file() {
            return file;
        }

        public int rowGroupCount() {
            return footerRowGroups.size();
        }

        /**
         * Row group {@code r} as the footer describes it: no page locations, no key page bounds.
         */
        public RowGroupInfo footerRowGroup(int r) {
            return footerRowGroups.get(r);
        }

        /** The byte ranges one asynchronous build of row group {@code r}'s index fetches. */
        public abstract List<FileRange> ranges(int r);

        /**
         * Row group {@code r} with its page index built from {@code bytes} (the reads of {@link
         * #ranges(int)}); {@code source} reads anything the ranges left out.
         *
         * @throws LookupFileException if the index or the pages are damaged, or out of order
         */
        public abstract RowGroupInfo decode(int r, byte[][] bytes, RangeSource source)
                throws IOException;

        /** Row group {@code r} with its page index, read through {@code source} on this thread. */
        public RowGroupInfo load(int r, RangeSource source) throws IOException {
            return decode(r, source.readAll(ranges(r)), source);
        }

        /** What building a row group's index does, for messages: "Reading the page index". */
        public abstract String action();

        /** Approximate heap size of this plan (footer row groups included). */
        public abstract long retainedBytes();

        /**
         * {@code info} once the order of its key pages is checked (unless this plan checks none).
         *
         * @throws LookupFileException if the pages are out of order
         */
        RowGroupInfo checked(RowGroupInfo info) {
            if (checkOrder) {
                SortOrderCheck.pageViolation(file, key.names().get(0), info)
                        .ifPresent(
                                v -> {
                                    throw v.toException();
                                });
            }
            return info;
        }
    }
}
