package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Owns the disk tier's space: its segment files, the one being appended to, the bytes they take
 * against the bound, and eviction. A write allocates and writes under one lock, so a failed write
 * (a full disk) always gives its space back, since nothing was allocated after it. Evicting a
 * segment drops its ranges from the tier's index ({@code files}).
 *
 * <p>Writes come from the tier's writer thread and the warm-up's few fetches; a lookup never waits
 * for them (reads go through the index and the segments' mappings, not through this lock).
 */
final class SegmentSpace {

    /** Where a range was written. */
    record Placement(Segment segment, long position) {}

    private final Path directory;
    private final long maxBytes;
    private final long segmentBytes;
    private final DiskWrites writes;
    private final Map<FileId, FileExtents> files;
    private final TierCounters counters;

    private final List<Segment> segments = new ArrayList<>();
    @Nullable private Segment active;
    private long usedBytes;
    private long segmentCounter;
    private boolean closed;

    SegmentSpace(
            Path directory,
            long maxBytes,
            long segmentBytes,
            DiskWrites writes,
            Map<FileId, FileExtents> files,
            TierCounters counters) {
        this.directory = directory;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.writes = writes;
        this.files = files;
        this.counters = counters;
    }

    synchronized long usedBytes() {
        return usedBytes;
    }

    /**
     * Appends {@code bytes} to the active segment (a new one when it is full), evicting the least
     * recently used segments to stay within the bound; null if the write failed (counted and logged
     * once) or the space is closed.
     */
    @Nullable
    synchronized Placement write(FileId file, byte[] bytes) {
        int length = bytes.length;
        try {
            if (closed) {
                return null;
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
            counters.writeFailed(file, directory, e);
            return null;
        }
        Segment segment = active;
        long position = segment.writePosition;
        try {
            writes.write(segment.channel, ByteBuffer.wrap(bytes), position);
        } catch (IOException e) {
            if (!segment.isDropped()) {
                counters.writeFailed(file, directory, e);
            }
            return null;
        }
        segment.writePosition += length;
        usedBytes += length;
        return new Placement(segment, position);
    }

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
        counters.evictedBytes.add(victim.liveBytes.get());
        if (victim == active) {
            active = null;
        }
        for (Extent x : victim.extents) {
            FileExtents entry = files.get(x.file());
            if (entry != null) {
                entry.unindex(x);
            }
        }
        victim.drop();
    }

    /** Deletes the segments no range in the index refers to any more. */
    synchronized void reclaimEmpty() {
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

    /** The segments whose files were deleted from outside. */
    synchronized List<Segment> missingFiles() {
        List<Segment> lost = new ArrayList<>();
        for (Segment s : segments) {
            if (!Files.exists(s.path)) {
                lost.add(s);
            }
        }
        return lost;
    }

    /** Evicts a lost segment; false if it was gone already. */
    synchronized boolean drop(Segment segment) {
        if (!segments.contains(segment)) {
            return false;
        }
        evict(segment);
        return true;
    }

    /** Drops every segment; later writes fail. */
    synchronized void close() {
        closed = true;
        for (Segment s : segments) {
            s.drop();
        }
        segments.clear();
        active = null;
        usedBytes = 0;
    }
}
