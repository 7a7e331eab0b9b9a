package dev.parquetlookup.engine;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decompresses one page payload into a caller's array only as far as asked: {@link #ensure(int)}
 * guarantees the output up to an index, resuming where the last call stopped. A point lookup needs
 * the rows up to the one it reads, so on average half a value page is never decompressed.
 *
 * <p>The block formats stop early: LZ4_RAW and SNAPPY at the sequence (element) after the wanted
 * index, Hadoop-framed LZ4 at the block after it, UNCOMPRESSED copies only the prefix. Other codecs
 * (ZSTD, GZIP, BROTLI, LZO) decompress the whole payload at the first call, through {@link
 * Decompression}. The input is a {@link ByteBuffer}, so a memory-mapped page is read in place.
 *
 * <p>Example: {@code d = start(LZ4_RAW, in, 20, 900, out, 0, 4096); d.ensure(100)} leaves at least
 * {@code out[0..100)} decompressed; {@code d.ensure(4096)} the rest. Not thread-safe: one per page
 * decode.
 *
 * <p>Public for the benchmarks' partial-decompression floor, which stops where this stops.
 */
public final class PrefixDecompressor {

    private static final io.airlift.compress.lz4.Lz4Decompressor LZ4 =
            new io.airlift.compress.lz4.Lz4Decompressor();
    private static final io.airlift.compress.snappy.SnappyDecompressor SNAPPY =
            new io.airlift.compress.snappy.SnappyDecompressor();

    /** Literal runs up to this length are copied 8 bytes at a time; longer ones in bulk. */
    private static final int SHORT = 32;

    private static final VarHandle LONG_ARRAY =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_BUFFER =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final CompressionCodecName codec;
    private final ByteBuffer in;
    private final int inStart;
    private final int inEnd;
    private final byte[] out;
    private final int outStart;
    private final int outEnd;
    private int inPos;
    private int outPos;

    /** Hadoop LZ4: uncompressed bytes left in the current block. */
    private int blockLeft;

    /**
     * The compressed bytes as an array: the heap buffer's own, or for a direct (mapped) buffer a
     * scratch array filled in chunks as the decoder reaches them, so a prefix copies only the
     * compressed bytes it decodes. Byte-array loops are about twice as fast as buffer accessors.
     * Index {@code i} of {@link #in} is {@code src[i + delta]}; {@code in[.., copied)} is in it.
     */
    private byte[] src;

    private int delta;
    private int copied;
    private boolean ownsSrc;

    /** SNAPPY: where the elements start, after the length header. */
    private int snappyStart;

    private PrefixDecompressor(
            CompressionCodecName codec,
            ByteBuffer in,
            int inOffset,
            int inLength,
            byte[] out,
            int outOffset,
            int outLength) {
        this.codec = codec;
        this.in = in;
        this.inStart = inOffset;
        this.inEnd = inOffset + inLength;
        this.out = out;
        this.outStart = outOffset;
        this.outEnd = outOffset + outLength;
        this.inPos = inOffset;
        this.outPos = outOffset;
        if (in.hasArray()) {
            this.src = in.array();
            this.delta = in.arrayOffset();
            this.copied = inEnd;
        } else {
            this.delta = -inOffset;
            this.copied = inOffset;
        }
    }

    /** Gives a scratch input array back to the thread's pool; the decompressor is done. */
    public void release() {
        if (ownsSrc) {
            ownsSrc = false;
            ScratchBuffers.give(src);
            src = null;
        }
    }

    /** Makes {@code in[.., index)} (clamped to the payload's end) readable in {@link #src}. */
    private void fill(int index) {
        if (index <= copied || copied >= inEnd) {
            return;
        }
        if (src == null) {
            src = ScratchBuffers.take(inEnd - inStart + 16);
            ownsSrc = true;
        }
        int to = Math.min(inEnd, Math.max(index, copied + 8192));
        in.get(copied, src, copied + delta, to - copied);
        copied = to;
    }

    /**
     * Prepares the decompression of {@code in[inOffset, inOffset + inLength)} (absolute indexes)
     * into {@code out[outOffset, outOffset + outLength)}; nothing is decompressed yet.
     */
    public static PrefixDecompressor start(
            CompressionCodecName codec,
            ByteBuffer in,
            int inOffset,
            int inLength,
            byte[] out,
            int outOffset,
            int outLength)
            throws IOException {
        if (inOffset < 0 || inLength < 0 || inOffset + inLength > in.limit()) {
            throw new IOException(
                    "page payload of "
                            + inLength
                            + " bytes at "
                            + inOffset
                            + " is outside the "
                            + in.limit()
                            + " bytes read");
        }
        if (outLength < 0 || outOffset + outLength > out.length) {
            throw new IOException("page of " + outLength + " bytes does not fit its buffer");
        }
        PrefixDecompressor d =
                new PrefixDecompressor(codec, in, inOffset, inLength, out, outOffset, outLength);
        if (codec == CompressionCodecName.SNAPPY) {
            d.snappyHeader();
            d.snappyStart = d.inPos;
        }
        return d;
    }

    /** The end (exclusive, absolute) of the output decompressed so far. */
    public int available() {
        return outPos;
    }

    /** Whether the whole payload is decompressed. */
    public boolean complete() {
        return outPos == outEnd;
    }

    /**
     * Decompresses at least up to {@code index} (absolute, exclusive; clamped to the output's end)
     * and returns {@link #available()}.
     */
    public int ensure(int index) throws IOException {
        int target = Math.min(index, outEnd);
        if (outPos >= target) {
            return outPos;
        }
        try {
            switch (codec) {
                case UNCOMPRESSED -> copy(target);
                case LZ4_RAW -> {
                    if (outPos == outStart && target == outEnd) {
                        whole(); // asked for everything: the library's decoder is faster
                        return outPos;
                    }
                    inPos = lz4(inPos, inEnd, target);
                    if (inPos == inEnd) {
                        finish();
                    }
                }
                case SNAPPY -> {
                    if (inPos == snappyStart && target == outEnd) {
                        whole();
                        return outPos;
                    }
                    snappy(target);
                }
                case LZ4 -> hadoopLz4(target);
                default -> whole();
            }
        } catch (IndexOutOfBoundsException e) {
            throw new IOException(codec + " data is damaged (runs past its page)", e);
        }
        return outPos;
    }

    private void finish() throws IOException {
        if (outPos != outEnd) {
            throw new IOException(
                    codec
                            + " page decompressed to "
                            + (outPos - outStart)
                            + " bytes, the header says "
                            + (outEnd - outStart));
        }
    }

    /** UNCOMPRESSED: copy in chunks of at least 4 KiB, so a walk does not copy byte by byte. */
    private void copy(int target) throws IOException {
        int end = Math.min(outEnd, Math.max(target, outPos + 4096));
        int n = end - outPos;
        if (inPos + n > inEnd) {
            throw new IOException(
                    "uncompressed page has "
                            + (inEnd - inStart)
                            + " bytes, the header says "
                            + (outEnd - outStart));
        }
        in.get(inPos, out, outPos, n);
        inPos += n;
        outPos += n;
    }

    /** Codecs without an early stop: everything at once. */
    private void whole() throws IOException {
        int length = inEnd - inStart;
        if (in.isDirect()
                && (codec == CompressionCodecName.LZ4_RAW
                        || codec == CompressionCodecName.SNAPPY)) {
            // In place from the mapping (aircompressor reads direct buffers by address).
            ByteBuffer input = in.slice(inStart, length);
            ByteBuffer output = ByteBuffer.wrap(out, outStart, outEnd - outStart);
            try {
                (codec == CompressionCodecName.LZ4_RAW ? LZ4 : SNAPPY).decompress(input, output);
            } catch (io.airlift.compress.MalformedInputException e) {
                throw new IOException(codec + " data cannot be decompressed: " + e.getMessage(), e);
            }
            if (output.position() != outEnd) {
                throw new IOException(
                        codec
                                + " page decompressed to "
                                + (output.position() - outStart)
                                + " bytes, the header says "
                                + (outEnd - outStart));
            }
            inPos = inEnd;
            outPos = outEnd;
            return;
        }
        byte[] input;
        int offset;
        if (in.hasArray()) {
            input = in.array();
            offset = in.arrayOffset() + inStart;
        } else {
            input = new byte[length];
            in.get(inStart, input, 0, length);
            offset = 0;
        }
        Decompression.decompressInto(
                codec, input, offset, length, out, outStart, outEnd - outStart);
        inPos = inEnd;
        outPos = outEnd;
    }

    // ------------------------------------------------------------------ LZ4 block format

    /**
     * Decodes LZ4 sequences of {@code in[from, end)} until the output reaches {@code target} or the
     * block ends; returns the input position after the last sequence decoded. A block ends with a
     * sequence of literals only.
     */
    private int lz4(int from, int end, int target) throws IOException {
        int ip = from;
        int op = outPos;
        byte[] o = out;
        while (op < target && ip < end) {
            if (ip + 32 > copied) {
                fill(ip + 32);
            }
            byte[] b = src;
            int d = delta;
            int token = b[ip++ + d] & 0xff;
            int literals = token >>> 4;
            if (literals == 15) {
                int x;
                do {
                    if (ip >= copied) {
                        fill(ip + 32);
                        if (ip >= copied) {
                            throw new IOException("LZ4 literal length runs past the page");
                        }
                    }
                    x = b[ip++ + d] & 0xff;
                    literals += x;
                } while (x == 255);
            }
            if (literals > end - ip || literals > outEnd - op) {
                throw new IOException("LZ4 literals run past the page");
            }
            if (ip + literals + 8 > copied) {
                fill(ip + literals + 8);
                b = src;
            }
            if (literals <= SHORT && ip + literals + 8 <= copied && op + literals + 8 <= o.length) {
                // Short runs: 8-byte copies (may write up to 7 bytes past the run, inside `out`
                // and beyond what is decoded; they are overwritten or never read).
                int n = 0;
                do {
                    LONG_ARRAY.set(o, op + n, (long) LONG_ARRAY.get(b, ip + d + n));
                    n += 8;
                } while (n < literals);
            } else {
                System.arraycopy(b, ip + d, o, op, literals);
            }
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
                int x;
                do {
                    if (ip >= copied) {
                        fill(ip + 32);
                        if (ip >= copied) {
                            throw new IOException("LZ4 match length runs past the page");
                        }
                    }
                    x = b[ip++ + d] & 0xff;
                    match += x;
                } while (x == 255);
            }
            match += 4;
            if (offset == 0 || offset > op - outStart || match > outEnd - op) {
                throw new IOException("LZ4 match outside the page (offset " + offset + ")");
            }
            copyMatch(o, op, offset, match);
            op += match;
        }
        outPos = op;
        return ip;
    }

    private static void copyMatch(byte[] o, int op, int offset, int length) {
        int src = op - offset;
        if (offset >= 8 && op + length + 8 <= o.length) {
            // 8 bytes at a time; with offset >= 8 every chunk reads bytes already written.
            int n = 0;
            do {
                LONG_ARRAY.set(o, op + n, (long) LONG_ARRAY.get(o, src + n));
                n += 8;
            } while (n < length);
        } else if (offset >= length) {
            System.arraycopy(o, src, o, op, length);
        } else {
            for (int i = 0; i < length; i++) {
                o[op + i] = o[src + i];
            }
        }
    }

    /** Hadoop framing: {@code [uncompressed length][compressed length][block]...}, big-endian. */
    private void hadoopLz4(int target) throws IOException {
        while (outPos < target) {
            if (blockLeft == 0) {
                if (inPos + 8 > inEnd) {
                    finish();
                    return;
                }
                blockLeft = bigEndianInt(inPos);
                inPos += 4;
                if (blockLeft < 0 || blockLeft > outEnd - outPos) {
                    throw new IOException("LZ4 block of " + blockLeft + " bytes past the page");
                }
            }
            if (blockLeft == 0) {
                continue;
            }
            int compressed = bigEndianInt(inPos);
            inPos += 4;
            if (compressed < 0 || compressed > inEnd - inPos) {
                throw new IOException("LZ4 block of " + compressed + " bytes past the page");
            }
            int before = outPos;
            int end = inPos + compressed;
            if (lz4(inPos, end, outEnd) != end) {
                throw new IOException("LZ4 block did not end where its length says");
            }
            inPos = end;
            blockLeft -= outPos - before;
            if (blockLeft < 0) {
                throw new IOException("LZ4 block longer than its header says");
            }
        }
        if (outPos == outEnd && blockLeft != 0) {
            throw new IOException("LZ4 page ends inside a block");
        }
    }

    private int bigEndianInt(int i) {
        return ((in.get(i) & 0xff) << 24)
                | ((in.get(i + 1) & 0xff) << 16)
                | ((in.get(i + 2) & 0xff) << 8)
                | (in.get(i + 3) & 0xff);
    }

    // ------------------------------------------------------------------ Snappy

    private void snappyHeader() throws IOException {
        int length = 0;
        int shift = 0;
        int b;
        do {
            if (inPos >= inEnd || shift > 28) {
                throw new IOException("SNAPPY length header is damaged");
            }
            b = in.get(inPos++) & 0xff;
            length |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        if (length != outEnd - outStart) {
            throw new IOException(
                    "SNAPPY page holds "
                            + length
                            + " bytes, the header says "
                            + (outEnd - outStart));
        }
    }

    private void snappy(int target) throws IOException {
        int ip = inPos;
        int op = outPos;
        byte[] o = out;
        while (op < target && ip < inEnd) {
            int tag = in.get(ip++) & 0xff;
            int length;
            int offset;
            switch (tag & 3) {
                case 0 -> {
                    length = tag >>> 2;
                    if (length >= 60) {
                        int bytes = length - 59;
                        length = 0;
                        for (int i = 0; i < bytes; i++) {
                            length |= (in.get(ip++) & 0xff) << (8 * i);
                        }
                    }
                    length += 1;
                    if (length <= 0 || length > inEnd - ip || length > outEnd - op) {
                        throw new IOException("SNAPPY literal runs past the page");
                    }
                    in.get(ip, o, op, length);
                    ip += length;
                    op += length;
                    continue;
                }
                case 1 -> {
                    length = ((tag >>> 2) & 7) + 4;
                    offset = ((tag >>> 5) << 8) | (in.get(ip++) & 0xff);
                }
                case 2 -> {
                    length = (tag >>> 2) + 1;
                    offset = (in.get(ip) & 0xff) | ((in.get(ip + 1) & 0xff) << 8);
                    ip += 2;
                }
                default -> {
                    length = (tag >>> 2) + 1;
                    offset =
                            (in.get(ip) & 0xff)
                                    | ((in.get(ip + 1) & 0xff) << 8)
                                    | ((in.get(ip + 2) & 0xff) << 16)
                                    | ((in.get(ip + 3) & 0xff) << 24);
                    ip += 4;
                }
            }
            if (offset <= 0 || offset > op - outStart || length > outEnd - op) {
                throw new IOException("SNAPPY copy outside the page (offset " + offset + ")");
            }
            copyMatch(o, op, offset, length);
            op += length;
        }
        inPos = ip;
        outPos = op;
        if (ip >= inEnd) {
            finish();
        }
    }
}
