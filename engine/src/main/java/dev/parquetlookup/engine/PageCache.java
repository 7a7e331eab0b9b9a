package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.FileUses;

import org.apache.parquet.column.Dictionary;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.stats.CacheStats;

/**
 * Optional cache of decompressed pages and decoded dictionaries of hot columns, bounded in bytes.
 * Keyed by file version, row group, column and page, so rewritten files never hit stale pages.
 * Share one instance per JVM like the metadata cache.
 *
 * <p>Example: {@code new PageCache(64L << 20)} keeps up to 64 MiB of pages.
 */
public final class PageCache {

    private final long maxBytes;
    private final FileUses uses = new FileUses();
    private final Cache<Key, Object> cache;

    public PageCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("page cache size must be positive: " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher((Key k, Object v) -> weight(v))
                        .recordStats()
                        .build();
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
        cache.cleanUp(); // sizes are settled by Caffeine's asynchronous maintenance
        CacheStats s = cache.stats();
        long bytes = cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
        return new Stats(
                s.hitCount(), s.missCount(), s.evictionCount(), cache.estimatedSize(), bytes);
    }

    /** Counters of a {@link PageCache}. */
    public record Stats(long hits, long misses, long evictions, long entries, long bytes) {}

    DataPage page(FileId file, int rowGroup, int leaf, int page) {
        return (DataPage) cache.getIfPresent(new Key(file, rowGroup, leaf, page));
    }

    void putPage(FileId file, int rowGroup, int leaf, int page, DataPage data) {
        cache.put(new Key(file, rowGroup, leaf, page), data);
    }

    Dictionary dictionary(FileId file, int rowGroup, int leaf) {
        SizedDictionary d = (SizedDictionary) cache.getIfPresent(new Key(file, rowGroup, leaf, -1));
        return d == null ? null : d.dictionary();
    }

    void putDictionary(FileId file, int rowGroup, int leaf, Dictionary dictionary, int bytes) {
        cache.put(new Key(file, rowGroup, leaf, -1), new SizedDictionary(dictionary, bytes));
    }

    /** Drops every page of a file version. */
    void invalidate(FileId file) {
        cache.asMap().keySet().removeIf(k -> k.file().equals(file));
    }

    private static int weight(Object value) {
        if (value instanceof DataPage page) {
            return page.retainedBytes();
        }
        return ((SizedDictionary) value).bytes();
    }

    private record SizedDictionary(Dictionary dictionary, int bytes) {}

    private record Key(FileId file, int rowGroup, int leaf, int page) {}
}
