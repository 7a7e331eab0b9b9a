package dev.parquetlookup.engine.codec;

/**
 * Per-thread pool of the byte arrays lookups decompress pages into, so a lookup on a local file
 * allocates no page-sized array. A lookup ({@link Scratch}) takes arrays out of the pool of the
 * thread it runs on and gives them back when its pages are no longer needed (next file, end of
 * lookup), to the pool of whichever thread it then runs on. An array taken out belongs to that
 * lookup alone: no other lookup can see it until it is given back, so asynchronous lookups that
 * continue on another thread, or nested completions on the same thread, never share one.
 *
 * <p>The only static mutable state besides the documented caches: a few arrays per thread, each at
 * most {@link #MAX_POOLED} bytes (larger pages get arrays of their own, left to the collector).
 */
public final class ScratchBuffers {

    /** Largest array kept in a pool. */
    static final int MAX_POOLED = 4 << 20;

    /** Arrays kept per thread: a lookup holds a key page and a few value pages at once. */
    private static final int PER_THREAD = 8;

    /** Smallest array handed out, so small pages reuse one size. */
    private static final int MIN_SIZE = 16 << 10;

    private static final ThreadLocal<byte[][]> FREE =
            ThreadLocal.withInitial(() -> new byte[PER_THREAD][]);

    private ScratchBuffers() {}

    /** An array of at least {@code size} bytes, owned by the caller until {@link #give}n back. */
    public static byte[] take(int size) {
        byte[][] free = FREE.get();
        int best = -1;
        for (int i = 0; i < free.length; i++) {
            byte[] b = free[i];
            if (b != null && b.length >= size && (best < 0 || b.length < free[best].length)) {
                best = i;
            }
        }
        if (best >= 0) {
            byte[] b = free[best];
            free[best] = null;
            return b;
        }
        return new byte[Math.max(size, MIN_SIZE)];
    }

    /** Gives an array back to this thread's pool (or drops it when the pool is full of larger). */
    public static void give(byte[] buffer) {
        if (buffer.length > MAX_POOLED) {
            return;
        }
        byte[][] free = FREE.get();
        int smallest = -1;
        for (int i = 0; i < free.length; i++) {
            if (free[i] == null) {
                free[i] = buffer;
                return;
            }
            if (smallest < 0 || free[i].length < free[smallest].length) {
                smallest = i;
            }
        }
        if (free[smallest].length < buffer.length) {
            free[smallest] = buffer;
        }
    }

    /**
     * Byte arrays one lookup borrows (from {@link ScratchBuffers}) for the pages and row positions
     * it decodes: whatever is decoded into them must not outlive the lookup. A lookup's context
     * hands them out; page decoding asks for them through this interface only.
     */
    @FunctionalInterface
    public interface Scratch {

        /** An array of at least {@code size} bytes, this lookup's until it ends. */
        byte[] scratch(int size);
    }
}
