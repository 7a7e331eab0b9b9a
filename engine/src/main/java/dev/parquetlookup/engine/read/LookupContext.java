package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.codec.ScratchBuffers;
import dev.parquetlookup.engine.codec.ScratchBuffers.Scratch;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Owns the state of one lookup in one file: the pages it already decoded (a key page read to find
 * the rows is reused to read them) and the way missing bytes come in. This base reads them
 * synchronously from the file's source; an asynchronous lookup's context (a subclass) takes them
 * from requests in flight instead.
 */
public class LookupContext implements Scratch {

    /** Pages decoded by this lookup in the current file. */
    final List<LoadedPage> loaded = new ArrayList<>(2);

    /** Arrays taken from {@link ScratchBuffers} for this lookup's pages. */
    private byte[][] scratch;

    private int scratchCount;

    /** A row group whose lazily read page index this lookup uses. */
    private record Held(RowGroupIndexes owner, RowGroupInfo info) {}

    /**
     * Row groups with a lazily read page index this lookup resolved, held (strongly) until it ends
     * so an eviction from the metadata cache never makes it read one twice; null until the first.
     */
    @Nullable private List<Held> held;

    /**
     * Row group {@code r} of {@code meta} with its page index: read on this thread when it is lazy
     * and not at hand (one read per row group however many lookups need it); {@code source} is the
     * file's.
     */
    public RowGroupInfo rowGroup(FileMetadata meta, RangeSource source, int r) throws IOException {
        RowGroupIndexes lazy = meta.rowGroupIndexes();
        if (lazy == null) {
            return meta.rowGroups().get(r);
        }
        RowGroupInfo info = held(lazy, r);
        if (info == null) {
            info = lazy.cached(r);
            if (info == null) {
                info = lazy.load(r);
            }
            hold(lazy, info);
        }
        return info;
    }

    @Nullable
    protected final RowGroupInfo held(RowGroupIndexes owner, int r) {
        if (held != null) {
            for (Held h : held) {
                if (h.owner() == owner && h.info().ordinal() == r) {
                    return h.info();
                }
            }
        }
        return null;
    }

    protected final void hold(RowGroupIndexes owner, RowGroupInfo info) {
        if (held == null) {
            held = new ArrayList<>(2);
        }
        held.add(new Held(owner, info));
    }

    /**
     * The bytes of {@code ranges} of the file {@code reads} reads, one array per range; {@code
     * pages} are the data pages they hold (placeholders, for read-ahead decisions), or empty.
     */
    protected byte[][] read(InFlightReads reads, List<FileRange> ranges, List<LoadedPage> pages)
            throws IOException {
        return reads.source().readAll(ranges);
    }

    /** The bytes of one range (a dictionary page, a whole chunk). */
    protected byte[] read(InFlightReads reads, FileRange range) throws IOException {
        return reads.source().read(range);
    }

    /**
     * An array of at least {@code size} bytes that this lookup owns until {@link
     * #releaseScratch()}: pages decoded into it must not outlive the lookup (never cached).
     */
    @Override
    public byte[] scratch(int size) {
        byte[] b = ScratchBuffers.take(size);
        if (scratch == null) {
            scratch = new byte[4][];
        } else if (scratchCount == scratch.length) {
            scratch = java.util.Arrays.copyOf(scratch, scratchCount * 2);
        }
        scratch[scratchCount++] = b;
        return b;
    }

    /** Gives the scratch arrays back: the pages decoded into them are no longer read. */
    public void releaseScratch() {
        for (int i = 0; i < scratchCount; i++) {
            ScratchBuffers.give(scratch[i]);
            scratch[i] = null;
        }
        scratchCount = 0;
    }

    /**
     * Whether this lookup returns its thread while {@code work} (a key index build it needs) is
     * unfinished, and replays when it is done: false here (a synchronous lookup builds or waits in
     * its thread); an asynchronous lookup keeps {@code work} and returns true, and the caller then
     * skips the file for this wave and throws {@link PagesPending} at the end.
     */
    public boolean awaits(CompletableFuture<?> work) {
        return false;
    }

    /** Whether this lookup returns its thread while work it needs is unfinished. */
    public boolean returnsThread() {
        return false;
    }

    /** Starts over in the next file. */
    public void nextFile(OpenFile file) {
        loaded.clear();
        releaseScratch();
    }
}
