package dev.parquetlookup.engine;

import java.io.IOException;

/**
 * Decodes LZ4 block sequences ({@code [token][literal length...][literals][offset][match length
 * ...]}) until the output reaches a target, so a page prefix stops early. A block ends with a
 * sequence of literals only. Stateless; damaged input is an {@link IOException} (or an index error,
 * which {@link PrefixDecompressor} reports as one).
 *
 * <p>Example: the block {@code [0x50 'h' 'e' 'l' 'l' 'o']} is one sequence of 5 literals; decoded
 * with target 3 it still writes the whole sequence, {@code "hello"}.
 */
final class Lz4Sequences {

    private Lz4Sequences() {}

    /**
     * Decodes sequences of {@code in[from, end)} into {@code o} from {@code op} until {@code
     * target} or the block's end; returns {@code (input position << 32) | output position}. Matches
     * may reach back to {@code outStart}; nothing is written past {@code outEnd} that is part of
     * the output.
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
        byte[] b = in.src;
        int d = in.delta;
        int readable = in.copied;
        while (op < target && ip < end) {
            if (ip + 32 > readable) {
                in.fill(ip + 32);
                b = in.src;
                readable = in.copied;
            }
            int token = b[ip++ + d] & 0xff;
            int literals = token >>> 4;
            if (literals == 15) {
                long extended = length(in, ip, literals, "literal");
                ip = (int) (extended >>> 32);
                literals = (int) extended;
                b = in.src;
                readable = in.copied;
            }
            if (literals > end - ip || literals > outEnd - op) {
                throw new IOException("LZ4 literals run past the page");
            }
            if (ip + literals + 8 > readable) {
                in.fill(ip + literals + 8);
                b = in.src;
                readable = in.copied;
            }
            ByteCopies.literals(b, ip + d, readable + d, o, op, literals);
            ip += literals;
            op += literals;
            if (ip >= end) {
                break; // the last sequence has no match
            }
            if (ip + 2 > end) {
                throw new IOException("LZ4 match offset runs past the page");
            }
            int offset = (b[ip + d] & 0xff) | ((b[ip + 1 + d] & 0xff) << 8);
            ip += 2;
            int match = token & 15;
            if (match == 15) {
                long extended = length(in, ip, match, "match");
                ip = (int) (extended >>> 32);
                match = (int) extended;
                b = in.src;
                readable = in.copied;
            }
            match += 4;
            if (offset == 0 || offset > op - outStart || match > outEnd - op) {
                throw new IOException("LZ4 match outside the page (offset " + offset + ")");
            }
            ByteCopies.match(o, op, offset, match);
            op += match;
        }
        return ((long) ip << 32) | (op & 0xffffffffL);
    }

    /**
     * Adds the bytes of a length's extension (each up to 255, the last below) at {@code ip} to
     * {@code length}; returns {@code (position after them << 32) | length}.
     */
    private static long length(CompressedInput in, int ip, int length, String what)
            throws IOException {
        int x;
        do {
            if (ip >= in.copied) {
                in.fill(ip + 32);
                if (ip >= in.copied) {
                    throw new IOException("LZ4 " + what + " length runs past the page");
                }
            }
            x = in.src[ip++ + in.delta] & 0xff;
            length += x;
        } while (x == 255);
        return ((long) ip << 32) | (length & 0xffffffffL);
    }
}
