package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The local disk tier of remote files: byte ranges fetched from an object store (pages, or runs of
 * whole pages of a column chunk during warm-up) kept on the TaskManager's disk and served from a
 * memory mapping, so a warm lookup costs no request.
 *
 * <p>What it owns: a fresh directory (nothing survives the process; directories of dead processes
 * are removed at start, recognised by their released {@code .lock} file), segment files of at most
 * {@link #maxExtentBytes()} bytes written append-only, an in-memory index from {@link FileId}
 * (path, length, modification time, ETag: an overwritten object is another key and never meets the
 * old bytes) to the ranges held, and one writer thread.
 *
 * <ul>
 *   <li>Bounded: the bytes written to live segments never exceed {@code maxBytes}; when a range
 *       does not fit, the least recently used segment is evicted (segments whose ranges all left
 *       the index first).
 *   <li>Checked: every {@value FileExtents#BLOCK}-byte block has a CRC32C, verified for the blocks
 *       each read touches; a mismatch drops the range, which is fetched again, and is logged once.
 *   <li>Faults of the disk (full, a segment file deleted by a tmp cleaner) are counted, logged
 *       once, and the range is read from the store: the tier is a cache, never the source of truth.
 *   <li>Released: when the last source of a file version closes (a refresh dropped the file, the
 *       last table closed), its ranges leave the index and fully dead segments are deleted.
 * </ul>
 *
 * <pre>{@code
 * try (DiskTier tier = DiskTier.create(Path.of("/tmp"), 1L << 30)) {
 *     FileStore store = tier.wrap(HadoopFileStore.create(s3Options)); // s3a:// files tiered
 * }
 * }</pre>
 */
public final class DiskTier implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(DiskTier.class);

    /** Name prefix of tier directories below the base directory. */
    static final String DIRECTORY_PREFIX = TierDirectory.PREFIX;

    /** Largest segment, hence largest range stored. */
    static final long MAX_SEGMENT_BYTES = 64L << 20;

    private static final long MIN_SEGMENT_BYTES = 64L << 10;

    /** Fetched ranges waiting for the writer beyond this many bytes are not stored. */
    private static final long MAX_PENDING_WRITE_BYTES = 64L << 20;

    private static final long CHECK_FILES_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final TierDirectory home;
    private final Path directory;
    private final long maxBytes;
    private final long segmentBytes;

    private final ConcurrentHashMap<FileId, FileExtents> files = new ConcurrentHashMap<>();

    /** Warm-up fetches in flight, so tables warming the same file fetch each range once. */
    final ConcurrentHashMap<WarmKey, CompletableFuture<Boolean>> warming =
            new ConcurrentHashMap<>();

    record WarmKey(FileId file, FileRange range) {}

    private final SegmentSpace space;

    private final ThreadPoolExecutor writer;
    private final AtomicLong pendingWriteBytes = new AtomicLong();
    private volatile long lastFilesCheckNanos = System.nanoTime();
    private volatile boolean closed;

    private final TierCounters counters;

    /**
     * Counters of the tier, summed since it was created.
     *
     * @param bytes bytes held (written to live segments)
     * @param maxBytes the bound
     * @param hits ranges served from disk
     * @param misses ranges read from the store (then stored)
     * @param bytesServed bytes served from disk
     * @param bytesWritten bytes written to disk
     * @param writeFailures writes that failed (disk full, I/O error)
     * @param droppedWrites fetched ranges not stored because the writer was behind
     * @param checksumFailures ranges whose bytes on disk no longer matched their checksum
     * @param lostFiles segment files found deleted from outside
     * @param evictedBytes bytes evicted to keep the bound
     */
    public record Stats(
            long bytes,
            long maxBytes,
            long hits,
            long misses,
            long bytesServed,
            long bytesWritten,
            long writeFailures,
            long droppedWrites,
            long checksumFailures,
            long lostFiles,
            long evictedBytes) {}

    private DiskTier(TierDirectory home, long maxBytes, DiskWrites writes) {
        this.home = home;
        this.directory = home.path;
        this.maxBytes = maxBytes;
        this.segmentBytes =
                Math.min(
                        maxBytes,
                        Math.max(MIN_SEGMENT_BYTES, Math.min(MAX_SEGMENT_BYTES, maxBytes / 8)));
        this.counters = new TierCounters();
        this.space = new SegmentSpace(directory, maxBytes, segmentBytes, writes, files, counters);
        this.writer =
                new ThreadPoolExecutor(
                        1,
                        1,
                        0,
                        TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(),
                        DaemonThreads.jvmWide("parquet-lookup-disk-tier-writer"));
    }

    /**
     * Creates a tier of at most {@code maxBytes} in a new directory below {@code baseDirectory},
     * after removing the directories that tiers of ended processes left there.
     */
    public static DiskTier create(Path baseDirectory, long maxBytes) throws IOException {
        return create(baseDirectory, maxBytes, DiskWrites.DIRECT);
    }

    static DiskTier create(Path baseDirectory, long maxBytes, DiskWrites writes)
            throws IOException {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException(
                    "local-cache.max-bytes must be positive: " + maxBytes);
        }
        TierDirectory home = TierDirectory.create(baseDirectory);
        LOG.info(
                "Created the local disk tier for remote files in {}, at most {} bytes",
                home.path,
                maxBytes);
        return new DiskTier(home, maxBytes, writes);
    }

    /**
     * A store whose sources of remote files serve the ranges held here and store what they fetch;
     * local files ({@code file:} or no scheme) pass through untouched.
     */
    public TieredFileStore wrap(FileStore delegate) {
        return new TieredFileStore(delegate, this);
    }

    /** The tier's own directory. */
    public Path directory() {
        return directory;
    }

    public long maxBytes() {
        return maxBytes;
    }

    /** The largest range stored (a segment's size). */
    public long maxExtentBytes() {
        return segmentBytes;
    }

    public Stats stats() {
        return counters.stats(space.usedBytes(), maxBytes);
    }

    /** Completes once every range handed to the writer before this call is written or dropped. */
    public CompletableFuture<Void> flush() {
        try {
            return CompletableFuture.runAsync(() -> {}, writer);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null);
        }
    }

    // ------------------------------------------------------------------ file references

    void retain(FileId file) {
        files.compute(
                file,
                (k, entry) -> {
                    FileExtents e = entry == null ? new FileExtents() : entry;
                    e.references++;
                    return e;
                });
    }

    /** Drops one reference; the last one removes the file's ranges. */
    void release(FileId file) {
        FileExtents[] removed = new FileExtents[1];
        files.computeIfPresent(
                file,
                (k, entry) -> {
                    if (--entry.references > 0) {
                        return entry;
                    }
                    removed[0] = entry;
                    return null;
                });
        if (removed[0] != null) {
            removed[0].unindexAll();
            space.reclaimEmpty();
        }
    }

    /** Number of ranges held of {@code file}; for tests. */
    int extentCount(FileId file) {
        FileExtents entry = files.get(file);
        return entry == null ? 0 : entry.extents.size();
    }

    // ------------------------------------------------------------------ reading

    boolean covers(FileId file, FileRange range) {
        FileExtents entry = files.get(file);
        return entry != null && entry.find(range.offset(), range.length()) != null;
    }

    /** The range's bytes from disk, or null when they are not held (or failed their checksum). */
    @Nullable
    byte[] read(FileId file, FileRange range) {
        byte[] bytes = new byte[range.length()];
        return read(file, range.offset(), bytes, 0, range.length()) ? bytes : null;
    }

    /**
     * Like {@link #read(FileId, FileRange)}, but a range not held is not counted as a miss: the
     * caller reads it through the source, which counts it then.
     */
    @Nullable
    byte[] readHeld(FileId file, FileRange range) {
        FileExtents entry = files.get(file);
        int length = range.length();
        Extent x = entry == null || length == 0 ? null : entry.find(range.offset(), length);
        if (x == null) {
            return null;
        }
        byte[] bytes = new byte[length];
        return read(entry, x, range.offset(), bytes, 0, length, false) ? bytes : null;
    }

    /** Copies the range from disk into {@code buffer}; false when it is not held. */
    boolean read(FileId file, long position, byte[] buffer, int offset, int length) {
        FileExtents entry = files.get(file);
        Extent x = entry == null || length == 0 ? null : entry.find(position, length);
        if (x == null) {
            counters.misses.increment();
            return false;
        }
        return read(entry, x, position, buffer, offset, length, true);
    }

    /**
     * Copies from held extent {@code x} after checking its blocks; false if they fail or the
     * extent's segment was dropped (counted as a miss when {@code countMiss}).
     */
    private boolean read(
            FileExtents entry,
            Extent x,
            long position,
            byte[] buffer,
            int offset,
            int length,
            boolean countMiss) {
        Segment segment = x.segment();
        if (!segment.acquire()) {
            entry.unindex(x); // evicted meanwhile
            countMiss(countMiss);
            return false;
        }
        try {
            int relative = (int) (position - x.fileOffset());
            // Copy, then check the copy: bytes changed on disk after a check of the mapping would
            // otherwise be served unchecked.
            segment.map.get((int) (x.segmentPosition() + relative), buffer, offset, length);
            if (!FileExtents.verifyCopy(x, relative, length, buffer, offset)) {
                entry.unindex(x);
                counters.checksumFailure(x);
                countMiss(countMiss);
                return false;
            }
            long now = System.nanoTime();
            if (now - segment.lastAccessNanos > 1_000_000) {
                segment.lastAccessNanos = now;
            }
        } catch (InternalError e) {
            // A mapped page was lost: the segment file was truncated from outside.
            lostSegment(segment, e.toString());
            countMiss(countMiss);
            return false;
        } finally {
            segment.release();
        }
        counters.hits.increment();
        counters.bytesServed.add(length);
        return true;
    }

    private void countMiss(boolean count) {
        if (count) {
            counters.misses.increment();
        }
    }

    // ------------------------------------------------------------------ writing

    /**
     * Hands fetched bytes to the writer thread; the caller does not wait. Dropped when the writer
     * is more than {@value #MAX_PENDING_WRITE_BYTES} bytes behind.
     */
    void storeLater(FileId file, long offset, byte[] bytes) {
        int length = bytes.length;
        if (closed || length == 0 || length > segmentBytes || !files.containsKey(file)) {
            return;
        }
        if (pendingWriteBytes.addAndGet(length) > MAX_PENDING_WRITE_BYTES) {
            pendingWriteBytes.addAndGet(-length);
            counters.droppedWrites.increment();
            return;
        }
        try {
            writer.execute(
                    () -> {
                        try {
                            store(file, offset, bytes);
                        } catch (RuntimeException e) {
                            LOG.warn("Disk tier: storing a range of {} failed", file, e);
                        } finally {
                            pendingWriteBytes.addAndGet(-length);
                        }
                    });
        } catch (RejectedExecutionException e) {
            pendingWriteBytes.addAndGet(-length); // closing
        }
    }

    /** Writes the range now (warm-up); returns whether it is held afterwards. */
    boolean store(FileId file, long offset, byte[] bytes) {
        int length = bytes.length;
        FileExtents entry = files.get(file);
        if (closed || length == 0 || length > segmentBytes || entry == null) {
            return false;
        }
        if (entry.find(offset, length) != null) {
            return true;
        }
        maybeCheckFiles();
        int[] checksums = FileExtents.checksums(bytes);
        SegmentSpace.Placement placed = space.write(file, bytes);
        if (placed == null) {
            return false;
        }
        Segment segment = placed.segment();
        long position = placed.position();
        counters.bytesWritten.add(length);
        Extent x = new Extent(file, offset, length, segment, position, checksums);
        segment.extents.add(x);
        segment.lastAccessNanos = System.nanoTime();
        boolean[] indexed = new boolean[1];
        files.computeIfPresent(
                file,
                (k, e) -> {
                    e.index(x);
                    indexed[0] = true;
                    return e;
                });
        return indexed[0];
    }

    // ------------------------------------------------------------------ faults

    private void maybeCheckFiles() {
        long now = System.nanoTime();
        if (now - lastFilesCheckNanos > CHECK_FILES_INTERVAL_NANOS) {
            lastFilesCheckNanos = now;
            checkFiles();
        }
    }

    /**
     * Drops the segments whose files were deleted from outside (a tmp cleaner): their ranges are
     * fetched again. Runs at most once a second from the write path; returns how many were lost.
     */
    public int checkFiles() {
        List<Segment> lost = space.missingFiles();
        for (Segment s : lost) {
            lostSegment(s, "its file was deleted");
        }
        return lost.size();
    }

    private void lostSegment(Segment segment, String why) {
        if (space.drop(segment)) {
            counters.lostSegment(segment.path, why);
        }
    }

    /** Stops the writer, releases every mapping and deletes the directory. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        writer.shutdownNow();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        space.close();
        files.clear();
        home.close();
        LOG.info("Closed the local disk tier in {}", directory);
    }

    @Override
    public String toString() {
        return "DiskTier{" + directory + ", " + stats() + '}';
    }
}
