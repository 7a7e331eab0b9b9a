package dev.parquetlookup.engine.codec;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The copies of the block decoders: literal runs and back-references, in 8-byte steps where the
 * arrays have room (a step may write up to 7 bytes past the run: they lie beyond what is decoded
 * and are overwritten or never read).
 *
 * <p>Example: a match of length 20 at offset 3 after {@code "abc"} writes {@code "abcabc..."}: the
 * first 9 bytes one by one (a multiple of 3 that is at least 8), the rest 8 at a time from 9 bytes
 * back.
 */
final class ByteCopies {

    static final VarHandle LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Literal runs up to this length are copied 8 bytes at a time; longer ones in bulk. */
    private static final int SHORT = 32;

    private ByteCopies() {}

    /**
     * Copies {@code n} bytes from {@code src[from..]} to {@code o[op..]}; {@code readable} is the
     * end of what may be read in {@code src}.
     */
    static void literals(byte[] src, int from, int readable, byte[] o, int op, int n) {
        if (n <= SHORT && from + n + 8 <= readable && op + n + 8 <= o.length) {
            int i = 0;
            do {
                LONG.set(o, op + i, (long) LONG.get(src, from + i));
                i += 8;
            } while (i < n);
        } else {
            System.arraycopy(src, from, o, op, n);
        }
    }

    /** Copies {@code length} bytes from {@code offset} bytes back (the ranges may overlap). */
    static void match(byte[] o, int op, int offset, int length) {
        int from = op - offset;
        if (op + length + 8 <= o.length) {
            if (offset >= 8) {
                // With offset >= 8 every step reads bytes already written.
                int n = 0;
                do {
                    LONG.set(o, op + n, (long) LONG.get(o, from + n));
                    n += 8;
                } while (n < length);
                return;
            }
            // A short offset repeats a pattern: byte by byte up to a multiple of it that is at
            // least 8, then 8-byte steps from that far back (the same bytes, one period later).
            int distance = offset * ((offset + 7) / offset);
            int head = Math.min(length, distance);
            for (int i = 0; i < head; i++) {
                o[op + i] = o[from + i];
            }
            for (int n = head; n < length; n += 8) {
                LONG.set(o, op + n, (long) LONG.get(o, op + n - distance));
            }
            return;
        }
        if (offset >= length) {
            System.arraycopy(o, from, o, op, length);
        } else {
            for (int i = 0; i < length; i++) {
                o[op + i] = o[from + i];
            }
        }
    }
}
