package dev.parquetlookup.writer;

import org.apache.parquet.bytes.ByteBufferAllocator;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Owns the heap buffers one file writer's parquet-java column writers allocate, and hands released
 * ones out again. parquet-java sizes a page's first buffer from the page byte limit (64 KiB for the
 * 64 MiB default) and allocates it anew, zeroed, for every page of every column: with 256-row pages
 * that was a tenth of {@code prepare}'s time. Released buffers are kept by exact capacity, up to
 * {@value #MAX_KEPT_BYTES} bytes in all; one writer uses one allocator, from one thread.
 */
final class RecyclingAllocator implements ByteBufferAllocator {

    static final long MAX_KEPT_BYTES = 32L << 20;

    private final Map<Integer, ArrayDeque<ByteBuffer>> free = new HashMap<>();
    private long keptBytes;

    @Override
    public ByteBuffer allocate(int size) {
        ArrayDeque<ByteBuffer> same = free.get(size);
        ByteBuffer b = same == null ? null : same.pollLast();
        if (b == null) {
            return ByteBuffer.allocate(size);
        }
        keptBytes -= size;
        return b.clear();
    }

    @Override
    public void release(ByteBuffer b) {
        if (b.isDirect() || !b.hasArray() || b.isReadOnly() || b.arrayOffset() != 0) {
            return;
        }
        int size = b.capacity();
        if (size != b.array().length || keptBytes + size > MAX_KEPT_BYTES) {
            return;
        }
        ArrayDeque<ByteBuffer> same = free.computeIfAbsent(size, s -> new ArrayDeque<>());
        for (ByteBuffer kept : same) {
            if (kept.array() == b.array()) {
                return; // released twice: keep it once
            }
        }
        same.addLast(b);
        keptBytes += size;
    }

    @Override
    public boolean isDirect() {
        return false;
    }
}
