package dev.parquetlookup.io;

import java.util.Objects;

/**
 * Identity of one version of a file: its path, length and modification time.
 *
 * <p>A rewritten file gets a new length or modification time, so a cache keyed by {@code FileId}
 * never serves metadata of an older version. Example: {@code new FileId("file:/d/part-0.parquet",
 * 4096, 1700000000000L)}.
 */
public record FileId(String path, long length, long modificationTime) {

    public FileId {
        Objects.requireNonNull(path, "path");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " for " + path);
        }
    }

    /** The last path segment, for messages. */
    public String fileName() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    @Override
    public String toString() {
        return path;
    }
}
