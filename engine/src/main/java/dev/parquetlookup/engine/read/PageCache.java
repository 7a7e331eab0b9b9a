package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.FileUses;
import dev.parquetlookup.metadata.MetadataCache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Cache of decompressed data pages of hot columns, bounded in bytes. Keyed by file version, row
 * group, column and page, so rewritten files never hit stale pages. Share one instance per JVM like
 * the metadata cache. (Decoded dictionaries live in the metadata cache, see {@link
 * PageDictionaries}: a table without a page cache keeps them too.)
 *
 * <p>Admission: a data page is cached on its second touch within a window (a doorkeeper bit set,
 * cleared after about as many touches as the cache holds pages), then Caffeine's W-TinyLFU decides
 * whom it evicts. Under uniform keys over a table much larger than the cache most pages are touched
 * once per window, so a miss costs a partial decode into a scratch buffer instead of a whole-page
 * decode, an allocation and an eviction; hot pages and every page of a small table get in on their
 * second use.
 *
 * <p>Example: {@code new PageCache(64L << 20)} keeps up to 64 MiB of pages.
 */
public final class PageCache {

    private final long maxBytes;
    private final FileUses uses = new FileUses();
    private final Cache<Key, DataPage> cache;

    /** Pages touched once in the current window (one bit per hash). */
    private final AtomicLongArray seen;

    /** First touches recorded in the current window; at {@link #window} the bits are cleared. */
    private final AtomicInteger touches = new AtomicInteger();

    private final int window;

    public PageCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("page cache size must be positive: " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher((Key k, DataPage v) -> v.retainedBytes())
                        .recordStats()
                        .build();
        // About as many first touches per window as the cache holds 32 KiB pages, 8 bits each.
        this.window = (int) Math.max(1024, Math.min(1 << 24, maxBytes >> 15));
        this.seen = new AtomicLongArray(Math.max(16, Integer.highestOneBit(window * 8 - 1) >> 5));
    }

    /**
     * Whether a data page that missed should be decoded whole and cached: true on its second touch
     * in the current window.
     */
    boolean admit(FileId file, int rowGroup, int leaf, int page) {
        int bit = hash(file, rowGroup, leaf, page) & (seen.length() * 64 - 1);
        long mask = 1L << (bit & 63);
        int word = bit >>> 6;
        if ((seen.get(word) & mask) != 0) {
            return true;
        }
        seen.getAndUpdate(word, w -> w | mask);
        if (touches.incrementAndGet() >= window) {
            touches.set(0);
            for (int i = 0; i < seen.length(); i++) {
                seen.set(i, 0);
            }
        }
        return false;
    }

    /**
     * The hash of a page's place, for the cache's map and the doorkeeper's bits: each part spread
     * over 64 bits before the next is taken in, so that pages of one file and of several files
     * alike get hashes that look random. (A sum with factors of 31 gave {@code (leaf, page)} and
     * {@code (leaf + 1, page - 31)} one hash: half of a table's pages shared a hash with another,
     * and each lookup compared page keys it did not want, each a likely cache miss.)
     */
    static int hash(FileId file, int rowGroup, int leaf, int page) {
        long h = file.hashCode() * 0x9E3779B97F4A7C15L;
        h = (h ^ rowGroup) * 0xC2B2AE3D27D4EB4FL;
        h = (h ^ leaf) * 0x165667B19E3779F9L;
        h = (h ^ page) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** The open snapshots using each file with this cache: its entries leave at the last one. */
    public FileUses uses() {
        return uses;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** Hits, misses, evictions, entries and weighed bytes so far. */
    public MetadataCache.Stats stats() {
        return MetadataCache.Stats.of(cache);
    }

    DataPage page(FileId file, int rowGroup, int leaf, int page) {
        return cache.getIfPresent(new Key(file, rowGroup, leaf, page));
    }

    void putPage(FileId file, int rowGroup, int leaf, int page, DataPage data) {
        cache.put(new Key(file, rowGroup, leaf, page), data);
    }

    /** Drops every page of a file version. */
    public void invalidate(FileId file) {
        cache.asMap().keySet().removeIf(k -> k.file.equals(file));
    }

    /**
     * A page's place. Written out rather than a record: a record's {@code equals} goes through an
     * {@code ObjectMethods} bootstrap that profiles showed at ~10% of a cached lookup's CPU; here
     * the ints are compared first and the file id by identity before its fields.
     */
    private static final class Key {
        private final FileId file;
        private final int rowGroup;
        private final int leaf;
        private final int page;
        private final int hash;

        Key(FileId file, int rowGroup, int leaf, int page) {
            this.file = file;
            this.rowGroup = rowGroup;
            this.leaf = leaf;
            this.page = page;
            this.hash = PageCache.hash(file, rowGroup, leaf, page);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k
                    && page == k.page
                    && leaf == k.leaf
                    && rowGroup == k.rowGroup
                    && file.equals(k.file);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
