package dev.parquetlookup.engine.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes one key index file in {@link KeyIndex}'s layout from entries given in code order: codes
 * and positions go to their two regions through small buffers, then the CRC32C of the whole file is
 * appended. Not thread-safe; the caller writes a temporary file and renames it into place.
 */
final class KeyIndexWriter implements Closeable {

    private static final int BUFFER = 1 << 20;

    /** Entries copied out of their interleaved form at once, then put in bulk. */
    private static final int STAGE = 1 << 12;

    private final long[] stagedCodes = new long[STAGE];
    private final long[] stagedWide = new long[STAGE];
    private final int[] stagedNarrow = new int[STAGE];

    private final FileChannel channel;
    private final long entries;
    private final int width;
    private final ByteBuffer codes =
            ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer positions =
            ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private long codesAt;
    private long positionsAt;
    private final long end;
    private long added;
    private long lastCode = Long.MIN_VALUE;

    KeyIndexWriter(Path file, IndexHeader header, long entries) throws IOException {
        this.entries = entries;
        this.width = header.rowCount() <= 0xFFFF_FFFFL ? 4 : 8;
        byte[] head = header.encode();
        this.codesAt = KeyIndex.codesOffset(head.length);
        this.positionsAt = codesAt + entries * 8;
        this.end = positionsAt + entries * width;
        this.channel =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.READ);
        ByteBuffer start = ByteBuffer.allocate((int) codesAt).order(ByteOrder.LITTLE_ENDIAN);
        start.put(KeyIndex.MAGIC).putInt(head.length).put(head);
        start.putLong(entries).putInt(width).putInt(0);
        start.position((int) codesAt).flip();
        writeAt(start, 0);
    }

    /**
     * Appends entries {@code [0, n)} of {@code entries} (entry {@code i}: code at {@code 2i},
     * position at {@code 2i + 1}); codes must not decrease.
     */
    void add(long[] entries, int n) throws IOException {
        for (int at = 0; at < n; ) {
            if (!codes.hasRemaining()) {
                codesAt += flush(codes, codesAt);
            }
            if (!positions.hasRemaining()) {
                positionsAt += flush(positions, positionsAt);
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

    /** Writes the last entries and the checksum. */
    void finish() throws IOException {
        if (added != entries) {
            throw new IllegalStateException(added + " entries added, " + entries + " announced");
        }
        codesAt += flush(codes, codesAt);
        positionsAt += flush(positions, positionsAt);
        int crc = KeyIndex.crc(channel, end);
        ByteBuffer trailer = ByteBuffer.allocate(KeyIndex.TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        trailer.putInt(crc).putInt(KeyIndex.END_MAGIC).flip();
        writeAt(trailer, end);
    }

    private int flush(ByteBuffer buffer, long at) throws IOException {
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
