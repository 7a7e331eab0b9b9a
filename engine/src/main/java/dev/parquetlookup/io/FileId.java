package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileStatus;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * Identity of one version of a file: its path, length, modification time and, on object stores that
 * have one, its ETag.
 *
 * <p>A rewritten file gets a new length, modification time or ETag, so a cache keyed by {@code
 * FileId} never serves metadata of an older version. The ETag matters on S3, where an object
 * overwritten in place within the same second with the same length differs only in it. Example:
 * {@code new FileId("file:/d/part-0.parquet", 4096, 1700000000000L)}.
 *
 * <p>A {@code FileId} made by a listing ({@link HadoopFileStore#list}) also carries the file
 * system's own {@link FileStatus}, which is not part of the identity: {@link HadoopFileStore#open}
 * hands it to Hadoop's {@code openFile().withFileStatus(...)}, so S3A skips its HEAD and pins the
 * listed version (it sends {@code If-Match: <etag>} with every GET, and a replaced object fails the
 * read instead of mixing bytes of two versions).
 *
 * @param etag the store's entity tag ({@code null} where the file system has none, e.g. local files
 *     and HDFS, where length and modification time identify the version)
 * @param status the listing's status, used only to open the file; ignored by {@code equals}
 */
public record FileId(
        String path,
        long length,
        long modificationTime,
        @Nullable String etag,
        @Nullable FileStatus status) {

    public FileId {
        Objects.requireNonNull(path, "path");
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " for " + path);
        }
    }

    /** A file version known by path, length and modification time only. */
    public FileId(String path, long length, long modificationTime) {
        this(path, length, modificationTime, null, null);
    }

    /** The last path segment, for messages. */
    public String fileName() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }

    /** Equal when path, length, modification time and ETag are; the status does not count. */
    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true; // the usual case: a cache probe with the open file's own id
        }
        return o instanceof FileId other
                && length == other.length
                && modificationTime == other.modificationTime
                && path.equals(other.path)
                && Objects.equals(etag, other.etag);
    }

    /** Without {@code Objects.hash}'s array and boxing: page-cache probes hash a key per lookup. */
    @Override
    public int hashCode() {
        int h = path.hashCode();
        h = 31 * h + Long.hashCode(length);
        h = 31 * h + Long.hashCode(modificationTime);
        return 31 * h + Objects.hashCode(etag);
    }

    @Override
    public String toString() {
        return path;
    }
}
