package dev.parquetlookup.engine.page;

import java.io.IOException;

/**
 * Decodes Parquet's RLE/bit-packed hybrid encoding (definition levels, dictionary ids) straight
 * from page bytes into int slots of a byte array (a lookup's scratch array, read with {@link
 * #get}), without parquet-java's per-value reader. Stateless.
 *
 * <p>Example: the runs {@code [0x03 0x07]} at bit width 3 are one RLE run of one value 7; {@code
 * decode(data, 0, 2, 3, 1, out, 0)} leaves {@code get(out, 0) == 7}.
 */
final class HybridRle {

    private HybridRle() {}

    /** Slot {@code i} of an int-slot array. */
    static int get(byte[] slots, int i) {
        return (int) LittleEndian.INT.get(slots, i << 2);
    }

    static void set(byte[] slots, int i, int value) {
        LittleEndian.INT.set(slots, i << 2, value);
    }

    /**
     * Decodes the first {@code count} values of the runs in {@code data[pos, end)} at {@code
     * bitWidth} bits each into slots {@code [base, base + count)} of {@code out}.
     *
     * @throws IOException if the runs end before {@code count} values or are damaged
     */
    static void decode(byte[] data, int pos, int end, int bitWidth, int count, byte[] out, int base)
            throws IOException {
        if (bitWidth < 0 || bitWidth > 32) {
            throw new IOException("bit width " + bitWidth + " is not a valid RLE bit width");
        }
        if (end > data.length || pos < 0) {
            throw new IOException("RLE runs lie outside the page");
        }
        long mask = bitWidth == 32 ? 0xffffffffL : (1L << bitWidth) - 1;
        int bytesPerRle = (bitWidth + 7) >>> 3;
        int n = 0;
        int p = pos;
        while (n < count) {
            int header = 0;
            int shift = 0;
            int b;
            do {
                if (p >= end || shift > 28) {
                    throw new IOException("RLE runs end after " + n + " of " + count + " values");
                }
                b = data[p++] & 0xff;
                header |= (b & 0x7f) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            if ((header & 1) == 0) {
                int run = header >>> 1;
                if (p + bytesPerRle > end) {
                    throw new IOException("RLE run value runs past the page");
                }
                int value = 0;
                for (int i = 0; i < bytesPerRle; i++) {
                    value |= (data[p + i] & 0xff) << (8 * i);
                }
                p += bytesPerRle;
                int to = Math.min(count, n + run);
                for (; n < to; n++) {
                    LittleEndian.INT.set(out, (base + n) << 2, value);
                }
            } else {
                int values = (header >>> 1) * 8;
                int bytes = (header >>> 1) * bitWidth;
                int take = Math.min(values, count - n);
                int needed = (int) (((long) take * bitWidth + 7) >>> 3);
                if (needed > end - p) {
                    throw new IOException("bit-packed run runs past the page");
                }
                unpack(data, p, bitWidth, mask, take, out, base + n);
                n += take;
                p += Math.min(bytes, end - p);
            }
        }
    }

    /** Unpacks {@code take} values packed LSB first from {@code data[p..]} into slots at n. */
    private static void unpack(
            byte[] data, int p, int bitWidth, long mask, int take, byte[] out, int n) {
        if (bitWidth == 0) {
            for (int i = 0; i < take; i++) {
                LittleEndian.INT.set(out, (n + i) << 2, 0);
            }
            return;
        }
        // Whole 8-byte reads while they stay inside the array; the tail byte by byte.
        int safe = data.length - 8;
        long bit = 0;
        int i = 0;
        for (; i < take; i++, bit += bitWidth) {
            int at = p + (int) (bit >>> 3);
            if (at > safe) {
                break;
            }
            long word = (long) LittleEndian.LONG.get(data, at);
            LittleEndian.INT.set(out, (n + i) << 2, (int) ((word >>> (bit & 7)) & mask));
        }
        for (; i < take; i++, bit += bitWidth) {
            int at = p + (int) (bit >>> 3);
            long word = 0;
            int last = (int) (((bit & 7) + bitWidth + 7) >>> 3);
            for (int k = 0; k < last; k++) {
                word |= (long) (data[at + k] & 0xff) << (8 * k);
            }
            LittleEndian.INT.set(out, (n + i) << 2, (int) ((word >>> (bit & 7)) & mask));
        }
    }

    /**
     * The rows among the first {@code rows} whose definition level is {@code maxDefinition} (not
     * null), written as row numbers into slots {@code [0, result)} of {@code out}, which must hold
     * {@code rows} slots. Levels are RLE/bit-packed in {@code data[pos, end)}.
     */
    static int nonNullRows(byte[] data, int pos, int end, int maxDefinition, int rows, byte[] out)
            throws IOException {
        int width = 32 - Integer.numberOfLeadingZeros(maxDefinition);
        decode(data, pos, end, width, rows, out, 0);
        int count = 0;
        for (int r = 0; r < rows; r++) {
            if ((int) LittleEndian.INT.get(out, r << 2) == maxDefinition) {
                LittleEndian.INT.set(out, count++ << 2, r); // count <= r: the slot is already read
            }
        }
        return count;
    }
}
