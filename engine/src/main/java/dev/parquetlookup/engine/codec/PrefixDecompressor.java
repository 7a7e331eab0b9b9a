package dev.parquetlookup.engine.codec;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.nio.ByteBuffer;

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

    /** The compressed bytes as an array (copied in chunks from a direct buffer). */
    private final CompressedInput input;

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
        this.input = new CompressedInput(in, inStart, inEnd);
    }

    /** Gives a scratch input array back to the thread's pool; the decompressor is done. */
    public void release() {
        input.release();
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

    /** The codec the payload is read with (UNCOMPRESSED for a v2 page stored uncompressed). */
    public CompressionCodecName codec() {
        return codec;
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
                    blocks(inEnd, target, false);
                    if (inPos == inEnd) {
                        finish();
                    }
                }
                case SNAPPY -> {
                    if (inPos == snappyStart && target == outEnd) {
                        whole();
                        return outPos;
                    }
                    blocks(inEnd, target, true);
                    if (inPos >= inEnd) {
                        finish();
                    }
                }
                case LZ4 -> hadoopLz4(target);
                default -> whole();
            }
        } catch (IndexOutOfBoundsException e) {
            throw new IOException(codec + " data is damaged (runs past its page)", e);
        }
        return outPos;
    }

    /** Decodes LZ4 sequences or Snappy elements of {@code [inPos, end)} up to {@code target}. */
    private void blocks(int end, int target, boolean snappy) throws IOException {
        long positions =
                snappy
                        ? SnappyElements.decode(
                                input, inPos, end, out, outStart, outEnd, outPos, target)
                        : in.isDirect()
                                ? Lz4Sequences.decodeDirect(
                                        in, inPos, end, out, outStart, outEnd, outPos, target)
                                : Lz4Sequences.decode(
                                        input, inPos, end, out, outStart, outEnd, outPos, target);
        inPos = (int) (positions >>> 32);
        outPos = (int) positions;
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
            blocks(end, outEnd, false);
            if (inPos != end) {
                throw new IOException("LZ4 block did not end where its length says");
            }
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

    /**
     * Owns the compressed bytes of one page payload as a byte array for the block decoders ({@link
     * Lz4Sequences}, {@link SnappyElements}): a heap buffer's own array, or for a direct (mapped)
     * buffer a scratch array filled in chunks as the decoder reaches them, so a prefix copies only
     * the compressed bytes it decodes. Byte-array loops are about twice as fast as buffer
     * accessors.
     *
     * <p>Index {@code i} of the buffer is {@code src[i + delta]}; {@code [.., copied)} is readable.
     * Example: a mapped page at buffer index 500 of 900 bytes starts with {@code copied = 500} and
     * {@code delta = -500}; {@code fill(532)} copies at least 8 KiB (or to the end) from there.
     */
    static final class CompressedInput {

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
}
