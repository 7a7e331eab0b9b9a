package dev.parquetlookup.engine.index;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One key index file, memory-mapped and checked: the sorted codes of a data file's keys ({@link
 * KeyCodes}) with the row position of each. Immutable and thread-safe.
 *
 * <p>A code is found through a directory kept in the heap, built when the file is opened: the
 * codes' range cut into equal slices (about one per {@link #CODES_PER_SLICE} entries, at most
 * {@link #MAX_SLICES}), each pointing at its first entry, so a search reads one directory slot and
 * a few neighbouring codes instead of about log2(n) codes spread over the mapped file, and a code
 * outside the file's range reads nothing. A table of unsorted files asks every file's index for
 * every key (each file spans the whole key range) and finds it in at most one, so before the
 * directory a {@link CodeFilter} of the codes (also built at open, about one byte of heap per
 * entry) turns away most codes the file does not hold by reading one block.
 *
 * <p>Layout (little-endian), written by {@link KeyIndexWriter}:
 *
 * <pre>
 * magic "PLKIDX01" | header length H (int) | header (H bytes, {@link IndexHeader})
 * | entries n (long) | position width w (int: 4 or 8) | flags (int) | padding to 8
 * | codes (n longs, ascending; equal codes in row order) | positions (n values of w bytes)
 * | CRC32C of everything before (int) | "PLKE"
 * </pre>
 *
 * A BIGINT key costs 12 bytes per row (8 for its code, 4 for its position), plus about one byte of
 * heap per row for the filter and at most 1 MiB for the directory. Example: an index of rows {@code
 * [7, 3, 7]} holds codes {@code [3, 7, 7]} and positions {@code [1, 0, 2]}; {@link #rows(long)} of
 * 7 is {@code [0, 2]}.
 */
public final class KeyIndex {

    static final byte[] MAGIC = "PLKIDX01".getBytes(StandardCharsets.US_ASCII);
    static final int END_MAGIC = 0x454B4C50; // "PLKE" little-endian
    static final int TRAILER = 8;

    private static final long[] NO_ROWS = new long[0];

    /** Entries per directory slice aimed at (a slice's codes span a few cache lines). */
    static final int CODES_PER_SLICE = 16;

    /** Slices at most: a directory of at most 1 MiB of heap per index. */
    static final int MAX_SLICES = 1 << 18;

    private final Path path;
    private final IndexHeader header;
    private final long entries;
    private final long bytes;
    private final LongBuffer codes;
    private final IntBuffer narrowPositions;
    private final LongBuffer widePositions;

    /** The smallest code; unused when there are no entries. */
    private final long min;

    /** The largest code minus {@link #min}, unsigned. */
    private final long span;

    /** A code's slice is {@code (code - min) >>> shift}. */
    private final int shift;

    /**
     * {@code slices[s]}: the first entry whose slice is at least {@code s}; one slot past the last.
     */
    private final int[] slices;

    /** The codes' filter: a code it turns away is not in the index. */
    private final CodeFilter filter;

    private KeyIndex(
            Path path,
            IndexHeader header,
            long entries,
            long bytes,
            LongBuffer codes,
            IntBuffer narrowPositions,
            LongBuffer widePositions)
            throws Damaged {
        this.path = path;
        this.header = header;
        this.entries = entries;
        this.bytes = bytes;
        this.codes = codes;
        this.narrowPositions = narrowPositions;
        this.widePositions = widePositions;
        int n = (int) entries;
        this.min = n == 0 ? 0 : codes.get(0);
        this.span = n == 0 ? 0 : codes.get(n - 1) - min;
        int wanted = Math.max(2, Math.min(MAX_SLICES, n / CODES_PER_SLICE)); // shift < 64
        int bits = 32 - Integer.numberOfLeadingZeros(wanted - 1); // 2^bits >= wanted
        this.shift = Math.max(0, (64 - Long.numberOfLeadingZeros(span)) - bits);
        int count = (int) (span >>> shift) + 1;
        this.slices = new int[count + 1];
        this.filter = CodeFilter.forCodes(n);
        int slice = 0;
        long previous = min;
        for (int i = 0; i < n; i++) {
            long code = codes.get(i);
            if (code < previous) {
                throw new Damaged(path, "codes out of order at entry " + i);
            }
            previous = code;
            filter.add(code);
            int of = (int) ((code - min) >>> shift);
            while (slice <= of) {
                slices[slice++] = i;
            }
        }
        while (slice <= count) {
            slices[slice++] = n;
        }
    }

    /** The index file was damaged, truncated or written for another file version: rebuild it. */
    static final class Damaged extends IOException {
        private static final long serialVersionUID = 1L;

        Damaged(Path path, String why) {
            super("Key index " + path + " is unusable: " + why);
        }
    }

    /**
     * Maps and checks the index at {@code path}: its length, both magics, its CRC32C and that its
     * header equals {@code expected}.
     *
     * @throws Damaged if any check fails (the caller rebuilds it)
     * @throws IOException if it cannot be read
     */
    static KeyIndex open(Path path, IndexHeader expected) throws IOException {
        return open(path, expected, true);
    }

    /**
     * Maps and checks the index at {@code path} as {@link #open(Path, IndexHeader)} does, its
     * CRC32C only if {@code verifyChecksum}: not for a file this process just wrote ({@link
     * KeyIndexWriter} computed its checksum from the bytes written).
     */
    static KeyIndex open(Path path, IndexHeader expected, boolean verifyChecksum)
            throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < MAGIC.length + 4 + TRAILER) {
                throw new Damaged(path, "truncated to " + size + " bytes");
            }
            ByteBuffer head =
                    channel.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(size, 1 << 16))
                            .order(ByteOrder.LITTLE_ENDIAN);
            byte[] magic = new byte[MAGIC.length];
            head.get(0, magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new Damaged(path, "not a key index of this format version");
            }
            int headerLength = head.getInt(MAGIC.length);
            long fixedEnd = MAGIC.length + 4L + headerLength + 16;
            if (headerLength < 0 || fixedEnd + TRAILER > size || fixedEnd > head.limit()) {
                throw new Damaged(path, "header length " + headerLength + " of " + size);
            }
            ByteBuffer trailer =
                    channel.map(FileChannel.MapMode.READ_ONLY, size - TRAILER, TRAILER)
                            .order(ByteOrder.LITTLE_ENDIAN);
            if (trailer.getInt(4) != END_MAGIC) {
                throw new Damaged(path, "no end marker (truncated?)");
            }
            if (verifyChecksum && crc(channel, size - TRAILER) != trailer.getInt(0)) {
                throw new Damaged(path, "checksum mismatch");
            }
            byte[] headerBytes = new byte[headerLength];
            head.get(MAGIC.length + 4, headerBytes);
            IndexHeader header = IndexHeader.decode(headerBytes);
            if (!header.equals(expected)) {
                throw new Damaged(path, "written for " + header + ", expected " + expected);
            }
            int at = MAGIC.length + 4 + headerLength;
            long entries = head.getLong(at);
            int width = head.getInt(at + 8);
            long codesOffset = codesOffset(headerLength);
            if (entries < 0
                    || (width != 4 && width != 8)
                    || codesOffset + entries * (8 + width) + TRAILER != size) {
                throw new Damaged(path, entries + " entries of width " + width + " in " + size);
            }
            if (entries * 8 > Integer.MAX_VALUE || entries * width > Integer.MAX_VALUE) {
                throw new IOException("key index " + path + " has too many entries: " + entries);
            }
            LongBuffer codes = map(channel, codesOffset, entries * 8).asLongBuffer();
            ByteBuffer positions = map(channel, codesOffset + entries * 8, entries * width);
            return new KeyIndex(
                    path,
                    header,
                    entries,
                    size,
                    codes,
                    width == 4 ? positions.asIntBuffer() : null,
                    width == 8 ? positions.asLongBuffer() : null);
        }
    }

    private static ByteBuffer map(FileChannel channel, long offset, long length)
            throws IOException {
        MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, offset, length);
        return mapped.order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Where the codes start after a header of {@code headerLength} bytes (8-aligned). */
    static long codesOffset(int headerLength) {
        long end = MAGIC.length + 4L + headerLength + 16;
        return (end + 7) & ~7L;
    }

    /** The CRC32C of the first {@code length} bytes, read in windows of 64 MiB. */
    static int crc(FileChannel channel, long length) throws IOException {
        CRC32C crc = new CRC32C();
        long window = 64L << 20;
        for (long at = 0; at < length; at += window) {
            crc.update(
                    channel.map(FileChannel.MapMode.READ_ONLY, at, Math.min(window, length - at)));
        }
        return (int) crc.getValue();
    }

    /**
     * False only if no entry has {@code code}: the codes' range and the filter, one block read of
     * the heap and none of the mapped file. {@link IndexProbe} asks the same of several indexes at
     * once.
     */
    boolean mayContain(long code) {
        return inRange(code) && filter.mayContain(code);
    }

    /** Whether {@code code} lies within the indexed codes (false for an empty index). */
    boolean inRange(long code) {
        return entries != 0 && Long.compareUnsigned(code - min, span) <= 0;
    }

    /** The code of entry {@code i} (ascending in {@code i}), for {@link TableFilter}. */
    long code(int i) {
        return codes.get(i);
    }

    /** The codes' filter, for {@link IndexProbe}. */
    CodeFilter filter() {
        return filter;
    }

    /** The positions (row numbers in the file, ascending) of rows whose key has {@code code}. */
    public long[] rows(long code) {
        if (!mayContain(code)) {
            return NO_ROWS; // out of the codes' range, or turned away by the filter
        }
        long offset = code - min;
        int slice = (int) (offset >>> shift);
        int lo = slices[slice];
        int hi = slices[slice + 1];
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (codes.get(mid) < code) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int end = lo;
        while (end < entries && codes.get(end) == code) {
            end++;
        }
        if (end == lo) {
            return NO_ROWS;
        }
        long[] rows = new long[end - lo];
        for (int i = lo; i < end; i++) {
            rows[i - lo] =
                    narrowPositions != null
                            ? Integer.toUnsignedLong(narrowPositions.get(i))
                            : widePositions.get(i);
        }
        return rows;
    }

    /** Rows indexed (rows with a NULL key part are not). */
    public long entries() {
        return entries;
    }

    /** The size of the index file. */
    public long bytes() {
        return bytes;
    }

    public IndexHeader header() {
        return header;
    }

    public Path path() {
        return path;
    }
}
