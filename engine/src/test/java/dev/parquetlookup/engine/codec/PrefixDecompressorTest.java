package dev.parquetlookup.engine.codec;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.airlift.compress.Compressor;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.snappy.SnappyCompressor;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link PrefixDecompressor} against the whole-page decompression ({@link Decompression}, the
 * libraries' decoders): random payloads (text-like, repetitive, incompressible), random sequences
 * of {@code ensure} calls, heap and direct (mapped-like) input, garbage in the output beyond the
 * prefix. The prefix must always equal the start of the whole page.
 */
class PrefixDecompressorTest {

    private static final long SEED = 1717L;

    @Test
    void prefixesEqualTheWholePage() throws IOException {
        Random r = new Random(SEED);
        CompressionCodecName[] codecs = {
            CompressionCodecName.UNCOMPRESSED,
            CompressionCodecName.LZ4_RAW,
            CompressionCodecName.SNAPPY,
            CompressionCodecName.LZ4,
            CompressionCodecName.ZSTD,
            CompressionCodecName.GZIP
        };
        for (int round = 0; round < 400; round++) {
            byte[] plain = payload(r, r.nextInt(4) == 0 ? r.nextInt(40) : r.nextInt(70_000));
            for (CompressionCodecName codec : codecs) {
                String context = "round " + round + " " + codec + " seed " + SEED;
                byte[] compressed = compress(codec, plain, r);
                int pad = r.nextInt(20);
                byte[] framed = new byte[pad + compressed.length + r.nextInt(20)];
                r.nextBytes(framed);
                System.arraycopy(compressed, 0, framed, pad, compressed.length);
                assertThat(
                                Decompression.decompress(
                                        codec, framed, pad, compressed.length, plain.length))
                        .as(context)
                        .isEqualTo(plain);
                ByteBuffer in = ByteBuffer.wrap(framed);
                if (r.nextBoolean()) {
                    in = ByteBuffer.allocateDirect(framed.length).put(framed).flip();
                }
                int outOffset = r.nextInt(8);
                byte[] out = new byte[outOffset + plain.length + r.nextInt(100)];
                r.nextBytes(out);
                PrefixDecompressor d =
                        PrefixDecompressor.start(
                                codec, in, pad, compressed.length, out, outOffset, plain.length);
                int asked = outOffset;
                while (asked < outOffset + plain.length) {
                    asked = Math.min(outOffset + plain.length, asked + 1 + r.nextInt(9_000));
                    int available = d.ensure(asked);
                    assertThat(available).as(context).isGreaterThanOrEqualTo(asked);
                    assertThat(Arrays.copyOfRange(out, outOffset, available))
                            .as(context + " prefix to " + asked)
                            .isEqualTo(Arrays.copyOfRange(plain, 0, available - outOffset));
                }
                assertThat(d.complete()).as(context).isTrue();
            }
        }
    }

    @Test
    void damagedInputFailsAndNeverRunsPastTheOutput() {
        Random r = new Random(SEED);
        int failures = 0;
        for (int round = 0; round < 300; round++) {
            byte[] plain = payload(r, 1 + r.nextInt(5_000));
            for (CompressionCodecName codec :
                    new CompressionCodecName[] {
                        CompressionCodecName.LZ4_RAW, CompressionCodecName.SNAPPY
                    }) {
                byte[] compressed = compress(codec, plain, r);
                byte[] damaged = compressed.clone();
                for (int i = 0; i < 3; i++) {
                    damaged[r.nextInt(damaged.length)] = (byte) r.nextInt();
                }
                byte[] out = new byte[plain.length];
                try {
                    PrefixDecompressor d =
                            PrefixDecompressor.start(
                                    codec,
                                    ByteBuffer.wrap(damaged),
                                    0,
                                    damaged.length,
                                    out,
                                    0,
                                    plain.length);
                    d.ensure(plain.length);
                } catch (IOException e) {
                    failures++;
                }
            }
        }
        // Most damage is detected; none escapes as anything but an IOException.
        assertThat(failures).isPositive();
    }

    @Test
    void aTruncatedPageIsAnError() throws IOException {
        byte[] plain = payload(new Random(SEED), 10_000);
        byte[] compressed = compress(CompressionCodecName.LZ4_RAW, plain, new Random(SEED));
        byte[] out = new byte[plain.length];
        PrefixDecompressor d =
                PrefixDecompressor.start(
                        CompressionCodecName.LZ4_RAW,
                        ByteBuffer.wrap(compressed),
                        0,
                        compressed.length / 2,
                        out,
                        0,
                        plain.length);
        assertThatThrownBy(() -> d.ensure(plain.length)).isInstanceOf(IOException.class);
    }

    /** Text-like (hex), repetitive or random bytes, or a mix. */
    private static byte[] payload(Random r, int length) {
        byte[] b = new byte[length];
        int kind = r.nextInt(4);
        for (int i = 0; i < length; i++) {
            b[i] =
                    switch (kind) {
                        case 0 -> (byte) "0123456789abcdef".charAt(r.nextInt(16));
                        case 1 -> (byte) (i % (1 + r.nextInt(3)) == 0 ? 7 : i / 100);
                        case 2 -> (byte) r.nextInt();
                        default -> i > 0 && r.nextInt(3) > 0 ? b[i - 1 - r.nextInt(i)] : 0;
                    };
        }
        return b;
    }

    private static byte[] compress(CompressionCodecName codec, byte[] plain, Random r) {
        try {
            return switch (codec) {
                case UNCOMPRESSED -> plain.clone();
                case LZ4_RAW -> block(new Lz4Compressor(), plain, 0, plain.length);
                case SNAPPY -> block(new SnappyCompressor(), plain, 0, plain.length);
                case LZ4 -> hadoopLz4(plain, r);
                case ZSTD -> com.github.luben.zstd.Zstd.compress(plain);
                case GZIP -> {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    try (java.util.zip.GZIPOutputStream gz =
                            new java.util.zip.GZIPOutputStream(bytes)) {
                        gz.write(plain);
                    }
                    yield bytes.toByteArray();
                }
                default -> throw new IllegalArgumentException(codec.name());
            };
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] block(Compressor compressor, byte[] plain, int offset, int length) {
        byte[] out = new byte[compressor.maxCompressedLength(length)];
        int n = compressor.compress(plain, offset, length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    /** Hadoop's framing: blocks of [uncompressed][compressed chunk length][chunk]... */
    private static byte[] hadoopLz4(byte[] plain, Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        do {
            int block = Math.min(plain.length - at, 1 + r.nextInt(30_000));
            writeInt(out, block);
            int done = 0;
            while (done < block) {
                int chunk = Math.min(block - done, 1 + r.nextInt(12_000));
                byte[] c = block(new Lz4Compressor(), plain, at + done, chunk);
                writeInt(out, c.length);
                out.write(c, 0, c.length);
                done += chunk;
            }
            at += block;
        } while (at < plain.length);
        return out.toByteArray();
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }
}
