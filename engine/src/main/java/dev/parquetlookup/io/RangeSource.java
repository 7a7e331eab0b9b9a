package dev.parquetlookup.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The only way bytes of a file come in: positioned reads, never a shared seek position.
 *
 * <p>Implementations are thread-safe: one instance per file is shared by every concurrent lookup. A
 * read either returns exactly the requested bytes or throws an {@link IOException} that names the
 * file and the range.
 */
public interface RangeSource extends Closeable {

    /** The file version this source reads. */
    FileId file();

    /** Reads {@code length} bytes at {@code position} into {@code buffer} at {@code offset}. */
    void readFully(long position, byte[] buffer, int offset, int length) throws IOException;

    /**
     * Consumes the bytes of one range where they lie, without a copy where the source allows: the
     * reader gets a read-only buffer holding exactly the range at indexes {@code [0, length)}
     * (absolute gets; its position and order are the reader's), valid only while the call runs. The
     * reader must not keep the buffer or a view of it: a memory-mapped source may release the
     * mapping once the call returns.
     *
     * <p>The default copies the range into a new array ({@link #readFully}); a memory-mapped source
     * hands out a view of the mapping and keeps the mapping alive until the reader returns.
     *
     * <p>Example: {@code int first = source.readWith(pos, 4, b -> b.getInt(0));}
     */
    default <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        byte[] bytes = new byte[length];
        readFully(position, bytes, 0, length);
        return reader.read(ByteBuffer.wrap(bytes));
    }

    /** What {@link #readWith} runs over the bytes of a range. */
    @FunctionalInterface
    interface RangeReader<T> {
        T read(ByteBuffer bytes) throws IOException;
    }

    /** Reads one range into a new array. */
    default byte[] read(FileRange range) throws IOException {
        byte[] bytes = new byte[range.length()];
        readFully(range.offset(), bytes, 0, range.length());
        return bytes;
    }

    /**
     * Reads several ranges, in parallel or coalesced where the file system supports it (Hadoop
     * vectored reads). The result has one array per range, in the order given.
     */
    default byte[][] readAll(List<FileRange> ranges) throws IOException {
        byte[][] result = new byte[ranges.size()][];
        for (int i = 0; i < result.length; i++) {
            result[i] = read(ranges.get(i));
        }
        return result;
    }

    /**
     * Whether {@link #readAll} is a copy of microseconds that never waits for a device or a network
     * (memory-mapped files, local positioned reads): asynchronous lookups then read in the calling
     * thread without futures, single flight or the in-flight bound. False by default, the safe
     * answer for a source that may wait; decorators forward it.
     */
    default boolean readsInline() {
        return false;
    }

    /**
     * The bytes of {@code range} if this source already holds them where they are read at once,
     * never waiting for a device or a network (a remote file's range on the local disk tier), else
     * null. Asynchronous lookups take such ranges in the calling thread, without futures, single
     * flight or the in-flight bound; they read the others with {@link #readAllAsync}. The default
     * holds nothing; decorators forward it.
     *
     * <p>Example: {@code byte[] page = source.readHeld(range); if (page == null) { ... GET ... }}
     */
    default byte[] readHeld(FileRange range) {
        return null;
    }

    /**
     * Reads several ranges without holding the calling thread while requests are out: the seam for
     * object stores, where a range costs a round trip of milliseconds. The future completes with
     * one array per range, in the order given, or fails with the {@link IOException} {@link
     * #readAll} would throw.
     *
     * <p>The default reads on the calling thread and returns a completed future: right for local
     * files (memory-mapped or pread), where a read is a copy of microseconds and a thread hand-off
     * would cost more than the read. Remote sources and every decorator override it.
     */
    default CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        try {
            return CompletableFuture.completedFuture(readAll(ranges));
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A byte range of a file: {@code length} bytes starting at {@code offset}.
     *
     * <p>Small immutable value that checks its arguments, e.g. {@code new FileRange(4, 1024)} is
     * the first kilobyte after Parquet's magic number.
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
}
