package dev.parquetlookup.io;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The thread factories of the engine's background threads: daemon threads named {@code prefix-N}.
 * Threads shared by every table of a JVM (key index builds, local forms, the disk tier's writer,
 * the hedge timer) outlive the Flink job that happened to start them, so they take the engine's
 * class loader as their context class loader ({@link #jvmWide}): a thread keeping the starting
 * job's user-code class loader fails once Flink closes it at that job's end ("Trying to access
 * closed classloader" from Hadoop's {@code Configuration}), and keeps it from being collected.
 * Threads of one table ({@link #perTable}) keep their creator's, the job's.
 *
 * <p>Example: {@code Executors.newFixedThreadPool(2,
 * DaemonThreads.perTable("parquet-lookup-open"))} names its threads {@code parquet-lookup-open-1},
 * {@code parquet-lookup-open-2}.
 */
public final class DaemonThreads {

    private DaemonThreads() {}

    /** Daemon threads for one table's work, with their creator's context class loader. */
    public static ThreadFactory perTable(String prefix) {
        return factory(prefix, null);
    }

    /**
     * Daemon threads shared by every table of the JVM, with the engine's class loader as their
     * context class loader.
     */
    public static ThreadFactory jvmWide(String prefix) {
        return factory(prefix, DaemonThreads.class.getClassLoader());
    }

    /**
     * A pool of at most {@code threads} threads of {@code factory} ({@link #jvmWide} or {@link
     * #perTable}) with an unbounded queue, whose threads end after {@link #IDLE_SECONDS} idle: a
     * pool nothing uses holds no thread.
     */
    public static ThreadPoolExecutor idleEndingPool(int threads, ThreadFactory factory) {
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(
                        threads,
                        threads,
                        IDLE_SECONDS,
                        TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(),
                        factory);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Seconds an {@link #idleEndingPool}'s thread waits for work before it ends. */
    static final int IDLE_SECONDS = 30;

    private static ThreadFactory factory(String prefix, ClassLoader contextLoader) {
        AtomicInteger counter = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + counter.incrementAndGet());
            t.setDaemon(true);
            if (contextLoader != null) {
                t.setContextClassLoader(contextLoader);
            }
            return t;
        };
    }
}
