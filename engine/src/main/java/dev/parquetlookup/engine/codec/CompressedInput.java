package dev.parquetlookup.engine.codec;

import java.nio.ByteBuffer;

/**
 * Owns the compressed bytes of one page payload as a byte array for the block decoders ({@link
 * Lz4Sequences}, {@link SnappyElements}): a heap buffer's own array, or for a direct (mapped)
 * buffer a scratch array filled in chunks as the decoder reaches them, so a prefix copies only the
 * compressed bytes it decodes. Byte-array loops are about twice as fast as buffer accessors.
 *
 * <p>Index {@code i} of the buffer is {@code src[i + delta]}; {@code [.., copied)} is readable.
 * Example: a mapped page at buffer index 500 of 900 bytes starts with {@code copied = 500} and
 * {@code delta = -500}; {@code fill(532)} copies at least 8 KiB (or to the end) from there.
 */
final class CompressedInput {

    private final ByteBuffer in;
    private final int start;
    private final int end;

    byte[] src;
    int delta;
    int copied;
    private boolean owns;

    CompressedInput(ByteBuffer in, int start, int end) {
        this.in = in;
        this.start = start;
        this.end = end;
        if (in.hasArray()) {
            this.src = in.array();
            this.delta = in.arrayOffset();
            this.copied = end;
        } else {
            this.delta = -start;
            this.copied = start;
        }
    }

    /** Makes {@code [.., index)} (clamped to the payload's end) readable in {@link #src}. */
    void fill(int index) {
        if (index <= copied || copied >= end) {
            return;
        }
        if (src == null) {
            src = ScratchBuffers.take(end - start + 16);
            owns = true;
        }
        int to = Math.min(end, Math.max(index, copied + 8192));
        in.get(copied, src, copied + delta, to - copied);
        copied = to;
    }

    /** Byte {@code i} of the buffer, filling first when needed (for headers, not hot loops). */
    int unsigned(int i) {
        if (i >= copied) {
            fill(i + 1);
        }
        return src[i + delta] & 0xff;
    }

    /** Gives a scratch array back to the thread's pool. */
    void release() {
        if (owns) {
            owns = false;
            ScratchBuffers.give(src);
            src = null;
        }
    }
}
