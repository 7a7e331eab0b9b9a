package dev.parquetlookup.io;

/**
 * A byte range of a file: {@code length} bytes starting at {@code offset}.
 *
 * <p>Small immutable value that checks its arguments, e.g. {@code new FileRange(4, 1024)} is the
 * first kilobyte after Parquet's magic number.
 */
public record FileRange(long offset, int length) {

    public FileRange {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
    }

    /** The first offset after this range. */
    public long end() {
        return offset + length;
    }

    /** Whether {@code other} lies completely inside this range. */
    public boolean contains(FileRange other) {
        return other.offset >= offset && other.end() <= end();
    }
}
