package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.ReadGuard;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One file of the disk tier: ranges are appended to it with positioned writes and read back through
 * one read-only memory mapping of the whole file.
 *
 * <p>The file is created sparse at its full size, so the mapping never reaches past the end of the
 * file; only written regions are ever read, so a full disk shows as an {@link IOException} from the
 * write (never as a fault in a mapped page). The mapping is released when the segment is dropped
 * and the last read in flight finished (reader counting as in {@code MappedRangeSource}); a read
 * after that fails {@link #acquire()} and the caller fetches the range elsewhere.
 */
final class Segment {

    final Path path;
    final long capacity;
    final FileChannel channel;
    final MappedByteBuffer map;

    /** Next free position; guarded by the tier's allocation lock. */
    long writePosition;

    /** Bytes of extents that the index still refers to. */
    final AtomicLong liveBytes = new AtomicLong();

    /** Last time (nanoTime) a range was read from or written to this segment: for eviction. */
    volatile long lastAccessNanos = System.nanoTime();

    /** The extents stored here, to drop them from the index when the segment is evicted. */
    final ConcurrentLinkedQueue<Extent> extents = new ConcurrentLinkedQueue<>();

    private final ReadGuard guard = new ReadGuard(this::unmap);

    private Segment(Path path, long capacity, FileChannel channel, MappedByteBuffer map) {
        this.path = path;
        this.capacity = capacity;
        this.channel = channel;
        this.map = map;
    }

    static Segment create(Path path, long capacity) throws IOException {
        FileChannel channel =
                FileChannel.open(
                        path,
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        try {
            // Sparse: no disk space is taken until ranges are written.
            channel.write(ByteBuffer.wrap(new byte[1]), capacity - 1);
            MappedByteBuffer map = channel.map(FileChannel.MapMode.READ_ONLY, 0, capacity);
            return new Segment(path, capacity, channel, map);
        } catch (IOException | RuntimeException e) {
            channel.close();
            Files.deleteIfExists(path);
            throw e;
        }
    }

    /** Takes a read reference; false once the segment was dropped. */
    boolean acquire() {
        return guard.tryAcquire();
    }

    void release() {
        guard.release();
    }

    boolean isDropped() {
        return guard.isClosed();
    }

    /** Drops the segment: no new reads; unmapped and deleted once reads in flight finished. */
    void drop() {
        guard.close();
    }

    private void unmap() {
        ReadGuard.unmap(map);
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to do: the file is deleted next
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the tier's directory is removed at close and at the next start
        }
    }
}
