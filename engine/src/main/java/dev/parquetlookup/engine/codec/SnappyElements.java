package dev.parquetlookup.engine.codec;

import dev.parquetlookup.engine.codec.PrefixDecompressor.CompressedInput;

import java.io.IOException;

/**
 * Decodes Snappy elements (literals and copies, after the stream's length header) until the output
 * reaches a target, so a page prefix stops early. Reads the input as an array ({@link
 * CompressedInput}) and copies in 8-byte steps ({@link ByteCopies}). Stateless; damaged input is an
 * {@link IOException} (or an index error, which {@link PrefixDecompressor} reports as one).
 *
 * <p>Example: the elements {@code [0x08 'a' 'b' 'c'][0x15 0x03]} are a 3-byte literal and a copy of
 * 9 bytes from 3 back: {@code "abcabcabcabc"}.
 */
final class SnappyElements {

    private SnappyElements() {}

    /**
     * Decodes elements of {@code in[from, end)} into {@code o} from {@code op} until {@code target}
     * or the input's end; returns {@code (input position << 32) | output position}.
     */
    static long decode(
            CompressedInput in,
            int from,
            int end,
            byte[] o,
            int outStart,
            int outEnd,
            int op,
            int target)
            throws IOException {
        int ip = from;
        while (op < target && ip < end) {
            if (ip + 8 > in.copied) {
                in.fill(ip + 8);
            }
            byte[] b = in.src;
            int d = in.delta;
            int tag = b[ip++ + d] & 0xff;
            int length;
            int offset;
            switch (tag & 3) {
                case 0 -> {
                    length = tag >>> 2;
                    if (length >= 60) {
                        int bytes = length - 59;
                        if (ip + bytes > end) {
                            throw new IOException("SNAPPY literal length runs past the page");
                        }
                        length = 0;
                        for (int i = 0; i < bytes; i++) {
                            length |= (b[ip++ + d] & 0xff) << (8 * i);
                        }
                    }
                    length += 1;
                    if (length <= 0 || length > end - ip || length > outEnd - op) {
                        throw new IOException("SNAPPY literal runs past the page");
                    }
                    if (ip + length + 8 > in.copied) {
                        in.fill(ip + length + 8);
                        b = in.src;
                    }
                    ByteCopies.literals(b, ip + d, in.copied + d, o, op, length);
                    ip += length;
                    op += length;
                    continue;
                }
                case 1 -> {
                    length = ((tag >>> 2) & 7) + 4;
                    offset = ((tag >>> 5) << 8) | (b[ip++ + d] & 0xff);
                }
                case 2 -> {
                    length = (tag >>> 2) + 1;
                    offset = (b[ip + d] & 0xff) | ((b[ip + 1 + d] & 0xff) << 8);
                    ip += 2;
                }
                default -> {
                    length = (tag >>> 2) + 1;
                    offset =
                            (b[ip + d] & 0xff)
                                    | ((b[ip + 1 + d] & 0xff) << 8)
                                    | ((b[ip + 2 + d] & 0xff) << 16)
                                    | ((b[ip + 3 + d] & 0xff) << 24);
                    ip += 4;
                }
            }
            if (ip > end) {
                throw new IOException("SNAPPY copy runs past the page");
            }
            if (offset <= 0 || offset > op - outStart || length > outEnd - op) {
                throw new IOException("SNAPPY copy outside the page (offset " + offset + ")");
            }
            ByteCopies.match(o, op, offset, length);
            op += length;
        }
        return ((long) ip << 32) | (op & 0xffffffffL);
    }
}
