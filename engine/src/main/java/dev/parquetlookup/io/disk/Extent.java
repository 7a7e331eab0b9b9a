package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;

/**
 * One byte range of a remote file held in a {@link Segment}: bytes {@code [fileOffset, fileOffset +
 * length)} of {@code file} lie at {@code segmentPosition}, with one CRC32C per {@value
 * FileExtents#BLOCK}-byte block, checked for the blocks a read touches.
 *
 * <p>Example: a 20,000-byte page at offset 4 of {@code s3a://b/part-0.parquet} stored at position
 * 65,536 of a segment has three checksums (blocks of 8,192, 8,192 and 3,616 bytes).
 */
record Extent(
        FileId file,
        long fileOffset,
        int length,
        Segment segment,
        long segmentPosition,
        int[] blockChecksums) {

    long fileEnd() {
        return fileOffset + length;
    }

    boolean contains(long offset, int len) {
        return offset >= fileOffset && offset + len <= fileEnd();
    }
}
