package dev.parquetlookup.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;

/**
 * Owns the bounded pool on which blocking reads of remote file systems without an asynchronous
 * client (HDFS, ABFS, ...) run for {@link RangeSource#readAllAsync}: one per {@link
 * HadoopFileStore}, threads made on demand and ended when idle, and on {@link #close()} every read
 * still queued fails instead of hanging.
 */
final class BlockingReads implements Executor {

    /** Threads at most: blocking reads at once per store. */
    static final int THREADS = 64;

    private final ThreadPoolExecutor pool;

    BlockingReads(String name) {
        pool = DaemonThreads.idleEndingPool(THREADS, DaemonThreads.perTable(name));
    }

    @Override
    public void execute(Runnable command) {
        pool.execute(command);
    }

    /** A blocking read. */
    interface Read {
        byte[][] run() throws IOException;
    }

    /** Runs {@code read} on {@code executor}; the future fails if the pool rejects or drops it. */
    static CompletableFuture<byte[][]> supply(Executor executor, Read read) {
        Task task = new Task(read);
        try {
            executor.execute(task);
        } catch (RuntimeException e) {
            task.fail(e);
        }
        return task.result;
    }

    /** Stops the pool; reads still queued fail, running ones end with their read. */
    void close() {
        List<Runnable> dropped = new ArrayList<>(pool.shutdownNow());
        for (Runnable r : dropped) {
            if (r instanceof Task task) {
                task.fail(new IOException("reads stopped: the file store closed"));
            }
        }
    }

    private static final class Task implements Runnable {
        private final Read read;
        final CompletableFuture<byte[][]> result = new CompletableFuture<>();

        Task(Read read) {
            this.read = read;
        }

        @Override
        public void run() {
            try {
                result.complete(read.run());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }

        void fail(Throwable t) {
            result.completeExceptionally(t);
        }
    }
}
