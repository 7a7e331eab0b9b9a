package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.MetadataCache;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One immutable version of a {@link RefreshingTable}: its {@link DimensionTable}, its reference
 * count (1 while it is the table's current one, plus one per lookup in flight) and its use of the
 * shared caches' files. The last release closes it.
 */
final class Snapshot {
    private static final Logger LOG = LoggerFactory.getLogger(Snapshot.class);

    final DimensionTable table;
    final long version;
    final String location;
    final String sourceVersion;

    /** The files read (a file's local form in place of the file once it is ready). */
    final Set<FileId> files;

    /** The files the listing named: what a refresh compares with the next listing. */
    final Set<FileId> listed;

    final long newestFileMillis;
    final long publishedAtMillis = System.currentTimeMillis();
    private final AtomicInteger references = new AtomicInteger(1);

    /**
     * What the last release calls once a table owns the snapshot (its bookkeeping, closing the
     * table and {@link #releaseFiles}); without one, the last release does both itself.
     */
    @Nullable volatile Consumer<Snapshot> onLastRelease;

    private final MetadataCache metadataCache;
    @Nullable private final PageCache pageCache;

    Snapshot(
            DimensionTable table,
            long version,
            String location,
            String sourceVersion,
            Set<FileId> listed,
            MetadataCache metadataCache,
            @Nullable PageCache pageCache) {
        this.table = table;
        this.listed = Set.copyOf(listed);
        this.version = version;
        this.location = location;
        this.sourceVersion = sourceVersion;
        this.metadataCache = metadataCache;
        this.pageCache = pageCache;
        this.files = Set.copyOf(table.files());
        for (FileId f : files) {
            metadataCache.uses().retain(f);
            if (pageCache != null) {
                pageCache.uses().retain(f);
            }
        }
        long newest = 0;
        for (FileId f : this.listed) {
            newest = Math.max(newest, f.modificationTime());
        }
        this.newestFileMillis = newest;
    }

    /**
     * Drops this snapshot's use of its files; with {@code invalidate}, the entries of files nothing
     * else uses leave the caches. Returns those files.
     */
    Set<FileId> releaseFiles(boolean invalidate) {
        Set<FileId> dropped = new HashSet<>();
        for (FileId f : files) {
            boolean last = metadataCache.uses().release(f);
            if (last && invalidate) {
                metadataCache.invalidate(f);
                dropped.add(f);
            }
            if (pageCache != null && pageCache.uses().release(f) && invalidate) {
                pageCache.invalidate(f);
            }
        }
        return dropped;
    }

    boolean tryRetain() {
        while (true) {
            int n = references.get();
            if (n <= 0) {
                return false;
            }
            if (references.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void release() {
        int n = references.decrementAndGet();
        if (n == 0) {
            Consumer<Snapshot> close = onLastRelease;
            if (close != null) {
                close.accept(this);
            } else {
                try {
                    table.close();
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Closing an unused snapshot failed: {}", e.toString());
                }
                releaseFiles(true);
            }
        } else if (n < 0) {
            throw new IllegalStateException("snapshot released more often than acquired");
        }
    }
}
