package dev.parquetlookup.io;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owns the lifetime of a memory mapping shared by concurrent reads: it counts reads in flight, and
 * once closed it refuses new reads and runs its release (unmapping) exactly once, after the last
 * read that started before the close. Unmapping under a running read would crash the JVM, and
 * waiting for the garbage collector would keep the file mapped for an unknown time.
 *
 * <p>Example: {@code if (!guard.tryAcquire()) throw closed(); try { copy(); } finally {
 * guard.release(); }}, and {@code guard.close()} when the file leaves.
 */
public final class ReadGuard {

    private static final Logger LOG = LoggerFactory.getLogger(ReadGuard.class);

    /** Set in {@link #state} once closed; the low bits count reads in flight. */
    private static final long CLOSED = 1L << 62;

    private final AtomicLong state = new AtomicLong();
    private final AtomicBoolean released = new AtomicBoolean();
    private final Runnable release;

    /** {@code release} runs once, after the close and the last read. */
    public ReadGuard(Runnable release) {
        this.release = release;
    }

    /** Takes a read reference; false once closed (the caller reads elsewhere or fails). */
    public boolean tryAcquire() {
        if ((state.incrementAndGet() & CLOSED) != 0) {
            release();
            return false;
        }
        return true;
    }

    /** Gives back a reference taken by {@link #tryAcquire()}. */
    public void release() {
        if (state.decrementAndGet() == CLOSED) {
            runReleaseOnce();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }

    /** Refuses new reads; the release runs now, or when the last read in flight ends. */
    public void close() {
        long s;
        do {
            s = state.get();
            if ((s & CLOSED) != 0) {
                return;
            }
        } while (!state.compareAndSet(s, s | CLOSED));
        if (s == 0) {
            runReleaseOnce();
        }
    }

    private void runReleaseOnce() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }

    /**
     * Releases {@code buffer}'s mapping now instead of when the garbage collector finds it (run it
     * as a guard's release, never under a read). The buffer must not be read afterwards.
     */
    public static void unmap(MappedByteBuffer buffer) {
        Unmapper.unmap(buffer);
    }

    /**
     * Releases a mapping now through {@code sun.misc.Unsafe#invokeCleaner} (module {@code
     * jdk.unsupported}, open to every class path); without it the mapping waits for the garbage
     * collector, which is correct but holds a deleted file's disk space longer.
     */
    private static final class Unmapper {
        private static final Object UNSAFE;
        private static final Method INVOKE_CLEANER;

        static {
            Object unsafe = null;
            Method method = null;
            try {
                Class<?> type = Class.forName("sun.misc.Unsafe");
                java.lang.reflect.Field field = type.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                unsafe = field.get(null);
                method = type.getMethod("invokeCleaner", ByteBuffer.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.info("Mapped files are released by the garbage collector: {}", e.toString());
            }
            UNSAFE = unsafe;
            INVOKE_CLEANER = method;
        }

        static void unmap(MappedByteBuffer buffer) {
            if (INVOKE_CLEANER == null) {
                return;
            }
            try {
                INVOKE_CLEANER.invoke(UNSAFE, buffer);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.debug("Could not release a mapping; the garbage collector will", e);
            }
        }
    }
}
