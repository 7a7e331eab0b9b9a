package dev.parquetlookup.engine.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes one key index file in {@link KeyIndex}'s layout from entries given in code order: codes
 * and positions go to their two regions through small buffers, then the CRC32C of the whole file is
 * appended. The entries come in consecutive parts ({@link #part}), each written in code order by
 * one thread, several parts at once (positioned writes); {@link #add} writes them in one part. The
 * caller writes a temporary file and renames it into place.
 */
final class KeyIndexWriter implements Closeable {

    private static final int BUFFER = 1 << 20;

    /** Entries copied out of their interleaved form at once, then put in bulk. */
    private static final int STAGE = 1 << 12;

    private final FileChannel channel;
    private final long entries;
    private final int width;
    private final long codesStart;
    private final long positionsStart;
    private final long end;

    /** The parts opened so far (guarded by itself). */
    private final List<Part> parts = new ArrayList<>();

    KeyIndexWriter(Path file, IndexHeader header, long entries) throws IOException {
        this.entries = entries;
        this.width = header.rowCount() <= 0xFFFF_FFFFL ? 4 : 8;
        byte[] head = header.encode();
        this.codesStart = KeyIndex.codesOffset(head.length);
        this.positionsStart = codesStart + entries * 8;
        this.end = positionsStart + entries * width;
        this.channel =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.READ);
        ByteBuffer start = ByteBuffer.allocate((int) codesStart).order(ByteOrder.LITTLE_ENDIAN);
        start.put(KeyIndex.MAGIC).putInt(head.length).put(head);
        start.putLong(entries).putInt(width).putInt(0);
        start.position((int) codesStart).flip();
        writeAt(start, 0);
    }

    /**
     * The writer of entries {@code [first, first + count)}, to be given them in code order by one
     * thread and then {@link Part#flush flushed}.
     */
    Part part(long first, long count) {
        if (first < 0 || count < 0 || first + count > entries) {
            throw new IllegalArgumentException(
                    "entries " + first + " + " + count + " of " + entries);
        }
        Part part = new Part(first, count);
        synchronized (parts) {
            parts.add(part);
        }
        return part;
    }

    /** Consecutive entries of the file, written in code order by one thread. */
    final class Part implements CodeSorter.Sink {
        private final long[] stagedCodes = new long[STAGE];
        private final long[] stagedWide = new long[STAGE];
        private final int[] stagedNarrow = new int[STAGE];
        private final ByteBuffer codes =
                ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final ByteBuffer positions =
                ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        private final long first;
        private final long count;
        private long codesAt;
        private long positionsAt;
        private long added;
        private long firstCode;
        private long lastCode = Long.MIN_VALUE;
        private boolean flushed;

        private Part(long first, long count) {
            this.first = first;
            this.count = count;
            this.codesAt = codesStart + first * 8;
            this.positionsAt = positionsStart + first * width;
        }

        @Override
        public void accept(long[] entries, int n) throws IOException {
            if (added + n > count) {
                throw new IllegalStateException(
                        (added + n) + " entries given to a part of " + count);
            }
            if (added == 0 && n > 0) {
                firstCode = entries[0];
            }
            for (int at = 0; at < n; ) {
                if (!codes.hasRemaining()) {
                    codesAt += write(codes, codesAt);
                }
                if (!positions.hasRemaining()) {
                    positionsAt += write(positions, positionsAt);
                }
                int length =
                        Math.min(
                                Math.min(n - at, STAGE),
                                Math.min(codes.remaining() / 8, positions.remaining() / width));
                for (int i = 0; i < length; i++) {
                    long code = entries[2 * (at + i)];
                    if (code < lastCode) {
                        throw new IllegalStateException(
                                "codes out of order: " + code + " after " + lastCode);
                    }
                    lastCode = code;
                    stagedCodes[i] = code;
                    if (width == 4) {
                        stagedNarrow[i] = (int) entries[2 * (at + i) + 1];
                    } else {
                        stagedWide[i] = entries[2 * (at + i) + 1];
                    }
                }
                codes.asLongBuffer().put(stagedCodes, 0, length);
                codes.position(codes.position() + 8 * length);
                if (width == 4) {
                    positions.asIntBuffer().put(stagedNarrow, 0, length);
                } else {
                    positions.asLongBuffer().put(stagedWide, 0, length);
                }
                positions.position(positions.position() + width * length);
                at += length;
            }
            added += n;
        }

        /** Writes what is buffered; every entry of the part must have been given. */
        void flush() throws IOException {
            if (added != count) {
                throw new IllegalStateException(added + " entries given to a part of " + count);
            }
            codesAt += write(codes, codesAt);
            positionsAt += write(positions, positionsAt);
            flushed = true;
        }
    }

    /**
     * Writes the checksum, once the parts cover every entry, each flushed, their codes in order
     * from one part to the next.
     */
    void finish() throws IOException {
        List<Part> written;
        synchronized (parts) {
            written = new ArrayList<>(parts);
        }
        written.sort(Comparator.comparingLong((Part p) -> p.first).thenComparingLong(p -> p.count));
        long next = 0;
        long lastCode = Long.MIN_VALUE;
        for (Part part : written) {
            if (!part.flushed || part.first != next) {
                throw new IllegalStateException(
                        "entries from " + next + " not written (a part at " + part.first + ")");
            }
            if (part.count > 0) {
                if (part.firstCode < lastCode) {
                    throw new IllegalStateException(
                            "codes out of order: " + part.firstCode + " after " + lastCode);
                }
                lastCode = part.lastCode;
            }
            next += part.count;
        }
        if (next != entries) {
            throw new IllegalStateException(next + " entries written, " + entries + " announced");
        }
        int crc = KeyIndex.crc(channel, end);
        ByteBuffer trailer = ByteBuffer.allocate(KeyIndex.TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt(crc).putInt(KeyIndex.END_MAGIC).flip();
        writeAt(trailer, end);
    }

    /** Writes what {@code buffer} holds at {@code at} and empties it; returns the bytes. */
    private int write(ByteBuffer buffer, long at) throws IOException {
        buffer.flip();
        int n = buffer.remaining();
        writeAt(buffer, at);
        buffer.clear();
        return n;
    }

    private void writeAt(ByteBuffer buffer, long at) throws IOException {
        while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
