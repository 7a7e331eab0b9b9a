package dev.parquetlookup.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A decorator that serves ranges itself (from a tail it holds, a disk tier, with retries): its
 * reads of whole ranges ({@link #readWith}, {@link #read}, {@link #readAll}) copy through its own
 * {@link #readFully}, as {@link RangeSource}'s defaults do, instead of going straight to the source
 * below, so none of them bypasses what it adds. Subclasses override more where they do better (a
 * batch of ranges, a mapped view).
 *
 * <p>Example: a source that holds a file's tail overrides {@code readFully} only; a range inside
 * the tail is then copied from it whichever of the four methods asks.
 */
public abstract class CopyingRangeSource extends ForwardingRangeSource {

    protected CopyingRangeSource(RangeSource delegate) {
        super(delegate);
    }

    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        byte[] bytes = new byte[length];
        readFully(position, bytes, 0, length);
        return reader.read(ByteBuffer.wrap(bytes));
    }

    @Override
    public byte[] read(FileRange range) throws IOException {
        byte[] bytes = new byte[range.length()];
        readFully(range.offset(), bytes, 0, range.length());
        return bytes;
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        byte[][] result = new byte[ranges.size()][];
        for (int i = 0; i < result.length; i++) {
            result[i] = read(ranges.get(i));
        }
        return result;
    }
}
