package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of a {@link DiskTier} and its faults, each fault kind logged once at WARN with what
 * to do, then at DEBUG and counted (the counters are the metrics {@code localCache*}).
 */
final class TierCounters {

    private static final Logger LOG = LoggerFactory.getLogger(DiskTier.class);

    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder bytesServed = new LongAdder();
    final LongAdder bytesWritten = new LongAdder();
    final LongAdder droppedWrites = new LongAdder();
    final LongAdder evictedBytes = new LongAdder();
    private final LongAdder writeFailures = new LongAdder();
    private final LongAdder checksumFailures = new LongAdder();
    private final LongAdder lostFiles = new LongAdder();
    private final AtomicBoolean writeFailureLogged = new AtomicBoolean();
    private final AtomicBoolean checksumFailureLogged = new AtomicBoolean();
    private final AtomicBoolean lostFileLogged = new AtomicBoolean();

    DiskTier.Stats stats(long bytes, long maxBytes) {
        return new DiskTier.Stats(
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

    void lostSegment(Path segment, String why) {
        lostFiles.increment();
        logOnce(
                lostFileLogged,
                "Disk tier: cache file {} was lost ({}); its ranges are fetched again from the"
                        + " store. Point 'local-cache.dir' at a directory no cleaner touches."
                        + " Further losses are counted in localCacheLostFiles.",
                segment,
                why);
    }

    void checksumFailure(Extent x) {
        checksumFailures.increment();
        logOnce(
                checksumFailureLogged,
                "Disk tier: bytes [{}, {}) of {} in cache file {} do not match their checksum (the"
                        + " file was changed from outside or the disk is failing); they are fetched"
                        + " again from the store. Further mismatches are counted in"
                        + " localCacheChecksumFailures.",
                x.fileOffset(),
                x.fileEnd(),
                x.file(),
                x.segment().path);
    }

    void writeFailed(FileId file, Path directory, IOException e) {
        writeFailures.increment();
        logOnce(
                writeFailureLogged,
                "Disk tier: cannot write a range of {} to {} ({}); lookups read it from the store."
                        + " Free disk space, lower 'local-cache.max-bytes' or point"
                        + " 'local-cache.dir' elsewhere. Further failures are counted in"
                        + " localCacheWriteFailures.",
                file,
                directory,
                e.toString());
    }

    private static void logOnce(AtomicBoolean logged, String message, Object... args) {
        if (logged.compareAndSet(false, true)) {
            LOG.warn(message, args);
        } else {
            LOG.debug(message, args);
        }
    }
}
