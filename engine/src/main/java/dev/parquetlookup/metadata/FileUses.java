package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many open snapshots use each file version with one shared cache. A cache is shared by every
 * lookup function of a TaskManager, and each function refreshes its own table: a file's entries
 * leave the cache only when the last snapshot using it closes. Entries are removed at zero, so it
 * holds only files of open snapshots.
 *
 * <p>Example: {@code uses.retain(f); ...; if (uses.release(f)) cache.invalidate(f);}
 */
public final class FileUses {

    private final ConcurrentHashMap<FileId, Integer> counts = new ConcurrentHashMap<>();

    /** One more open snapshot uses {@code file}. */
    public void retain(FileId file) {
        counts.merge(file, 1, Integer::sum);
    }

    /**
     * One open snapshot fewer uses {@code file}; returns whether that was the last one (a release
     * without a matching retain counts as the last).
     */
    public boolean release(FileId file) {
        return counts.compute(file, (k, n) -> n == null || n <= 1 ? null : n - 1) == null;
    }

    /** Files in use; for tests. */
    public int files() {
        return counts.size();
    }
}
