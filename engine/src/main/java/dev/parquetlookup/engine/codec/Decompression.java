package dev.parquetlookup.engine.codec;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import com.github.luben.zstd.Zstd;
import io.airlift.compress.Decompressor;
import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.lzo.LzoDecompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import org.brotli.dec.BrotliInputStream;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/**
 * Block decompression of page bytes, straight from array to array: no Hadoop codec streams, no
 * pooled state, safe from any thread.
 *
 * <p>Every codec of the Parquet format: LZ4_RAW and SNAPPY use aircompressor's pure-Java block
 * decompressors (stateless), ZSTD uses zstd-jni's one-shot call, GZIP the JDK's inflater, BROTLI
 * the pure-Java {@code org.brotli:dec} decoder. The Hadoop-framed LZ4 and LZO codecs (LZO as
 * hadoop-lzo's {@code LzoCodec} writes it) are read by walking their blocks ({@code [uncompressed
 * length][compressed length][block]...}, big-endian) with aircompressor's LZ4 and LZO block
 * decompressors.
 *
 * <p>Public for the command line: {@code prepare} reads pages through the same code, so it reads
 * every file the engine reads.
 */
public final class Decompression {

    private static final Lz4Decompressor LZ4 = new Lz4Decompressor();
    private static final LzoDecompressor LZO = new LzoDecompressor();
    private static final SnappyDecompressor SNAPPY = new SnappyDecompressor();

    private Decompression() {}

    /** Whether pages of this codec can be read. */
    public static boolean supports(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, LZ4, LZO, BROTLI -> true;
            default -> false;
        };
    }

    /**
     * Decompresses {@code length} bytes at {@code offset} of {@code input} into a new array of
     * exactly {@code uncompressedSize} bytes.
     */
    public static byte[] decompress(
            CompressionCodecName codec, byte[] input, int offset, int length, int uncompressedSize)
            throws IOException {
        byte[] out = new byte[uncompressedSize];
        decompressInto(codec, input, offset, length, out, 0, uncompressedSize);
        return out;
    }

    /**
     * Decompresses {@code length} bytes at {@code offset} of {@code input} into {@code
     * out[outOffset, outOffset + uncompressedSize)}, which must be exactly filled.
     */
    public static void decompressInto(
            CompressionCodecName codec,
            byte[] input,
            int offset,
            int length,
            byte[] out,
            int outOffset,
            int uncompressedSize)
            throws IOException {
        int written;
        try {
            written = decode(codec, input, offset, length, out, outOffset, uncompressedSize);
        } catch (MalformedInputException | com.github.luben.zstd.ZstdException e) {
            throw new IOException(codec + " data cannot be decompressed: " + e.getMessage(), e);
        }
        if (written != uncompressedSize) {
            throw new IOException(
                    codec
                            + " page decompressed to "
                            + written
                            + " bytes, the header says "
                            + uncompressedSize);
        }
    }

    /** Decompresses with {@code codec}'s decoder and returns the bytes written. */
    private static int decode(
            CompressionCodecName codec,
            byte[] in,
            int offset,
            int length,
            byte[] out,
            int outOffset,
            int size)
            throws IOException {
        return switch (codec) {
            case UNCOMPRESSED -> {
                System.arraycopy(in, offset, out, outOffset, Math.min(length, size));
                yield length;
            }
            case LZ4_RAW -> LZ4.decompress(in, offset, length, out, outOffset, size);
            case SNAPPY -> SNAPPY.decompress(in, offset, length, out, outOffset, size);
            case ZSTD -> (int) Zstd.decompressByteArray(out, outOffset, size, in, offset, length);
            case GZIP -> readFully(gzip(in, offset, length), out, outOffset, size);
            case BROTLI -> readFully(brotli(in, offset, length), out, outOffset, size);
            case LZ4 -> hadoopBlocks(LZ4, in, offset, length, out, outOffset, size);
            case LZO -> hadoopBlocks(LZO, in, offset, length, out, outOffset, size);
            default ->
                    throw new IOException(
                            "codec "
                                    + codec
                                    + " is not supported: rewrite the file with another writer's"
                                    + " 'prepare' step (LZ4_RAW, ZSTD, SNAPPY, GZIP or"
                                    + " UNCOMPRESSED; plain Parquet files only: never rewrite a"
                                    + " Delta or Iceberg table's data files)");
        };
    }

    private static InputStream gzip(byte[] in, int offset, int length) throws IOException {
        return new GZIPInputStream(new ByteArrayInputStream(in, offset, length), 8192);
    }

    private static InputStream brotli(byte[] in, int offset, int length) throws IOException {
        return new BrotliInputStream(new ByteArrayInputStream(in, offset, length));
    }

    private static int readFully(InputStream stream, byte[] out, int outOffset, int size)
            throws IOException {
        try (InputStream in = stream) {
            int total = 0;
            while (total < size) {
                int n = in.read(out, outOffset + total, size - total);
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        }
    }

    /** Hadoop's block framing, as its BlockCompressorStream writes it (LZ4, hadoop-lzo's LZO). */
    private static int hadoopBlocks(
            Decompressor blocks,
            byte[] input,
            int offset,
            int length,
            byte[] out,
            int outOffset,
            int size) {
        int in = offset;
        int end = offset + length;
        int written = 0;
        while (in + 8 <= end && written < size) {
            int blockUncompressed = readIntBigEndian(input, in);
            in += 4;
            int blockEnd = written + blockUncompressed;
            while (written < blockEnd && in + 4 <= end) {
                int compressed = readIntBigEndian(input, in);
                in += 4;
                written +=
                        blocks.decompress(
                                input, in, compressed, out, outOffset + written, size - written);
                in += compressed;
            }
        }
        return written;
    }

    private static int readIntBigEndian(byte[] b, int i) {
        return ((b[i] & 0xff) << 24)
                | ((b[i + 1] & 0xff) << 16)
                | ((b[i + 2] & 0xff) << 8)
                | (b[i + 3] & 0xff);
    }
}
