package dev.parquetlookup.metadata;

/**
 * Parsed footers and page indexes, shared by every table in the JVM, bounded in bytes, keyed by
 * path + length + modification time so a rewritten file is never served stale.
 */
public final class MetadataCache {

    private final long maxBytes;

    public MetadataCache(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The JVM-wide default instance (256 MiB). */
    public static MetadataCache defaultShared() {
        throw new UnsupportedOperationException("engine in progress");
    }

    public long maxBytes() {
        return maxBytes;
    }
}
