package dev.parquetlookup.io;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.EOFException;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;

/**
 * {@link RangeSource} over a local file mapped into memory: a read is a copy out of the OS page
 * cache, with no system call, no kernel copy and no file-system statistics. Point lookups read two
 * small pages at random places, so the {@code pread} path spent a third of its time in the kernel.
 *
 * <p>The mapping is released when the source closes, not when the garbage collector gets to it, so
 * a refreshed-away file's disk space is freed at once. Reads and close are ordered by a reader
 * count: the mapping is released only after the last read in flight finished, and a read after
 * close fails.
 *
 * <p>Mapped files must not change in place: when a mapped file is truncated (or an NFS server drops
 * it), an access to a lost page raises {@link InternalError} in the reading thread, possibly after
 * the read returned ({@code LookupRuntime} turns it into a failed lookup). Publishing by rename
 * (write elsewhere, then rename) never does that; for files that may be rewritten in place, turn
 * mapping off ({@code 'local-files.mmap' = 'false'}) and the file is read with positioned reads.
 */
final class MappedRangeSource implements RangeSource {

    private static final Logger LOG = LoggerFactory.getLogger(MappedRangeSource.class);

    /** Size of one mapping; a {@link MappedByteBuffer} holds at most 2 GiB. */
    private static final long SEGMENT = 1L << 30;

    private final FileId file;
    private final long segmentSize;
    private final MappedByteBuffer[] segments;
    private final ReadGuard guard = new ReadGuard(this::unmap);

    private MappedRangeSource(FileId file, long segmentSize, MappedByteBuffer[] segments) {
        this.file = file;
        this.segmentSize = segmentSize;
        this.segments = segments;
    }

    /**
     * Maps {@code local}, the file {@code file} names, or returns null when the system refuses the
     * mapping (address space or map count exhausted): positioned reads then serve the file.
     *
     * @throws IOException if the file cannot be opened or no longer has the listed length
     */
    @Nullable
    static MappedRangeSource tryOpen(FileId file, File local) throws IOException {
        return tryOpen(file, local, SEGMENT);
    }

    /** With a given mapping size (tests cross segment boundaries with small ones). */
    @Nullable
    static MappedRangeSource tryOpen(FileId file, File local, long segmentSize) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(local.toPath(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException(file.path() + " does not exist (any more)");
        }
        try (channel) {
            long size = channel.size();
            if (size != file.length()) {
                throw new IOException(
                        String.format(
                                "%s is %d bytes but was listed with %d: the file changed since it"
                                        + " was listed (rewritten in place?). Publish new files"
                                        + " under a new name or directory.",
                                file.path(), size, file.length()));
            }
            int count = (int) ((size + segmentSize - 1) / segmentSize);
            MappedByteBuffer[] segments = new MappedByteBuffer[count];
            try {
                for (int i = 0; i < count; i++) {
                    long start = i * segmentSize;
                    segments[i] =
                            channel.map(
                                    FileChannel.MapMode.READ_ONLY,
                                    start,
                                    Math.min(segmentSize, size - start));
                }
            } catch (IOException | OutOfMemoryError e) {
                for (MappedByteBuffer segment : segments) {
                    if (segment != null) {
                        ReadGuard.unmap(segment);
                    }
                }
                LOG.warn("Cannot map {}, reading it with positioned reads: {}", file, e.toString());
                return null;
            }
            // The mapping outlives the channel.
            return new MappedRangeSource(file, segmentSize, segments);
        }
    }

    @Override
    public FileId file() {
        return file;
    }

    /** A copy out of the mapping. */
    @Override
    public boolean readsInline() {
        return true;
    }

    /**
     * Hands the reader a read-only view of the mapping, held by the reader count until the reader
     * returns (a close meanwhile unmaps only after it). A range across two mappings is copied.
     */
    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        checkRange(position, length);
        MappedByteBuffer segment = segments[(int) (position / segmentSize)];
        int inSegment = (int) (position % segmentSize);
        if (length > segment.capacity() - inSegment) {
            return RangeSource.super.readWith(position, length, reader);
        }
        acquire();
        try {
            return reader.read(segment.slice(inSegment, length).asReadOnlyBuffer());
        } catch (InternalError e) {
            throw truncated(position, length, e);
        } finally {
            release();
        }
    }

    private void checkRange(long position, int length) throws EOFException {
        if (position < 0 || length < 0 || position + length > file.length()) {
            throw new EOFException(
                    String.format(
                            "read of %d bytes at %d is past the end of %s (%d bytes): the file is"
                                    + " truncated or was rewritten",
                            length, position, file.path(), file.length()));
        }
    }

    private IOException truncated(long position, int length, InternalError e) {
        return new IOException(
                String.format(
                        "read of %d bytes at %d of %s failed: the file was truncated or"
                                + " rewritten in place while mapped. Publish new files under a"
                                + " new name or directory.",
                        length, position, file.path()),
                e);
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        checkRange(position, length);
        acquire();
        try {
            long at = position;
            int done = 0;
            while (done < length) {
                MappedByteBuffer segment = segments[(int) (at / segmentSize)];
                int inSegment = (int) (at % segmentSize);
                int n = Math.min(length - done, segment.capacity() - inSegment);
                // Absolute bulk get: no shared position, safe from many threads.
                segment.get(inSegment, buffer, offset + done, n);
                done += n;
                at += n;
            }
        } catch (InternalError e) {
            // SIGBUS: the mapped file shrank underneath us (when the JVM reports it right here).
            throw truncated(position, length, e);
        } finally {
            release();
        }
    }

    private void acquire() throws IOException {
        if (!guard.tryAcquire()) {
            throw new IOException(file.path() + " is closed");
        }
    }

    private void release() {
        guard.release();
    }

    @Override
    public void close() {
        guard.close();
    }

    private void unmap() {
        for (MappedByteBuffer segment : segments) {
            ReadGuard.unmap(segment);
        }
    }
}
