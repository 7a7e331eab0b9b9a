package dev.parquetlookup.engine.codec;

import dev.parquetlookup.engine.codec.PrefixDecompressor.CompressedInput;

import java.io.IOException;

/**
 * Decodes LZ4 block sequences ({@code [token][literal length...][literals][offset][match length
 * ...]}) until the output reaches a target, so a page prefix stops early. A block ends with a
 * sequence of literals only. Stateless; damaged input is an {@link IOException} (or an index error,
 * which {@link PrefixDecompressor} reports as one).
 *
 * <p>Two paths: while at least {@link #IN_MARGIN} input bytes and {@link #OUT_MARGIN} output bytes
 * lie past its literals, a sequence whose literal length has at most one extension byte is copied
 * in whole 8-byte words with one bounds check per sequence (the bytes a word writes past the run
 * are overwritten by what follows), and a match of at most 18 bytes from 8 or more bytes back in
 * three words. Every other sequence, and every sequence near either end, takes the checked path
 * {@link #sequence}.
 *
 * <p>Example: the block {@code [0x50 'h' 'e' 'l' 'l' 'o']} is one sequence of 5 literals; decoded
 * with target 3 it still writes the whole sequence, {@code "hello"}.
 */
final class Lz4Sequences {

    /** Input bytes that must lie after a sequence's literals for the word-copy path. */
    private static final int IN_MARGIN = 24;

    /** Output bytes that must lie after the output position for the word-copy path. */
    private static final int OUT_MARGIN = 40;

    /** Compressed bytes made readable ahead at a time (for a mapped page). */
    private static final int FILL_AHEAD = 4096;

    private Lz4Sequences() {}

    /**
     * Decodes sequences of {@code in[from, end)} into {@code o} from {@code op} until {@code
     * target} or the block's end; returns {@code (input position << 32) | output position}. Matches
     * may reach back to {@code outStart}; nothing is written past {@code outEnd} that is part of
     * the output (bytes beyond it, up to {@code o.length}, may be overwritten).
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
        if (ip + IN_MARGIN > in.copied) {
            in.fill(ip + FILL_AHEAD);
        }
        byte[] b = in.src;
        int d = in.delta;
        int fastIn = Math.min(end, in.copied) - IN_MARGIN;
        int fastOut = Math.min(outEnd, o.length) - OUT_MARGIN;
        while (op < target && ip < end) {
            if (ip > fastIn && in.copied < end) {
                in.fill(ip + FILL_AHEAD);
                b = in.src;
                fastIn = Math.min(end, in.copied) - IN_MARGIN;
            }
            if (ip <= fastIn && op <= fastOut) {
                int token = b[ip + d] & 0xff;
                int literals = token >>> 4;
                int s = ip + 1;
                if (literals == 15) {
                    literals += b[s++ + d] & 0xff; // one extension byte here; 255 means more
                }
                if (literals < 15 + 255 && s + literals <= fastIn && op + literals <= fastOut) {
                    // Words up to 7 bytes past the run: input and output have the margin.
                    int n = 0;
                    do {
                        ByteCopies.LONG.set(o, op + n, (long) ByteCopies.LONG.get(b, s + d + n));
                        n += 8;
                    } while (n < literals);
                    ip = s + literals;
                    op += literals;
                    int offset = (b[ip + d] & 0xff) | ((b[ip + 1 + d] & 0xff) << 8);
                    ip += 2;
                    int match = token & 15;
                    int from8 = op - offset;
                    if (match < 15 && offset >= 8 && from8 >= outStart) {
                        // At most 18 bytes in three words, each reading bytes already written.
                        ByteCopies.LONG.set(o, op, (long) ByteCopies.LONG.get(o, from8));
                        ByteCopies.LONG.set(o, op + 8, (long) ByteCopies.LONG.get(o, from8 + 8));
                        ByteCopies.LONG.set(o, op + 16, (long) ByteCopies.LONG.get(o, from8 + 16));
                        op += match + 4;
                        continue;
                    }
                    if (match == 15) {
                        long extended = length(in, ip, match, "match");
                        ip = (int) (extended >>> 32);
                        match = (int) extended;
                        b = in.src;
                        fastIn = Math.min(end, in.copied) - IN_MARGIN;
                    }
                    checkMatch(offset, op - outStart, match + 4, outEnd - op);
                    ByteCopies.match(o, op, offset, match + 4);
                    op += match + 4;
                    continue;
                }
            }
            long positions = sequence(in, ip, end, o, outStart, outEnd, op);
            ip = (int) (positions >>> 32);
            op = (int) positions;
            b = in.src;
            fastIn = Math.min(end, in.copied) - IN_MARGIN;
        }
        return ((long) ip << 32) | (op & 0xffffffffL);
    }

    private static final java.lang.invoke.VarHandle BUFFER_LONG =
            java.lang.invoke.MethodHandles.byteBufferViewVarHandle(
                    long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    /**
     * As {@link #decode}, reading a direct (mapped) buffer in place: no copy of the compressed
     * bytes into an array first, so literals are copied once.
     */
    static long decodeDirect(
            java.nio.ByteBuffer in,
            int from,
            int end,
            byte[] o,
            int outStart,
            int outEnd,
            int op,
            int target)
            throws IOException {
        int ip = from;
        int fastIn = end - IN_MARGIN;
        int fastOut = Math.min(outEnd, o.length) - OUT_MARGIN;
        while (op < target && ip < end) {
            if (ip <= fastIn && op <= fastOut) {
                int token = in.get(ip) & 0xff;
                int literals = token >>> 4;
                int s = ip + 1;
                if (literals == 15) {
                    literals += in.get(s++) & 0xff;
                }
                if (literals < 15 + 255 && s + literals <= fastIn && op + literals <= fastOut) {
                    int n = 0;
                    do {
                        ByteCopies.LONG.set(o, op + n, (long) BUFFER_LONG.get(in, s + n));
                        n += 8;
                    } while (n < literals);
                    ip = s + literals;
                    op += literals;
                    int offset = (in.get(ip) & 0xff) | ((in.get(ip + 1) & 0xff) << 8);
                    ip += 2;
                    int match = token & 15;
                    int from8 = op - offset;
                    if (match < 15 && offset >= 8 && from8 >= outStart) {
                        ByteCopies.LONG.set(o, op, (long) ByteCopies.LONG.get(o, from8));
                        ByteCopies.LONG.set(o, op + 8, (long) ByteCopies.LONG.get(o, from8 + 8));
                        ByteCopies.LONG.set(o, op + 16, (long) ByteCopies.LONG.get(o, from8 + 16));
                        op += match + 4;
                        continue;
                    }
                    if (match == 15) {
                        int x;
                        do {
                            if (ip >= end) {
                                throw new IOException("LZ4 match length runs past the page");
                            }
                            x = in.get(ip++) & 0xff;
                            match += x;
                        } while (x == 255 && match > 0);
                    }
                    checkMatch(offset, op - outStart, match + 4, outEnd - op);
                    ByteCopies.match(o, op, offset, match + 4);
                    op += match + 4;
                    continue;
                }
            }
            long positions = directSequence(in, ip, end, o, outStart, outEnd, op);
            ip = (int) (positions >>> 32);
            op = (int) positions;
        }
        return ((long) ip << 32) | (op & 0xffffffffL);
    }

    /** {@link #sequence} on a direct buffer. */
    private static long directSequence(
            java.nio.ByteBuffer in, int ip, int end, byte[] o, int outStart, int outEnd, int op)
            throws IOException {
        int token = in.get(ip++) & 0xff;
        int literals = token >>> 4;
        if (literals == 15) {
            int x;
            do {
                if (ip >= end) {
                    throw new IOException("LZ4 literal length runs past the page");
                }
                x = in.get(ip++) & 0xff;
                literals += x;
            } while (x == 255 && literals > 0);
        }
        if (literals < 0 || literals > end - ip || literals > outEnd - op) {
            throw new IOException("LZ4 literals run past the page");
        }
        in.get(ip, o, op, literals);
        ip += literals;
        op += literals;
        if (ip >= end) {
            return ((long) ip << 32) | (op & 0xffffffffL); // the last sequence has no match
        }
        if (ip + 2 > end) {
            throw new IOException("LZ4 match offset runs past the page");
        }
        int offset = (in.get(ip) & 0xff) | ((in.get(ip + 1) & 0xff) << 8);
        ip += 2;
        int match = token & 15;
        if (match == 15) {
            int x;
            do {
                if (ip >= end) {
                    throw new IOException("LZ4 match length runs past the page");
                }
                x = in.get(ip++) & 0xff;
                match += x;
            } while (x == 255 && match > 0);
        }
        match += 4;
        if (match < 4) {
            throw new IOException("LZ4 match length overflows");
        }
        checkMatch(offset, op - outStart, match, outEnd - op);
        ByteCopies.match(o, op, offset, match);
        op += match;
        return ((long) ip << 32) | (op & 0xffffffffL);
    }

    private static void checkMatch(int offset, int behind, int length, int room)
            throws IOException {
        if (offset == 0 || offset > behind || length > room) {
            throw new IOException("LZ4 match outside the page (offset " + offset + ")");
        }
    }

    /**
     * Decodes the one sequence at {@code ip} with every bound checked; returns {@code (input
     * position << 32) | output position}, the input at {@code end} after a block's last sequence.
     */
    private static long sequence(
            CompressedInput in, int ip, int end, byte[] o, int outStart, int outEnd, int op)
            throws IOException {
        if (ip + 32 > in.copied) {
            in.fill(ip + 32);
        }
        int token = in.src[ip++ + in.delta] & 0xff;
        int literals = token >>> 4;
        if (literals == 15) {
            long extended = length(in, ip, literals, "literal");
            ip = (int) (extended >>> 32);
            literals = (int) extended;
        }
        if (literals > end - ip || literals > outEnd - op) {
            throw new IOException("LZ4 literals run past the page");
        }
        if (ip + literals + 8 > in.copied) {
            in.fill(ip + literals + 8);
        }
        ByteCopies.literals(in.src, ip + in.delta, in.copied + in.delta, o, op, literals);
        ip += literals;
        op += literals;
        if (ip >= end) {
            return ((long) ip << 32) | (op & 0xffffffffL); // the last sequence has no match
        }
        if (ip + 2 > end) {
            throw new IOException("LZ4 match offset runs past the page");
        }
        if (ip + 2 > in.copied) {
            in.fill(ip + 32);
        }
        int offset = (in.src[ip + in.delta] & 0xff) | ((in.src[ip + 1 + in.delta] & 0xff) << 8);
        ip += 2;
        int match = token & 15;
        if (match == 15) {
            long extended = length(in, ip, match, "match");
            ip = (int) (extended >>> 32);
            match = (int) extended;
        }
        match += 4;
        checkMatch(offset, op - outStart, match, outEnd - op);
        ByteCopies.match(o, op, offset, match);
        op += match;
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
            if (length < 0) {
                throw new IOException("LZ4 " + what + " length overflows");
            }
        } while (x == 255);
        return ((long) ip << 32) | (length & 0xffffffffL);
    }
}
