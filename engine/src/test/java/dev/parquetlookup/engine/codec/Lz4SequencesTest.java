package dev.parquetlookup.engine.codec;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.airlift.compress.lz4.Lz4Compressor;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Lz4Sequences} through {@link PrefixDecompressor}'s early-stopping path (the first call
 * stops short of the end, so the library's whole-page decoder is never used), on heap and direct
 * input: pages shaped like the seed layout's (sequential INT64 keys, PLAIN md5-hex strings) and
 * random ones with every sequence shape (overlapping matches at offsets 1-7, literal and match
 * lengths with 0, 1 and several extension bytes, sequences at both ends of the word-copy margins),
 * hand-built blocks, truncated and damaged input.
 */
class Lz4SequencesTest {

    private static final long SEED = 4242L;

    @Test
    void seedLikePagesDecodeAsTheLibraryEncodedThem() throws Exception {
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (int page = 0; page < 20; page++) {
            ByteBuffer keys = ByteBuffer.allocate(1024 * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            ByteArrayOutputStream values = new ByteArrayOutputStream();
            for (long k = page * 1024L + 1; k <= (page + 1) * 1024L; k++) {
                keys.putLong(k);
                byte[] hex = hex(md5.digest(Long.toString(k).getBytes(StandardCharsets.UTF_8)));
                values.write(new byte[] {(byte) hex.length, 0, 0, 0});
                values.write(hex);
            }
            for (byte[] plain : new byte[][] {keys.array(), values.toByteArray()}) {
                checkEveryWay(plain, compress(plain), "seed-like page " + page);
            }
        }
    }

    @Test
    void randomPagesOfEveryShapeDecode() throws IOException {
        Random r = new Random(SEED);
        for (int round = 0; round < 300; round++) {
            byte[] plain = shaped(r, r.nextInt(5) == 0 ? r.nextInt(64) : r.nextInt(40_000));
            checkEveryWay(plain, compress(plain), "round " + round + " seed " + SEED);
        }
    }

    @Test
    void handBuiltOverlappingMatchesAndLongLengths() throws IOException {
        Random r = new Random(SEED);
        for (int round = 0; round < 300; round++) {
            Block block = new Block();
            int sequences = 1 + r.nextInt(40);
            for (int i = 0; i < sequences; i++) {
                int literals =
                        switch (r.nextInt(6)) {
                            case 0 -> 0;
                            case 1 -> 15 + r.nextInt(3);
                            case 2 -> 269 + r.nextInt(3);
                            case 3 -> 270 + 255 + r.nextInt(600);
                            default -> r.nextInt(32);
                        };
                int match =
                        switch (r.nextInt(5)) {
                            case 0 -> 4 + r.nextInt(15);
                            case 1 -> 18 + r.nextInt(3);
                            case 2 -> 19 + 255 + r.nextInt(600);
                            default -> 4 + r.nextInt(40);
                        };
                int behind = block.plain.size() + literals;
                if (behind == 0) {
                    literals = 1;
                    behind = 1;
                }
                int offset = r.nextBoolean() ? 1 + r.nextInt(Math.min(8, behind)) : 0;
                if (offset == 0) {
                    offset = 1 + r.nextInt(Math.min(65_535, behind));
                }
                block.sequence(random(r, literals), offset, match);
            }
            block.last(random(r, r.nextInt(40)));
            checkEveryWay(block.plain.toByteArray(), block.bytes.toByteArray(), "hand " + round);
        }
    }

    @Test
    void badMatchesAndTruncationAreErrors() throws IOException {
        // Offset 0; offset before the start; a match past the declared size.
        Block zero = new Block().sequence("abcdefgh".getBytes(StandardCharsets.UTF_8), 0, 4);
        zero.last(new byte[0]);
        assertFails(zero.bytes.toByteArray(), 12, "offset 0");
        Block before = new Block().sequence("abcdefgh".getBytes(StandardCharsets.UTF_8), 9, 4);
        before.last(new byte[0]);
        assertFails(before.bytes.toByteArray(), 12, "offset 9");
        Block past = new Block().sequence("abcdefgh".getBytes(StandardCharsets.UTF_8), 8, 40);
        past.last(new byte[0]);
        assertFails(past.bytes.toByteArray(), 20, "match beyond the page");
        // Truncated anywhere: an error, never a short page passed as whole.
        Random r = new Random(SEED);
        byte[] plain = shaped(r, 20_000);
        byte[] compressed = compress(plain);
        for (int cut = 0; cut < compressed.length; cut += 1 + r.nextInt(97)) {
            assertFails(Arrays.copyOf(compressed, cut), plain.length, "cut at " + cut);
        }
    }

    @Test
    void damagedInputIsAnIOExceptionAndNeverWritesBeforeTheOutput() {
        Random r = new Random(SEED);
        int failures = 0;
        for (int round = 0; round < 600; round++) {
            byte[] plain = shaped(r, 1 + r.nextInt(8_000));
            byte[] damaged = compress(plain);
            for (int i = 0; i < 1 + r.nextInt(4); i++) {
                damaged[r.nextInt(damaged.length)] = (byte) r.nextInt();
            }
            for (boolean direct : new boolean[] {false, true}) {
                byte[] out = new byte[8 + plain.length + r.nextInt(3) * 40];
                Arrays.fill(out, 0, 8, (byte) 0x5a);
                try {
                    PrefixDecompressor d =
                            PrefixDecompressor.start(
                                    CompressionCodecName.LZ4_RAW,
                                    input(damaged, direct),
                                    0,
                                    damaged.length,
                                    out,
                                    8,
                                    plain.length);
                    d.ensure(8 + plain.length - 1);
                    d.ensure(8 + plain.length);
                } catch (IOException e) {
                    failures++;
                }
                for (int i = 0; i < 8; i++) {
                    assertThat(out[i]).as("round " + round + " byte " + i).isEqualTo((byte) 0x5a);
                }
            }
        }
        assertThat(failures).isPositive();
    }

    private static void assertFails(byte[] block, int size, String context) {
        for (boolean direct : new boolean[] {false, true}) {
            assertThatThrownBy(
                            () -> {
                                byte[] out = new byte[size + 64];
                                PrefixDecompressor d =
                                        PrefixDecompressor.start(
                                                CompressionCodecName.LZ4_RAW,
                                                input(block, direct),
                                                0,
                                                block.length,
                                                out,
                                                0,
                                                size);
                                d.ensure(Math.max(0, size - 1));
                                d.ensure(size);
                            })
                    .as(context + (direct ? " direct" : " heap"))
                    .isInstanceOf(IOException.class);
        }
    }

    /**
     * Decodes {@code compressed} heap and direct, into exact and padded arrays, at an output
     * offset, whole through the loop and in random prefix steps; every prefix equals {@code plain}.
     */
    private static void checkEveryWay(byte[] plain, byte[] compressed, String context)
            throws IOException {
        Random r = new Random(SEED ^ plain.length ^ compressed.length);
        for (int variant = 0; variant < 4; variant++) {
            boolean direct = (variant & 1) != 0;
            int pad = variant >= 2 ? 1 + r.nextInt(30) : 0;
            int outOffset = variant >= 2 ? r.nextInt(9) : 0;
            byte[] out = new byte[outOffset + plain.length + (variant >= 2 ? 16 : 0)];
            r.nextBytes(out);
            byte[] framed = new byte[pad + compressed.length + pad];
            r.nextBytes(framed);
            System.arraycopy(compressed, 0, framed, pad, compressed.length);
            PrefixDecompressor d =
                    PrefixDecompressor.start(
                            CompressionCodecName.LZ4_RAW,
                            input(framed, direct),
                            pad,
                            compressed.length,
                            out,
                            outOffset,
                            plain.length);
            int end = outOffset + plain.length;
            int asked = outOffset;
            while (asked < end) {
                int step = variant == 0 ? Math.max(1, plain.length - 1) : 1 + r.nextInt(3_000);
                // The first call stops short of the end: the loop, not the library, decodes
                // (hand-built blocks need not keep the format's end-of-block margins, which the
                // library enforces and the loop does not need).
                asked =
                        Math.min(
                                asked == outOffset && plain.length > 1 ? end - 1 : end,
                                asked + step);
                int available = d.ensure(asked);
                assertThat(available).as(context).isGreaterThanOrEqualTo(asked);
                assertThat(Arrays.copyOfRange(out, outOffset, available))
                        .as(context + " variant " + variant + " to " + asked)
                        .isEqualTo(Arrays.copyOfRange(plain, 0, available - outOffset));
            }
            assertThat(d.complete()).as(context).isTrue();
            d.release();
        }
    }

    private static ByteBuffer input(byte[] bytes, boolean direct) {
        if (!direct) {
            return ByteBuffer.wrap(bytes);
        }
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    private static byte[] compress(byte[] plain) {
        Lz4Compressor c = new Lz4Compressor();
        byte[] out = new byte[c.maxCompressedLength(plain.length)];
        int n = c.compress(plain, 0, plain.length, out, 0, out.length);
        return Arrays.copyOf(out, n);
    }

    /** Text-like, repetitive with short periods, zeros, random and md5-hex stretches. */
    private static byte[] shaped(Random r, int length) {
        byte[] b = new byte[length];
        int i = 0;
        while (i < length) {
            int n = Math.min(length - i, 1 + r.nextInt(r.nextBoolean() ? 40 : 2_000));
            switch (r.nextInt(5)) {
                case 0 -> {
                    int period = 1 + r.nextInt(9);
                    for (int j = 0; j < n; j++) {
                        b[i + j] = (byte) ('a' + (j % period));
                    }
                }
                case 1 -> {} // zeros
                case 2 -> {
                    byte[] x = random(r, n);
                    System.arraycopy(x, 0, b, i, n);
                }
                case 3 -> {
                    for (int j = 0; j < n; j++) {
                        b[i + j] = (byte) "0123456789abcdef".charAt(r.nextInt(16));
                    }
                }
                default -> {
                    for (int j = 0; j < n; j++) {
                        b[i + j] = (byte) (" the quick brown fox ".charAt(r.nextInt(21)));
                    }
                }
            }
            i += n;
        }
        return b;
    }

    private static byte[] random(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static byte[] hex(byte[] digest) {
        byte[] out = new byte[digest.length * 2];
        for (int i = 0; i < digest.length; i++) {
            out[2 * i] = (byte) "0123456789abcdef".charAt((digest[i] >> 4) & 15);
            out[2 * i + 1] = (byte) "0123456789abcdef".charAt(digest[i] & 15);
        }
        return out;
    }

    /** An LZ4 block built sequence by sequence, with the bytes it decodes to. */
    private static final class Block {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final ByteArrayOutputStream plain = new ByteArrayOutputStream();

        Block sequence(byte[] literals, int offset, int match) {
            int l = literals.length;
            int m = match - 4;
            bytes.write((Math.min(l, 15) << 4) | Math.min(m, 15));
            extension(l);
            bytes.write(literals, 0, l);
            plain.write(literals, 0, l);
            bytes.write(offset & 0xff);
            bytes.write(offset >>> 8);
            extension(m);
            byte[] p = plain.toByteArray();
            if (offset > 0 && offset <= p.length) {
                // Overlapping when offset < match: each byte reads the output as it grows.
                byte[] grown = Arrays.copyOf(p, p.length + match);
                for (int i = 0; i < match; i++) {
                    grown[p.length + i] = grown[p.length - offset + i];
                }
                plain.write(grown, p.length, match);
            }
            return this;
        }

        void last(byte[] literals) {
            int l = literals.length;
            bytes.write(Math.min(l, 15) << 4);
            extension(l);
            bytes.write(literals, 0, l);
            plain.write(literals, 0, l);
        }

        private void extension(int length) {
            if (length < 15) {
                return;
            }
            int rest = length - 15;
            while (rest >= 255) {
                bytes.write(255);
                rest -= 255;
            }
            bytes.write(rest);
        }
    }
}
