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

    private static final int BUFFER = 1 << 16;

    private final FileChannel channel;
    private final long entries;
    private final int width;
    private final ByteBuffer codes = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer positions = ByteBuffer.allocate(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
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

    /** Appends one entry; codes must not decrease. */
    void add(long code, long position) throws IOException {
        if (code < lastCode) {
            throw new IllegalStateException("codes out of order: " + code + " after " + lastCode);
        }
        lastCode = code;
        added++;
        if (!codes.hasRemaining()) {
            codesAt += flush(codes, codesAt);
        }
        codes.putLong(code);
        if (positions.remaining() < width) {
            positionsAt += flush(positions, positionsAt);
        }
        if (width == 4) {
            positions.putInt((int) position);
        } else {
            positions.putLong(position);
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
