package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.FileStore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

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
 *   <li>Checked: every {@value #BLOCK}-byte block has a CRC32C, verified for the blocks each read
 *       touches; a mismatch drops the range, which is fetched again, and is logged once.
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

    /** Bytes covered by one checksum. */
    static final int BLOCK = 8192;

    /** Name prefix of tier directories below the base directory. */
    static final String DIRECTORY_PREFIX = "parquet-lookup-cache-";

    private static final String LOCK_FILE = ".lock";

    /** Largest segment, hence largest range stored. */
    static final long MAX_SEGMENT_BYTES = 64L << 20;

    private static final long MIN_SEGMENT_BYTES = 64L << 10;

    /** Fetched ranges waiting for the writer beyond this many bytes are not stored. */
    private static final long MAX_PENDING_WRITE_BYTES = 64L << 20;

    private static final long CHECK_FILES_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Path directory;
    private final long maxBytes;
    private final long segmentBytes;
    private final DiskWrites writes;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private final ConcurrentHashMap<FileId, FileEntry> files = new ConcurrentHashMap<>();

    /** Warm-up fetches in flight, so tables warming the same file fetch each range once. */
    final ConcurrentHashMap<WarmKey, CompletableFuture<Boolean>> warming =
            new ConcurrentHashMap<>();

    record WarmKey(FileId file, FileRange range) {}

    /** Guards segments, active, usedBytes and segment numbering. */
    private final Object allocation = new Object();

    private final List<Segment> segments = new ArrayList<>();
    @Nullable private Segment active;
    private long usedBytes;
    private long segmentCounter;

    private final ThreadPoolExecutor writer;
    private final AtomicLong pendingWriteBytes = new AtomicLong();
    private volatile long lastFilesCheckNanos = System.nanoTime();
    private volatile boolean closed;

    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder bytesServed = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder writeFailures = new LongAdder();
    private final LongAdder droppedWrites = new LongAdder();
    private final LongAdder checksumFailures = new LongAdder();
    private final LongAdder lostFiles = new LongAdder();
    private final LongAdder evictedBytes = new LongAdder();
    private final AtomicBoolean writeFailureLogged = new AtomicBoolean();
    private final AtomicBoolean checksumFailureLogged = new AtomicBoolean();
    private final AtomicBoolean lostFileLogged = new AtomicBoolean();

    /** The ranges held of one file version, and how many open sources use it. */
    private static final class FileEntry {
        final ConcurrentSkipListMap<Long, Extent> extents = new ConcurrentSkipListMap<>();
        int references; // changed only inside files.compute
    }

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

    private DiskTier(
            Path directory,
            long maxBytes,
            DiskWrites writes,
            FileChannel lockChannel,
            FileLock lock) {
        this.directory = directory;
        this.maxBytes = maxBytes;
        this.segmentBytes =
                Math.min(
                        maxBytes,
                        Math.max(MIN_SEGMENT_BYTES, Math.min(MAX_SEGMENT_BYTES, maxBytes / 8)));
        this.writes = writes;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.writer =
                new ThreadPoolExecutor(
                        1,
                        1,
                        0,
                        TimeUnit.MILLISECONDS,
                        new LinkedBlockingQueue<>(),
                        r -> {
                            Thread t = new Thread(r, "parquet-lookup-disk-tier-writer");
                            t.setDaemon(true);
                            return t;
                        });
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
        Files.createDirectories(baseDirectory);
        removeStaleDirectories(baseDirectory);
        Path directory = Files.createTempDirectory(baseDirectory, DIRECTORY_PREFIX);
        FileChannel lockChannel =
                FileChannel.open(
                        directory.resolve(LOCK_FILE),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        FileLock lock = lockChannel.lock();
        LOG.info(
                "Created the local disk tier for remote files in {}, at most {} bytes",
                directory,
                maxBytes);
        return new DiskTier(directory, maxBytes, writes, lockChannel, lock);
    }

    /**
     * Removes tier directories whose lock no process holds: the operating system releases a
     * process's file locks when it ends, however it ends, so a live tier (of this or another
     * TaskManager sharing the disk) is never touched.
     */
    private static void removeStaleDirectories(Path base) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, DIRECTORY_PREFIX + "*")) {
            for (Path dir : dirs) {
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                boolean stale = false;
                try (FileChannel channel =
                        FileChannel.open(
                                dir.resolve(LOCK_FILE),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE)) {
                    FileLock held = channel.tryLock();
                    if (held != null) {
                        stale = true;
                        held.release();
                    }
                } catch (OverlappingFileLockException e) {
                    // a live tier of this JVM
                } catch (IOException e) {
                    LOG.debug("Cannot check {}: {}", dir, e.toString());
                }
                if (stale) {
                    LOG.info("Removing the disk tier directory of an ended process: {}", dir);
                    deleteRecursively(dir);
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot list {} for old disk tier directories: {}", base, e.toString());
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException e) {
                                    LOG.debug("Cannot delete {}: {}", p, e.toString());
                                }
                            });
        } catch (IOException e) {
            LOG.debug("Cannot delete {}: {}", dir, e.toString());
        }
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
        long bytes;
        synchronized (allocation) {
            bytes = usedBytes;
        }
        return new Stats(
                bytes,
                maxBytes,
                hits.sum(),
                misses.sum(),
                bytesServed.sum(),
                bytesWritten.sum(),
                writeFailures.sum(),
                droppedWrites.sum(),
                checksumFailures.sum(),
                lostFiles.sum(),
                evictedBytes.sum());
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
                    FileEntry e = entry == null ? new FileEntry() : entry;
                    e.references++;
                    return e;
                });
    }

    /** Drops one reference; the last one removes the file's ranges. */
    void release(FileId file) {
        FileEntry[] removed = new FileEntry[1];
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
            for (Extent x : removed[0].extents.values()) {
                unindex(removed[0], x);
            }
            reclaimEmptySegments();
        }
    }

    /** Number of ranges held of {@code file}; for tests. */
    int extentCount(FileId file) {
        FileEntry entry = files.get(file);
        return entry == null ? 0 : entry.extents.size();
    }

    // ------------------------------------------------------------------ reading

    boolean covers(FileId file, FileRange range) {
        FileEntry entry = files.get(file);
        return entry != null && find(entry, range.offset(), range.length()) != null;
    }

    /** The range's bytes from disk, or null when they are not held (or failed their checksum). */
    @Nullable
    byte[] read(FileId file, FileRange range) {
        byte[] bytes = new byte[range.length()];
        return read(file, range.offset(), bytes, 0, range.length()) ? bytes : null;
    }

    /** Copies the range from disk into {@code buffer}; false when it is not held. */
    boolean read(FileId file, long position, byte[] buffer, int offset, int length) {
        FileEntry entry = files.get(file);
        Extent x = entry == null || length == 0 ? null : find(entry, position, length);
        if (x == null) {
            misses.increment();
            return false;
        }
        Segment segment = x.segment();
        if (!segment.acquire()) {
            unindex(entry, x); // evicted meanwhile
            misses.increment();
            return false;
        }
        try {
            int relative = (int) (position - x.fileOffset());
            if (!verify(x, relative, length)) {
                checksumFailure(entry, x);
                misses.increment();
                return false;
            }
            segment.map.get((int) (x.segmentPosition() + relative), buffer, offset, length);
            long now = System.nanoTime();
            if (now - segment.lastAccessNanos > 1_000_000) {
                segment.lastAccessNanos = now;
            }
        } catch (InternalError e) {
            // A mapped page was lost: the segment file was truncated from outside.
            lostSegment(segment, e.toString());
            misses.increment();
            return false;
        } finally {
            segment.release();
        }
        hits.increment();
        bytesServed.add(length);
        return true;
    }

    private static boolean verify(Extent x, int relative, int length) {
        CRC32C crc = new CRC32C();
        int first = relative / BLOCK;
        int last = (relative + length - 1) / BLOCK;
        for (int b = first; b <= last; b++) {
            int start = b * BLOCK;
            int n = Math.min(BLOCK, x.length() - start);
            crc.reset();
            crc.update(x.segment().map.slice((int) (x.segmentPosition() + start), n));
            if ((int) crc.getValue() != x.blockChecksums()[b]) {
                return false;
            }
        }
        return true;
    }

    @Nullable
    private static Extent find(FileEntry entry, long offset, int length) {
        Map.Entry<Long, Extent> e = entry.extents.floorEntry(offset);
        for (int steps = 0; e != null && steps < 8; steps++) {
            if (e.getValue().contains(offset, length)) {
                return e.getValue();
            }
            e = entry.extents.lowerEntry(e.getKey());
        }
        return null;
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
            droppedWrites.increment();
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
        FileEntry entry = files.get(file);
        if (closed || length == 0 || length > segmentBytes || entry == null) {
            return false;
        }
        if (find(entry, offset, length) != null) {
            return true;
        }
        maybeCheckFiles();
        int[] checksums = checksums(bytes);
        Segment segment;
        long position;
        // Allocation and write under one lock: a failed write (a full disk) then always gives its
        // space back, since nothing was allocated after it. Writes come from the writer thread
        // and the warm-up's few fetches; a lookup never waits for them.
        synchronized (allocation) {
            try {
                if (closed) {
                    return false;
                }
                if (active != null && active.writePosition + length > active.capacity) {
                    // Full: its unused end counts, so the number of files stays bounded too.
                    usedBytes += active.capacity - active.writePosition;
                    active.writePosition = active.capacity;
                    active = null;
                }
                while (usedBytes + length > maxBytes && !segments.isEmpty()) {
                    evict(victim());
                }
                if (active == null) {
                    active = newSegment();
                }
            } catch (IOException e) {
                writeFailed(file, e);
                return false;
            }
            segment = active;
            position = segment.writePosition;
            try {
                writes.write(segment.channel, ByteBuffer.wrap(bytes), position);
            } catch (IOException e) {
                if (!segment.isDropped()) {
                    writeFailed(file, e);
                }
                return false;
            }
            segment.writePosition += length;
            usedBytes += length;
        }
        bytesWritten.add(length);
        Extent x = new Extent(file, offset, length, segment, position, checksums);
        segment.extents.add(x);
        segment.lastAccessNanos = System.nanoTime();
        boolean[] indexed = new boolean[1];
        files.computeIfPresent(
                file,
                (k, e) -> {
                    indexed[0] = index(e, x);
                    return e;
                });
        return indexed[0];
    }

    /** Adds {@code x} unless a held range contains it; ranges inside it leave. */
    private static boolean index(FileEntry entry, Extent x) {
        if (find(entry, x.fileOffset(), x.length()) != null) {
            return true;
        }
        for (Extent inside :
                entry.extents.subMap(x.fileOffset(), true, x.fileEnd(), false).values()) {
            if (x.contains(inside.fileOffset(), inside.length())) {
                unindex(entry, inside);
            }
        }
        x.segment().liveBytes.addAndGet(x.length());
        Extent previous = entry.extents.put(x.fileOffset(), x);
        if (previous != null) {
            previous.segment().liveBytes.addAndGet(-previous.length());
        }
        return true;
    }

    private static boolean unindex(FileEntry entry, Extent x) {
        if (entry.extents.remove(x.fileOffset(), x)) {
            x.segment().liveBytes.addAndGet(-x.length());
            return true;
        }
        return false;
    }

    private static int[] checksums(byte[] bytes) {
        int[] result = new int[(bytes.length + BLOCK - 1) / BLOCK];
        CRC32C crc = new CRC32C();
        for (int b = 0; b < result.length; b++) {
            crc.reset();
            crc.update(bytes, b * BLOCK, Math.min(BLOCK, bytes.length - b * BLOCK));
            result[b] = (int) crc.getValue();
        }
        return result;
    }

    // ------------------------------------------------------------------ segments (under
    // allocation)

    private Segment newSegment() throws IOException {
        Files.createDirectories(directory); // deleted from outside?
        Path path = directory.resolve(String.format("segment-%06d.bin", segmentCounter++));
        Segment segment = Segment.create(path, segmentBytes);
        segments.add(segment);
        return segment;
    }

    /** Segments without live ranges first, then the least recently used, the active one last. */
    private Segment victim() {
        Segment best = null;
        for (Segment s : segments) {
            if (s == active) {
                continue;
            }
            if (s.liveBytes.get() <= 0) {
                return s;
            }
            if (best == null || s.lastAccessNanos - best.lastAccessNanos < 0) {
                best = s;
            }
        }
        return best != null ? best : active;
    }

    private void evict(Segment victim) {
        segments.remove(victim);
        usedBytes -= victim.writePosition;
        evictedBytes.add(victim.liveBytes.get());
        if (victim == active) {
            active = null;
        }
        for (Extent x : victim.extents) {
            FileEntry entry = files.get(x.file());
            if (entry != null) {
                unindex(entry, x);
            }
        }
        victim.drop();
    }

    private void reclaimEmptySegments() {
        synchronized (allocation) {
            for (Segment s : new ArrayList<>(segments)) {
                if (s.liveBytes.get() <= 0) {
                    // A write in flight to it fails quietly: the range is simply not kept.
                    segments.remove(s);
                    usedBytes -= s.writePosition;
                    if (s == active) {
                        active = null;
                    }
                    s.drop();
                }
            }
        }
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
        List<Segment> lost = new ArrayList<>();
        synchronized (allocation) {
            for (Segment s : segments) {
                if (!Files.exists(s.path)) {
                    lost.add(s);
                }
            }
        }
        for (Segment s : lost) {
            lostSegment(s, "its file was deleted");
        }
        return lost.size();
    }

    private void lostSegment(Segment segment, String why) {
        synchronized (allocation) {
            if (!segments.contains(segment)) {
                return;
            }
            evict(segment);
        }
        lostFiles.increment();
        String message =
                "Disk tier: cache file {} was lost ({}); its ranges are fetched again from the"
                        + " store. Point 'local-cache.dir' at a directory no cleaner touches."
                        + " Further losses are counted in localCacheLostFiles.";
        if (lostFileLogged.compareAndSet(false, true)) {
            LOG.warn(message, segment.path, why);
        } else {
            LOG.debug(message, segment.path, why);
        }
    }

    private void checksumFailure(FileEntry entry, Extent x) {
        checksumFailures.increment();
        unindex(entry, x);
        String message =
                "Disk tier: bytes [{}, {}) of {} in cache file {} do not match their checksum (the"
                        + " file was changed from outside or the disk is failing); they are fetched"
                        + " again from the store. Further mismatches are counted in"
                        + " localCacheChecksumFailures.";
        Object[] args = {x.fileOffset(), x.fileEnd(), x.file(), x.segment().path};
        if (checksumFailureLogged.compareAndSet(false, true)) {
            LOG.warn(message, args);
        } else {
            LOG.debug(message, args);
        }
    }

    private void writeFailed(FileId file, IOException e) {
        writeFailures.increment();
        String message =
                "Disk tier: cannot write a range of {} to {} ({}); lookups read it from the store."
                        + " Free disk space, lower 'local-cache.max-bytes' or point"
                        + " 'local-cache.dir' elsewhere. Further failures are counted in"
                        + " localCacheWriteFailures.";
        if (writeFailureLogged.compareAndSet(false, true)) {
            LOG.warn(message, file, directory, e.toString());
        } else {
            LOG.debug(message, file, directory, e.toString());
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
        synchronized (allocation) {
            for (Segment s : segments) {
                s.drop();
            }
            segments.clear();
            active = null;
            usedBytes = 0;
        }
        files.clear();
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.debug("Releasing the lock of {}: {}", directory, e.toString());
        }
        deleteRecursively(directory);
        LOG.info("Closed the local disk tier in {}", directory);
    }

    @Override
    public String toString() {
        return "DiskTier{" + directory + ", " + stats() + '}';
    }
}
