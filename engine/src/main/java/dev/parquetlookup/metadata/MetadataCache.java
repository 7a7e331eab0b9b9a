package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * Parsed footers and page indexes, shared by every table in the JVM, bounded in bytes (each entry
 * weighs its {@link FileMetadata#retainedBytes()}), keyed by path + length + modification time (and
 * the sort key it was verified for) so a rewritten file is never served stale.
 *
 * <p>Example: {@code cache.get(file, List.of("id"), () -> MetadataReader.read(source,
 * List.of("id")))} parses once; later calls for the same file version return the same object.
 */
public final class MetadataCache {

    /** Default bound of {@link #defaultShared()}: 256 MiB. */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;

    private static volatile MetadataCache defaultShared;

    private final long maxBytes;
    private final FileUses uses = new FileUses();
    private final Cache<Key, FileMetadata> cache;

    public MetadataCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("metadata cache size must be positive: " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher(
                                (Key k, FileMetadata m) ->
                                        (int) Math.min(Integer.MAX_VALUE, m.retainedBytes()))
                        .recordStats()
                        .build();
    }

    /** The JVM-wide default instance ({@value #DEFAULT_MAX_BYTES} bytes). */
    public static MetadataCache defaultShared() {
        MetadataCache c = defaultShared;
        if (c == null) {
            synchronized (MetadataCache.class) {
                c = defaultShared;
                if (c == null) {
                    c = new MetadataCache(DEFAULT_MAX_BYTES);
                    defaultShared = c;
                }
            }
        }
        return c;
    }

    /** Loads metadata when it is not cached. */
    @FunctionalInterface
    public interface Loader {
        FileMetadata load() throws IOException;
    }

    /**
     * The metadata of {@code file} verified for {@code sortKey} (empty: the file's own), loading it
     * at most once per key even under concurrent calls.
     */
    public FileMetadata get(FileId file, List<String> sortKey, Loader loader) throws IOException {
        try {
            return cache.get(
                    new Key(file, List.copyOf(sortKey)),
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

    /** Drops every entry of a file version (all sort keys). */
    public void invalidate(FileId file) {
        cache.asMap().keySet().removeIf(k -> k.file().equals(file));
    }

    /** The open snapshots using each file with this cache: its entries leave at the last one. */
    public FileUses uses() {
        return uses;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Hits, misses, evictions, entries and weighed bytes so far. */
    public Stats stats() {
        // Caffeine updates sizes in its maintenance, which runs asynchronously: settle it first
        // so a reading right after a load or an invalidation is exact.
        cache.cleanUp();
        CacheStats s = cache.stats();
        long bytes = cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
        return new Stats(
                s.hitCount(), s.missCount(), s.evictionCount(), cache.estimatedSize(), bytes);
    }

    /** Counters of a {@link MetadataCache}. */
    public record Stats(long hits, long misses, long evictions, long entries, long bytes) {}

    private record Key(FileId file, List<String> sortKey) {}
}
