package dev.parquetlookup.io.disk;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The directory of one {@link DiskTier}: new for every tier, below a base directory, held by a
 * {@code .lock} file that the process locks for the tier's lifetime.
 *
 * <p>The operating system releases a process's file locks when it ends, however it ends. So at
 * {@link #create} the directories of tiers whose lock nobody holds are the leftovers of ended
 * processes and are removed, while a live tier (of this or another TaskManager sharing the disk) is
 * never touched. Nothing of a tier survives its process.
 */
final class TierDirectory implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(TierDirectory.class);

    /** Name prefix of tier directories below the base directory. */
    static final String PREFIX = "parquet-lookup-cache-";

    private static final String LOCK_FILE = ".lock";

    final Path path;
    private final FileChannel lockChannel;
    private final FileLock lock;

    private TierDirectory(Path path, FileChannel lockChannel, FileLock lock) {
        this.path = path;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /**
     * Removes the directories of ended processes below {@code base}, then creates and locks one.
     */
    static TierDirectory create(Path base) throws IOException {
        Files.createDirectories(base);
        removeStale(base);
        Path path = Files.createTempDirectory(base, PREFIX);
        FileChannel channel =
                FileChannel.open(
                        path.resolve(LOCK_FILE),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        return new TierDirectory(path, channel, channel.lock());
    }

    private static void removeStale(Path base) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, PREFIX + "*")) {
            for (Path dir : dirs) {
                if (Files.isDirectory(dir) && isStale(dir)) {
                    LOG.info("Removing the disk tier directory of an ended process: {}", dir);
                    deleteRecursively(dir);
                }
            }
        } catch (IOException e) {
            LOG.warn("Cannot list {} for old disk tier directories: {}", base, e.toString());
        }
    }

    private static boolean isStale(Path dir) {
        try (FileChannel channel =
                FileChannel.open(
                        dir.resolve(LOCK_FILE),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE)) {
            FileLock held = channel.tryLock();
            if (held != null) {
                held.release();
                return true;
            }
        } catch (OverlappingFileLockException e) {
            // a live tier of this JVM
        } catch (IOException e) {
            LOG.debug("Cannot check {}: {}", dir, e.toString());
        }
        return false;
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

    /** Releases the lock and deletes the directory with everything in it. */
    @Override
    public void close() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.debug("Releasing the lock of {}: {}", path, e.toString());
        }
        deleteRecursively(path);
    }
}
