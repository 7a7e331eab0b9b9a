package dev.parquetlookup.engine.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.IntBuffer;
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

    /** Appends entries {@code [0, n)} of the two arrays; codes must not decrease. */
    void add(long[] codeArray, long[] positionArray, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            if (codeArray[i] < lastCode) {
                throw new IllegalStateException(
                        "codes out of order: " + codeArray[i] + " after " + lastCode);
            }
            lastCode = codeArray[i];
        }
        added += n;
        for (int at = 0; at < n; ) {
            if (!codes.hasRemaining()) {
                codesAt += flush(codes, codesAt);
            }
            int length = Math.min(n - at, codes.remaining() / 8);
            codes.asLongBuffer().put(codeArray, at, length);
            codes.position(codes.position() + 8 * length);
            at += length;
        }
        for (int at = 0; at < n; ) {
            if (!positions.hasRemaining()) {
                positionsAt += flush(positions, positionsAt);
            }
            int length = Math.min(n - at, positions.remaining() / width);
            if (width == 4) {
                IntBuffer narrow = positions.asIntBuffer();
                for (int i = 0; i < length; i++) {
                    narrow.put(i, (int) positionArray[at + i]);
                }
            } else {
                positions.asLongBuffer().put(positionArray, at, length);
            }
            positions.position(positions.position() + width * length);
            at += length;
        }
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
