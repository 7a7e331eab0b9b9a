package dev.parquetlookup.engine;

/**
 * Optional cache of decompressed pages (and decoded dictionaries) of hot key and value pages,
 * bounded in bytes. Shared like the metadata cache.
 */
public final class PageCache {

    private final long maxBytes;

    public PageCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }
}
