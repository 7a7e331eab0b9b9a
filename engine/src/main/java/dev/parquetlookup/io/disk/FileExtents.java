package dev.parquetlookup.io.disk;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.zip.CRC32C;

/**
 * The ranges a {@link DiskTier} holds of one file version, by offset, and how many open sources use
 * that version. A range inside a larger held range is not indexed twice; each indexed range counts
 * its bytes as live in its {@link Segment}, so a segment whose ranges all left can be reclaimed at
 * once.
 *
 * <p>Also the ranges' checksums: one CRC32C per {@value #BLOCK}-byte block, computed when a range
 * is stored and verified for the blocks each read touches.
 */
final class FileExtents {

    /** Bytes covered by one checksum. */
    static final int BLOCK = 8192;

    /** How far back from the floor entry a containing range is looked for. */
    private static final int FIND_STEPS = 8;

    final ConcurrentSkipListMap<Long, Extent> extents = new ConcurrentSkipListMap<>();

    /** Open sources of this file version; changed only inside the tier's map's compute. */
    int references;

    /** The held range containing {@code [offset, offset + length)}, or null. */
    @Nullable
    Extent find(long offset, int length) {
        Map.Entry<Long, Extent> e = extents.floorEntry(offset);
        for (int steps = 0; e != null && steps < FIND_STEPS; steps++) {
            if (e.getValue().contains(offset, length)) {
                return e.getValue();
            }
            e = extents.lowerEntry(e.getKey());
        }
        return null;
    }

    /** Adds {@code x} unless a held range contains it; ranges inside it leave. */
    void index(Extent x) {
        if (find(x.fileOffset(), x.length()) != null) {
            return;
        }
        for (Extent inside : extents.subMap(x.fileOffset(), true, x.fileEnd(), false).values()) {
            if (x.contains(inside.fileOffset(), inside.length())) {
                unindex(inside);
            }
        }
        x.segment().liveBytes.addAndGet(x.length());
        Extent previous = extents.put(x.fileOffset(), x);
        if (previous != null) {
            previous.segment().liveBytes.addAndGet(-previous.length());
        }
    }

    /** Removes {@code x} if it is still indexed. */
    void unindex(Extent x) {
        if (extents.remove(x.fileOffset(), x)) {
            x.segment().liveBytes.addAndGet(-x.length());
        }
    }

    /** Removes every range (the file version's last source closed). */
    void unindexAll() {
        for (Extent x : extents.values()) {
            unindex(x);
        }
    }

    /** One CRC32C per {@value #BLOCK}-byte block of {@code bytes}. */
    static int[] checksums(byte[] bytes) {
        int[] result = new int[(bytes.length + BLOCK - 1) / BLOCK];
        CRC32C crc = new CRC32C();
        for (int b = 0; b < result.length; b++) {
            crc.reset();
            crc.update(bytes, b * BLOCK, Math.min(BLOCK, bytes.length - b * BLOCK));
            result[b] = (int) crc.getValue();
        }
        return result;
    }

    /**
     * Whether the blocks of {@code x} that {@code [relative, relative + length)} touches match
     * their checksums, with the range's own bytes taken from {@code copy} (where they were copied
     * to from the mapping, at {@code offset}) and only the blocks' bytes outside the range from the
     * mapping: the bytes returned are the bytes checked, even if the mapping changes meanwhile.
     */
    static boolean verifyCopy(Extent x, int relative, int length, byte[] copy, int offset) {
        CRC32C crc = new CRC32C();
        ByteBuffer map = x.segment().map;
        int base = (int) x.segmentPosition();
        int end = relative + length;
        for (int b = relative / BLOCK; b <= (end - 1) / BLOCK; b++) {
            int blockStart = b * BLOCK;
            int blockEnd = Math.min(blockStart + BLOCK, x.length());
            int from = Math.max(blockStart, relative);
            int to = Math.min(blockEnd, end);
            crc.reset();
            if (blockStart < from) {
                crc.update(map.slice(base + blockStart, from - blockStart));
            }
            crc.update(copy, offset + (from - relative), to - from);
            if (to < blockEnd) {
                crc.update(map.slice(base + to, blockEnd - to));
            }
            if ((int) crc.getValue() != x.blockChecksums()[b]) {
                return false;
            }
        }
        return true;
    }
}
