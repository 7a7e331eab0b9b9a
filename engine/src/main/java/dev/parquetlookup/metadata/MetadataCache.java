package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parsed footers and page indexes (the files' own or synthesized from page headers), and the
 * decoded dictionaries of column chunks ({@link #chunkValue}), shared by every table in the JVM,
 * bounded in bytes (each entry weighs its {@link FileMetadata#retainedBytes()}, synthesized index
 * included), keyed by path + length + modification time (and the sort key it was verified for, and
 * whether missing page indexes were synthesized) so a rewritten file is never served stale.
 *
 * <p>A file's own page index is read, and a missing one synthesized, row group by row group on
 * first use ({@link RowGroupIndexes}): each row group's index is an entry of its own, weighed by
 * its bytes and read (or synthesized) again after it was evicted. Footers of open tables stay
 * referenced by the tables; the bound is what the row-group indexes may take.
 *
 * <p>Example: {@code cache.get(file, List.of("id"), () -> MetadataReader.read(source,
 * List.of("id")))} parses once; later calls for the same file version return the same object.
 */
public final class MetadataCache {

    /** Default bound of {@link #defaultShared()}: 256 MiB. */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;

    private final long maxBytes;
    private final FileUses uses = new FileUses();
    // Values: FileMetadata (footers) under Key, RowGroupInfo (a row group's lazily read page
    // index) under RowGroupKey, Sized (a chunk's decoded dictionary) under ChunkKey; one bound.
    private final Cache<Object, Object> cache;

    public MetadataCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("metadata cache size must be positive: " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher(
                                (Object k, Object v) ->
                                        (int) Math.min(Integer.MAX_VALUE, weight(v)))
                        .recordStats()
                        .build();
    }

    /** The JVM-wide default instance ({@value #DEFAULT_MAX_BYTES} bytes). */
    public static MetadataCache defaultShared() {
        return Shared.INSTANCE;
    }

    /** Holds the default instance, created on first use (the JVM's lazy class initialisation). */
    private static final class Shared {
        static final MetadataCache INSTANCE = new MetadataCache(DEFAULT_MAX_BYTES);
    }

    /** Loads metadata when it is not cached. */
    @FunctionalInterface
    public interface Loader {
        FileMetadata load() throws IOException;
    }

    /**
     * The metadata of {@code file} verified for {@code sortKey} (empty: the file's own), loading it
     * at most once per key even under concurrent calls. The entry is the one of the engine's
     * default, page-index synthesis on (see {@link #get(FileId, List, boolean, Loader)}).
     */
    public FileMetadata get(FileId file, List<String> sortKey, Loader loader) throws IOException {
        return get(file, sortKey, true, loader);
    }

    /**
     * The metadata of {@code file} verified for {@code sortKey}, with a synthesized page index or
     * not (the two are cached apart: a table with synthesis off never sees a synthesized index).
     */
    public FileMetadata get(
            FileId file, List<String> sortKey, boolean synthesizedPageIndex, Loader loader)
            throws IOException {
        try {
            return (FileMetadata)
                    cache.get(
                            new Key(file, List.copyOf(sortKey), synthesizedPageIndex),
                            k -> {
                                try {
                                    return loader.load();
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * The cached metadata of {@code file} for the key {@link #get(FileId, List, boolean, Loader)}
     * would use, or null; loads nothing. Opening many files reads the footers of the others only.
     */
    @Nullable
    public FileMetadata getIfPresent(
            FileId file, List<String> sortKey, boolean synthesizedPageIndex) {
        // Through the map view: a peek counts as neither hit nor miss in stats().
        return (FileMetadata)
                cache.asMap().get(new Key(file, List.copyOf(sortKey), synthesizedPageIndex));
    }

    /**
     * A cached footer of {@code file} for any sort key, or null; loads nothing (a background task
     * that needs only the file's shape, such as the local form's page-size check, reads it instead
     * of the file).
     */
    @Nullable
    public FileMetadata anyFileMetadata(FileId file) {
        for (Map.Entry<Object, Object> e : cache.asMap().entrySet()) {
            if (e.getKey() instanceof Key k && k.file().equals(file)) {
                return (FileMetadata) e.getValue();
            }
        }
        return null;
    }

    /** Drops every entry of a file version (all sort keys, footers and row-group indexes). */
    public void invalidate(FileId file) {
        cache.asMap().keySet().removeIf(k -> fileOf(k).equals(file));
    }

    private static FileId fileOf(Object key) {
        if (key instanceof Key f) {
            return f.file();
        }
        return key instanceof RowGroupKey r ? r.file() : ((ChunkKey) key).file();
    }

    /** The file versions with an entry (footer or row-group index); for tests and tools. */
    public Set<FileId> files() {
        Set<FileId> files = new HashSet<>();
        for (Object k : cache.asMap().keySet()) {
            files.add(fileOf(k));
        }
        return files;
    }

    /** The cached page index of row group {@code rowGroup} of {@code file}, or null. */
    @Nullable
    RowGroupInfo rowGroup(FileId file, List<String> sortKey, int rowGroup) {
        // Through the map view: no hit or miss recorded, so the statistics count footers parsed.
        return (RowGroupInfo) cache.asMap().get(new RowGroupKey(file, sortKey, rowGroup));
    }

    /** Keeps a row group's page index (it may be evicted at once when it weighs too much). */
    void putRowGroup(FileId file, List<String> sortKey, RowGroupInfo info) {
        cache.put(new RowGroupKey(file, sortKey, info.ordinal()), info);
    }

    /**
     * A decoded structure of one column chunk that every lookup of the chunk needs (its decoded
     * dictionary, {@code kind} telling forms apart), or null. Kept here rather than with the pages
     * so that a table without a page cache still decodes a dictionary once, not once per lookup.
     */
    @Nullable
    public Object chunkValue(FileId file, int rowGroup, int leaf, int kind) {
        // Through the map view, like row-group indexes: the statistics count footers parsed.
        Sized sized = (Sized) cache.asMap().get(new ChunkKey(file, rowGroup, leaf, kind));
        return sized == null ? null : sized.value();
    }

    /** Keeps a chunk's decoded structure, weighing {@code bytes} (see {@link #chunkValue}). */
    public void putChunkValue(
            FileId file, int rowGroup, int leaf, int kind, Object value, long bytes) {
        cache.put(new ChunkKey(file, rowGroup, leaf, kind), new Sized(value, bytes));
    }

    private static long weight(Object value) {
        if (value instanceof FileMetadata m) {
            return m.retainedBytes();
        }
        return value instanceof RowGroupInfo r ? r.retainedBytes() : ((Sized) value).bytes();
    }

    /** The open snapshots using each file with this cache: its entries leave at the last one. */
    public FileUses uses() {
        return uses;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Hits and misses of footers, evictions, entries and weighed bytes (footers and row-group
     * indexes) so far.
     */
    public Stats stats() {
        return Stats.of(cache);
    }

    /** Counters of a {@link MetadataCache}, or of the engine's page cache. */
    public record Stats(long hits, long misses, long evictions, long entries, long bytes) {

        /** The counters of a weighed Caffeine cache built with {@code recordStats()}. */
        public static Stats of(Cache<?, ?> cache) {
            // Caffeine updates sizes in its maintenance, which runs asynchronously: settle it
            // first so a reading right after a load or an invalidation is exact.
            cache.cleanUp();
            CacheStats s = cache.stats();
            long bytes = cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
            return new Stats(
                    s.hitCount(), s.missCount(), s.evictionCount(), cache.estimatedSize(), bytes);
        }
    }

    private record Key(FileId file, List<String> sortKey, boolean synthesizedPageIndex) {}

    private record RowGroupKey(FileId file, List<String> sortKey, int rowGroup) {}

    private record ChunkKey(FileId file, int rowGroup, int leaf, int kind) {}

    private record Sized(Object value, long bytes) {}
}
