package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.read.InFlightReads;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.engine.read.OpenFile;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.engine.read.PagesPending;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Owns one asynchronous lookup. It runs the synchronous lookup code with bytes that are at hand
 * (pages of local files, read inline; bytes of earlier waves); when it needs bytes still to come,
 * it starts their requests (with the value pages the key page's rows will need, so a cold lookup is
 * one round trip), returns the thread, and replays the lookup when they arrive. No thread waits on
 * a request. A page read ahead inside a longer range (a column's pages under a key page, fetched as
 * one range) is taken out of that range's bytes: every byte fetched once.
 */
final class AsyncLookup extends LookupContext {

    /** Waves of requests one lookup may take before it is considered stuck. */
    private static final int MAX_WAVES = 64;

    private record RangeKey(InFlightReads reads, FileRange range) {}

    private record Pending(RangeKey key, CompletableFuture<byte[]> bytes, boolean readAhead) {}

    /** The lookup itself, replayed with the bytes at hand: the synchronous code. */
    @FunctionalInterface
    interface Attempt {
        List<Object[]> run(LookupContext ctx) throws IOException;
    }

    private final String path;
    private final Attempt lookup;
    private final LookupPlan plan;
    // The columns whose pages a key page's rows need (read ahead): built on the first read-ahead.
    @Nullable private List<String> readAheadColumns;
    private final RequestLimiter limiter;
    private final CompletableFuture<List<Object[]>> result = new CompletableFuture<>();

    /** Bytes of earlier waves; null until the first wave. */
    @Nullable private Map<RangeKey, byte[]> fetched;

    private final List<Pending> pending = new ArrayList<>(0);

    /** A row group's page index this lookup asked for. */
    private record IndexKey(RowGroupIndexes owner, int rowGroup) {}

    /** Page-index reads this lookup waits for or got, by row group; null until the first. */
    @Nullable private Map<IndexKey, CompletableFuture<RowGroupInfo>> indexReads;

    /** Page-index reads and key index builds the next wave waits for. */
    private final List<CompletableFuture<?>> indexWaits = new ArrayList<>(0);

    @Nullable private OpenFile currentFile;
    private int waves;

    /**
     * An asynchronous run of {@code lookup} of {@code plan} in the table at {@code path} (the pages
     * a hit reads are read ahead: its projected columns, and its later key columns).
     */
    AsyncLookup(String path, Attempt lookup, LookupPlan plan, RequestLimiter limiter) {
        this.path = path;
        this.lookup = lookup;
        this.plan = plan;
        this.limiter = limiter;
    }

    CompletableFuture<List<Object[]>> run() {
        attempt();
        return result;
    }

    private void attempt() {
        try {
            result.complete(lookup.run(this));
        } catch (PagesPending p) {
            awaitWave();
        } catch (Throwable t) {
            result.completeExceptionally(t);
        }
    }

    private void awaitWave() {
        if (++waves > MAX_WAVES) {
            result.completeExceptionally(
                    new IOException(
                            "lookup in "
                                    + path
                                    + " still needed more pages after "
                                    + MAX_WAVES
                                    + " waves of reads"));
            return;
        }
        List<Pending> wave = new ArrayList<>(pending);
        pending.clear();
        CompletableFuture<?>[] futures = new CompletableFuture<?>[wave.size() + indexWaits.size()];
        for (int i = 0; i < wave.size(); i++) {
            futures[i] = wave.get(i).bytes();
        }
        // A failed page-index read fails the lookup when it replays and asks for it again.
        for (int i = 0; i < indexWaits.size(); i++) {
            futures[wave.size() + i] = indexWaits.get(i);
        }
        indexWaits.clear();
        CompletableFuture.allOf(futures)
                .whenComplete(
                        (ignored, failure) -> {
                            if (fetched == null) {
                                fetched = new HashMap<>();
                            }
                            for (Pending p : wave) {
                                CompletableFuture<byte[]> bytes = p.bytes();
                                if (!bytes.isCompletedExceptionally()) {
                                    fetched.put(p.key(), bytes.join());
                                } else if (!p.readAhead()) {
                                    result.completeExceptionally(unwrap(failure(bytes)));
                                    return;
                                }
                            }
                            attempt();
                        });
    }

    /**
     * A lazily read page index not at hand is read asynchronously, within the limiter, shared with
     * other lookups that need it; the lookup replays when it is here.
     */
    @Override
    public RowGroupInfo rowGroup(FileMetadata meta, RangeSource source, int r) throws IOException {
        RowGroupIndexes lazy = meta.rowGroupIndexes();
        if (lazy == null || source.readsInline()) {
            return super.rowGroup(meta, source, r);
        }
        RowGroupInfo info = held(lazy, r);
        if (info != null) {
            return info;
        }
        IndexKey k = new IndexKey(lazy, r);
        CompletableFuture<RowGroupInfo> read = indexReads == null ? null : indexReads.get(k);
        if (read == null) {
            info = lazy.cached(r);
            if (info != null) {
                hold(lazy, info);
                return info;
            }
            read = lazy.loadAsync(r, limiter);
            if (indexReads == null) {
                indexReads = new HashMap<>();
            }
            indexReads.put(k, read);
        }
        if (!read.isDone()) {
            indexWaits.add(read);
            throw PagesPending.INSTANCE;
        }
        if (read.isCompletedExceptionally()) {
            throw asIOException(unwrap(failure(read)));
        }
        info = read.join();
        hold(lazy, info);
        return info;
    }

    @Override
    public boolean returnsThread() {
        return true;
    }

    @Override
    public boolean awaits(CompletableFuture<?> work) {
        indexWaits.add(work);
        return true;
    }

    @Override
    public void nextFile(OpenFile file) {
        super.nextFile(file);
        currentFile = file;
    }

    @Override
    protected byte[][] read(InFlightReads reads, List<FileRange> ranges, List<LoadedPage> pages)
            throws IOException {
        RangeSource source = reads.source();
        if (source.readsInline()) {
            return super.read(reads, ranges, pages); // local: as the synchronous lookup does
        }
        byte[][] out = new byte[ranges.size()][];
        List<FileRange> need = null;
        List<Integer> slots = null;
        for (int i = 0; i < out.length; i++) {
            byte[] bytes = fetched == null ? null : fetched(reads, ranges.get(i));
            if (bytes == null) {
                // On the local disk tier: read here, no request, no future (a warm lookup).
                bytes = source.readHeld(ranges.get(i));
            }
            if (bytes != null) {
                out[i] = bytes;
            } else {
                if (need == null) {
                    need = new ArrayList<>(out.length);
                    slots = new ArrayList<>(out.length);
                }
                need.add(ranges.get(i));
                slots.add(i);
            }
        }
        if (need == null) {
            return out;
        }
        List<CompletableFuture<byte[]>> futures = reads.fetch(need, limiter);
        boolean waiting = false;
        for (int j = 0; j < futures.size(); j++) {
            CompletableFuture<byte[]> future = futures.get(j);
            if (!future.isDone()) {
                waiting = true;
                pending.add(new Pending(new RangeKey(reads, need.get(j)), future, false));
            } else if (future.isCompletedExceptionally()) {
                throw asIOException(unwrap(failure(future)));
            } else {
                out[slots.get(j)] = future.join();
            }
        }
        if (!waiting) {
            return out; // local or cached: no thread hand-off
        }
        if (currentFile != null && currentFile.reads() == reads && !pages.isEmpty()) {
            readAhead(reads, currentFile.readAhead(pages, readAheadColumns()));
        }
        throw PagesPending.INSTANCE;
    }

    /** The bytes of {@code range} fetched by an earlier wave, alone or inside a longer range. */
    @Nullable
    private byte[] fetched(InFlightReads reads, FileRange range) {
        byte[] bytes = fetched.get(new RangeKey(reads, range));
        if (bytes != null) {
            return bytes;
        }
        for (Map.Entry<RangeKey, byte[]> e : fetched.entrySet()) {
            FileRange run = e.getKey().range();
            if (e.getKey().reads() == reads && run.contains(range)) {
                int from = (int) (range.offset() - run.offset());
                return Arrays.copyOfRange(e.getValue(), from, from + range.length());
            }
        }
        return null;
    }

    /**
     * The projected columns, and for a sort-key lookup of more than one column its later key
     * columns (the composite key search reads their pages under the leading key's rows).
     */
    private List<String> readAheadColumns() {
        if (readAheadColumns == null) {
            List<String> keys = plan.keyColumns();
            if (plan.secondary() || keys.size() < 2) {
                readAheadColumns = plan.projectedColumns();
            } else {
                Set<String> columns = new LinkedHashSet<>(plan.projectedColumns());
                columns.addAll(keys.subList(1, keys.size()));
                readAheadColumns = List.copyOf(columns);
            }
        }
        return readAheadColumns;
    }

    private void readAhead(InFlightReads reads, List<FileRange> ranges) {
        if (ranges.isEmpty()) {
            return;
        }
        List<FileRange> wanted = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            RangeKey k = new RangeKey(reads, range);
            if ((fetched == null || !fetched.containsKey(k)) && !isPending(k)) {
                wanted.add(range);
            }
        }
        if (wanted.isEmpty()) {
            return;
        }
        List<CompletableFuture<byte[]>> futures = reads.fetch(wanted, limiter);
        for (int i = 0; i < futures.size(); i++) {
            pending.add(new Pending(new RangeKey(reads, wanted.get(i)), futures.get(i), true));
        }
    }

    private boolean isPending(RangeKey k) {
        for (Pending p : pending) {
            if (p.key().equals(k)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected byte[] read(InFlightReads reads, FileRange range) throws IOException {
        if (reads.source().readsInline()) {
            return super.read(reads, range);
        }
        return read(reads, List.of(range), List.of())[0];
    }

    /** The failure of a failed {@code future}, as {@code join} throws it. */
    static Throwable failure(CompletableFuture<?> future) {
        try {
            future.join();
            throw new IllegalStateException("future did not fail");
        } catch (CompletionException e) {
            return e;
        } catch (RuntimeException e) {
            return e;
        }
    }

    /** {@code t} without its {@link CompletionException} wrappers. */
    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static IOException asIOException(Throwable t) {
        if (t instanceof IOException io) {
            return io;
        }
        if (t instanceof RuntimeException re) {
            throw re;
        }
        if (t instanceof Error error) {
            throw error;
        }
        return new IOException(t);
    }
}
