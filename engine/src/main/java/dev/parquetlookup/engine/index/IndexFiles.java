package dev.parquetlookup.engine.index;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The key index files of one JVM on disk, in directories that other processes (other TaskManagers
 * on the host, a restarted one) may share: which files this JVM maps, when one may be deleted, and
 * the sweep of those no process has used for {@link #RETENTION}.
 *
 * <p>How a file another live process maps is never deleted:
 *
 * <ul>
 *   <li>A process holds a shared lock on each index file it maps ({@link #take}) until it lets go
 *       of it ({@link Hold#release}), and sets the file's modification time to "now" when it takes
 *       it and when it lets go: the modification time is when any process last used it.
 *   <li>A file is deleted ({@link #tryDelete}) only by a process that holds no {@link Hold} on it,
 *       under an exclusive lock taken without waiting (a shared lock held anywhere refuses it), and
 *       only if nobody used it since a given time, checked once the lock is held.
 *   <li>The JDK drops a process's lock on a file when any channel on that file closes, and mapping
 *       an index closes the channel it mapped through. So a holder locks again right after mapping
 *       ({@link Hold#relock}); in those microseconds the modification time it set before mapping
 *       turns deleters away. Should one still unlink the file, POSIX keeps an unlinked mapped file
 *       readable (its space is freed when the holder lets go), and Windows refuses the deletion.
 * </ul>
 *
 * <p>File locks are per process: within this JVM the {@link #held} map keeps deleters off the files
 * it maps, before any channel is opened on them (closing that channel would drop the lock).
 */
final class IndexFiles {

    private static final Logger LOG = LoggerFactory.getLogger(IndexFiles.class);

    /**
     * How long an index file no process uses is kept for reuse (a restart, a failover, the next job
     * on the same files): a day. Rebuilding one costs a read of its key column (millions of keys a
     * second), so a longer stay buys little, while a shorter one would rebuild after every night a
     * job is stopped.
     */
    static final Duration RETENTION = Duration.ofDays(1);

    /** At most one sweep of a directory per this interval. */
    static final Duration SWEEP_INTERVAL = Duration.ofHours(1);

    static final String SUFFIX = ".pli";

    private final LongSupplier nowMillis;

    /** The files this JVM maps (or is about to), by path. */
    private final ConcurrentHashMap<Path, Hold> held = new ConcurrentHashMap<>();

    /** When each directory was last swept. */
    private final ConcurrentHashMap<Path, Long> swept = new ConcurrentHashMap<>();

    IndexFiles(LongSupplier nowMillis) {
        this.nowMillis = nowMillis;
    }

    long now() {
        return nowMillis.getAsLong();
    }

    /** This JVM's hold on one index file: a shared lock through a channel kept open. */
    final class Hold {
        final Path path;
        @Nullable private FileChannel channel;
        @Nullable private FileLock lock;

        private Hold(Path path) {
            this.path = path;
        }

        /** Locks again after the file was mapped (the mapping's channel closed, and the lock). */
        synchronized void relock() {
            if (channel == null) {
                return;
            }
            try {
                if (lock != null) {
                    lock.release();
                }
                lock = channel.lock(0, Long.MAX_VALUE, true);
            } catch (IOException | OverlappingFileLockException e) {
                lock = null;
                LOG.debug("Cannot lock the key index {} again: {}", path, e.toString());
            }
        }

        /**
         * Lets go of the file: marks it used now, then unlocks it. Returns that time, for {@link
         * #tryDelete}.
         */
        long release() {
            long now = now();
            touch(path, now);
            synchronized (this) {
                closeQuietly();
            }
            held.remove(path, this);
            return now;
        }

        private void closeQuietly() {
            try {
                if (channel != null) {
                    channel.close(); // releases the lock
                }
            } catch (IOException e) {
                LOG.debug("Closing the key index {}: {}", path, e.toString());
            }
            channel = null;
            lock = null;
        }
    }

    /**
     * Takes a hold on the index file at {@code path} before mapping it: locks it shared and marks
     * it used now. Returns null when there is no such file (or it was deleted meanwhile).
     */
    @Nullable
    Hold take(Path file) throws IOException {
        Path path = file.toAbsolutePath().normalize(); // as the sweep lists it
        Hold hold = new Hold(path);
        if (held.putIfAbsent(path, hold) != null) {
            // Held by another instance in this JVM (tests): it keeps the lock.
            return Files.exists(path) ? hold : null;
        }
        try {
            Object before = fileKey(path);
            if (before == null) {
                held.remove(path, hold);
                return null;
            }
            try {
                hold.channel = FileChannel.open(path, StandardOpenOption.READ);
                hold.lock = hold.channel.lock(0, Long.MAX_VALUE, true);
            } catch (NoSuchFileException e) {
                hold.closeQuietly();
                held.remove(path, hold);
                return null;
            } catch (OverlappingFileLockException e) {
                // Another instance of this JVM maps it (tests): it keeps it locked.
                hold.lock = null;
            }
            if (!Objects.equals(before, fileKey(path))) {
                // Deleted or replaced between the look and the lock: as if there were none.
                hold.closeQuietly();
                held.remove(path, hold);
                return null;
            }
            touch(path, now());
            return hold;
        } catch (IOException | RuntimeException e) {
            hold.closeQuietly();
            held.remove(path, hold);
            throw e;
        }
    }

    @Nullable
    private static Object fileKey(Path path) {
        try {
            BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
            return a.fileKey() == null ? a.lastModifiedTime() : a.fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    private static void touch(Path path, long millis) {
        try {
            Files.setLastModifiedTime(path, FileTime.fromMillis(millis));
        } catch (IOException e) {
            LOG.debug("Cannot mark the key index {} used: {}", path, e.toString());
        }
    }

    /**
     * Deletes the index file at {@code path} unless this JVM holds it, another process holds it
     * (its shared lock), or some process used it after {@code usedUntil} (its modification time).
     * Never waits. Returns whether it was deleted.
     */
    boolean tryDelete(Path path, long usedUntil) {
        boolean[] deleted = {false};
        held.compute(
                path,
                (p, hold) -> {
                    if (hold == null) {
                        deleted[0] = deleteUnlocked(p, usedUntil);
                    }
                    return hold;
                });
        return deleted[0];
    }

    private static boolean deleteUnlocked(Path path, long usedUntil) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE)) {
            FileLock exclusive = channel.tryLock();
            if (exclusive == null) {
                LOG.debug("Keeping the key index {}: another process maps it", path);
                return false;
            }
            if (Files.getLastModifiedTime(path).toMillis() > usedUntil) {
                LOG.debug("Keeping the key index {}: used since", path);
                return false;
            }
            Files.delete(path);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException | OverlappingFileLockException e) {
            LOG.warn("Cannot delete the key index {}: {}", path, e.toString());
            return false;
        }
    }

    /** Whether {@code directory} is due for a sweep now (and, if so, marks it swept). */
    boolean sweepDue(Path directory) {
        long now = now();
        boolean[] due = {false};
        swept.compute(
                directory.toAbsolutePath().normalize(),
                (d, last) -> {
                    if (last != null && now - last < SWEEP_INTERVAL.toMillis()) {
                        return last;
                    }
                    due[0] = true;
                    return now;
                });
        return due[0];
    }

    /**
     * Deletes the index files in {@code directory} that no process has used for {@link #RETENTION}
     * (and no process holds), and the leftovers of builds cut off that long ago; first marks the
     * files this JVM holds used now, so that a process that ends without letting go of them (a
     * crash) leaves them kept for a full retention. Returns the paths of the index files deleted.
     */
    java.util.List<Path> sweep(Path directory) {
        long now = now();
        for (Hold hold : held.values()) {
            if (hold.path.getParent() != null && hold.path.getParent().equals(directory)) {
                touch(hold.path, now);
            }
        }
        long cutoff = now - RETENTION.toMillis() - 1; // used a retention ago: kept
        java.util.List<Path> deleted = new java.util.ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path p : files) {
                String name = p.getFileName().toString();
                long modified;
                try {
                    modified = Files.getLastModifiedTime(p).toMillis();
                } catch (IOException e) {
                    continue; // gone meanwhile
                }
                if (modified > cutoff) {
                    continue;
                }
                if (name.endsWith(SUFFIX)) {
                    if (tryDelete(p, cutoff)) {
                        deleted.add(p);
                    }
                } else if (name.endsWith(".tmp")) {
                    // A build or spill run cut off long ago (a live one is younger).
                    try {
                        Files.deleteIfExists(p);
                    } catch (IOException e) {
                        LOG.debug("Cannot delete {}: {}", p, e.toString());
                    }
                }
            }
        } catch (NoSuchFileException e) {
            return deleted;
        } catch (IOException e) {
            LOG.warn("Cannot sweep the key index directory {}: {}", directory, e.toString());
        }
        if (!deleted.isEmpty()) {
            LOG.info(
                    "Deleted {} key index file(s) in {} that no process used for {}",
                    deleted.size(),
                    directory,
                    RETENTION);
        }
        return deleted;
    }
}
