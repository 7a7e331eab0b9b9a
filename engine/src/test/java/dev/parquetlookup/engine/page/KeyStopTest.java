package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.page.KeyPage.PlainKeys;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import javax.annotation.Nullable;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A verified key page decoded only as far as a searched key ({@link KeyStop} through {@link
 * PagePrefix}) finds exactly the rows the whole page finds: hand-built PLAIN pages (v1 and v2,
 * required and with null keys, INT32, INT64, BINARY and FIXED_LEN_BYTE_ARRAY keys, runs of equal
 * keys, every block codec and one that cannot stop), searched for every key on the page (first,
 * middle, last), for keys between them, below the first and above the last; and a key in the first
 * part of a page leaves the rest of the page undecoded.
 */
class KeyStopTest {

    private static final int ROWS = 1024;

    static Stream<Arguments> layouts() {
        List<Arguments> out = new ArrayList<>();
        for (String type : List.of("int64", "int32", "binary", "fixed_len_byte_array(6)")) {
            for (boolean v2 : new boolean[] {false, true}) {
                for (boolean nulls : new boolean[] {false, true}) {
                    for (CompressionCodecName codec :
                            List.of(
                                    CompressionCodecName.LZ4_RAW,
                                    CompressionCodecName.SNAPPY,
                                    CompressionCodecName.UNCOMPRESSED,
                                    CompressionCodecName.ZSTD)) {
                        out.add(Arguments.of(type, v2, nulls, codec));
                    }
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} v2={1} nulls={2} {3}")
    @MethodSource("layouts")
    void aPrefixUpToTheKeyFindsTheRowsOfTheWholePage(
            String type, boolean v2, boolean nulls, CompressionCodecName codec) throws Exception {
        ColumnDescriptor column =
                MessageTypeParser.parseMessageType(
                                "message m { "
                                        + (nulls ? "optional " : "required ")
                                        + type
                                        + " k; }")
                        .getColumns()
                        .get(0);
        KeyType keyType = KeyType.of(column.getPrimitiveType());
        Random r = new Random(type.hashCode() * 31L + (v2 ? 7 : 0) + (nulls ? 3 : 0));
        // Ascending even numbers with runs of equal keys; null rows among them (first rows, some
        // in the middle, last rows) when the column is optional.
        Long[] keys = new Long[ROWS];
        long k = 10;
        for (int i = 0; i < ROWS; i++) {
            boolean isNull = nulls && (i < 3 || i >= ROWS - 2 || r.nextInt(20) == 0);
            if (!isNull) {
                keys[i] = k;
                k += r.nextInt(5) == 0 ? 0 : 2;
            }
        }
        byte[] bytes = page(column, keys, v2, codec);
        PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
        LookupContext ctx = new LookupContext();
        DataPage whole =
                PagePrefix.decode(
                        ByteBuffer.wrap(bytes),
                        header,
                        codec,
                        column,
                        Integer.MAX_VALUE,
                        new byte[PagePrefix.decodedSize(header, codec) + 16],
                        false,
                        null);
        assertThat(whole.whole()).isTrue();
        // Garbage beyond what is decoded must not matter: every decode below writes into a copy
        // of these random bytes (one fill per page: a fill per decode was 40% of the test's time).
        byte[] garbage = new byte[PagePrefix.decodedSize(header, codec) + 16];
        r.nextBytes(garbage);
        List<Long> probes = new ArrayList<>();
        for (long p = 7; p <= k + 3; p++) {
            probes.add(p); // every key, every gap, below the first, above the last
        }
        int early = 0;
        for (long probe : probes) {
            Object key = comparable(column, probe);
            long[] expected = rows(whole, column, keyType, key, ctx);
            ctx.releaseScratch();
            // Where the key is expected only steers the first step: a share from the page's
            // bounds, or a wrong one, finds the same rows as none.
            for (double share : new double[] {(probe - 10.0) / (k - 10.0), r.nextDouble()}) {
                KeyStop guided = KeyStop.of(column, keyType, key, Math.max(0, Math.min(1, share)));
                byte[] out = garbage.clone();
                DataPage prefix = stopped(bytes, header, codec, column, out, guided);
                assertThat(rows(prefix, column, keyType, key, ctx))
                        .as("probe %d share %.3f rows %d", probe, share, prefix.rowsAvailable())
                        .containsExactly(expected);
                ctx.releaseScratch();
            }
            KeyStop stop = KeyStop.of(column, keyType, key, 0);
            assertThat(stop).isNotNull();
            byte[] out = garbage.clone();
            DataPage prefix = stopped(bytes, header, codec, column, out, stop);
            String where = "probe " + probe + " rows " + prefix.rowsAvailable();
            long[] actual = rows(prefix, column, keyType, key, ctx);
            assertThat(actual).as(where).containsExactly(expected);
            ctx.releaseScratch();
            if (prefix.rowsAvailable() < ROWS) {
                early++;
                assertThat(prefix.length()).as(where).isLessThan(whole.length());
            }
            if (probe < 100 && stopsInSmallSteps(codec)) {
                assertThat(prefix.rowsAvailable()).as(where).isLessThan(ROWS / 2);
            }
        }
        if (codec == CompressionCodecName.ZSTD) {
            assertThat(early).isZero(); // decompressed whole at the first call: nothing to save
        } else if (stopsInSmallSteps(codec)) {
            assertThat(early).isGreaterThan(probes.size() / 2);
        }
    }

    /** The page decoded into {@code out} for all its rows, stopping where {@code stop} says. */
    private static DataPage stopped(
            byte[] bytes,
            PageDecoder.Header header,
            CompressionCodecName codec,
            ColumnDescriptor column,
            byte[] out,
            KeyStop stop)
            throws java.io.IOException {
        return PagePrefix.decode(
                ByteBuffer.wrap(bytes), header, codec, column, ROWS, out, true, stop);
    }

    /** Block codecs stop at the sequence after the key; uncompressed pages copy 4 KiB at once. */
    private static boolean stopsInSmallSteps(CompressionCodecName codec) {
        return codec == CompressionCodecName.LZ4_RAW || codec == CompressionCodecName.SNAPPY;
    }

    @org.junit.jupiter.api.Test
    void aKeyExpectedLateInThePageDecodesItWhole() throws Exception {
        ColumnDescriptor column =
                MessageTypeParser.parseMessageType("message m { required int64 k; }")
                        .getColumns()
                        .get(0);
        KeyType type = KeyType.of(column.getPrimitiveType());
        Long[] keys = new Long[ROWS];
        for (int i = 0; i < ROWS; i++) {
            keys[i] = 2L * i;
        }
        CompressionCodecName codec = CompressionCodecName.LZ4_RAW;
        byte[] bytes = page(column, keys, false, codec);
        PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
        LookupContext ctx = new LookupContext();
        for (long probe : new long[] {100, 1000, 1800, 2040, 5000}) {
            double share = KeyStop.expectedShare(probe, 0L, 2L * (ROWS - 1));
            KeyStop stop = KeyStop.of(column, type, probe, share);
            byte[] out = new byte[PagePrefix.decodedSize(header, codec) + 16];
            DataPage page = stopped(bytes, header, codec, column, out, stop);
            // Beyond the codec's prefix share the library's whole-page decoder is faster.
            boolean late = share + KeyStop.GUESS_MARGIN * 8.0 / (8 * ROWS) > 0.7;
            assertThat(page.whole()).as("probe %d share %.2f", probe, share).isEqualTo(late);
            if (!late) {
                // The first step ends a few keys past the expected row (to the end of an LZ4
                // sequence), not at the next 1 KiB: fewer rows than an unguided stop decodes.
                int row = (int) (probe / 2);
                KeyStop unguided = KeyStop.of(column, type, probe, 0);
                DataPage stepped =
                        stopped(bytes, header, codec, column, new byte[out.length], unguided);
                assertThat(page.rowsAvailable())
                        .as("probe %d", probe)
                        .isBetween(row + 1, row + 2 * KeyStop.GUESS_MARGIN)
                        .isLessThan(stepped.rowsAvailable());
            }
            long[] found = rows(page, column, type, probe, ctx);
            long expected = probe % 2 == 0 && probe / 2 < ROWS ? probe / 2 : -1;
            assertThat(found[0]).as("probe %d", probe).isEqualTo(expected);
            ctx.releaseScratch();
        }
        assertThat(KeyStop.expectedShare(new byte[1], new byte[0], new byte[2])).isZero();
        assertThat(KeyStop.expectedShare(5L, 5L, 5L)).isZero();
        assertThat(KeyStop.expectedShare(-3L, 0L, 10L)).isZero();
        assertThat(KeyStop.expectedShare(13L, 0L, 10L)).isEqualTo(1.0);
    }

    /** {@code {first row, end row}} of {@code key} on the page, or {@code {-1, -1}}. */
    private static long[] rows(
            DataPage page, ColumnDescriptor column, KeyType type, Object key, LookupContext ctx)
            throws IOException {
        KeyPage keys = PlainKeys.read(page, column, type, new KeyPage.Order(0, true, null), ctx);
        int lo = keys.lowerBound(key);
        int hi = keys.upperBound(key);
        return lo < hi ? new long[] {keys.row(lo), keys.row(hi - 1) + 1} : new long[] {-1, -1};
    }

    private static Object comparable(ColumnDescriptor column, long key) {
        return switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32, INT64 -> key;
            default -> bytesOf(column, key);
        };
    }

    /** A key as bytes that sort like the number: big-endian, 6 bytes (or "k" + 8 digits). */
    private static byte[] bytesOf(ColumnDescriptor column, long key) {
        if (column.getPrimitiveType().getPrimitiveTypeName()
                == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY) {
            return String.format("k%08d", key).getBytes(StandardCharsets.UTF_8);
        }
        byte[] b = new byte[6];
        for (int i = 5; i >= 0; i--) {
            b[i] = (byte) (key >>> (8 * (5 - i)));
        }
        return b;
    }

    /** A PLAIN data page (v1 or v2) of {@code keys} (null: a null row), compressed by codec. */
    static byte[] page(
            ColumnDescriptor column, @Nullable Long[] keys, boolean v2, CompressionCodecName codec)
            throws IOException {
        ByteArrayOutputStream values = new ByteArrayOutputStream();
        int nonNull = 0;
        for (Long key : keys) {
            if (key == null) {
                continue;
            }
            nonNull++;
            switch (column.getPrimitiveType().getPrimitiveTypeName()) {
                case INT32 -> values.write(le(4, key));
                case INT64 -> values.write(le(8, key));
                case BINARY -> {
                    byte[] b = bytesOf(column, key);
                    values.write(le(4, b.length));
                    values.write(b);
                }
                default -> values.write(bytesOf(column, key));
            }
        }
        byte[] levels = new byte[0];
        if (column.getMaxDefinitionLevel() > 0) {
            RunLengthBitPackingHybridEncoder encoder =
                    new RunLengthBitPackingHybridEncoder(
                            1, 64, 1 << 16, new HeapByteBufferAllocator());
            for (Long key : keys) {
                encoder.writeInt(key == null ? 0 : 1);
            }
            levels = encoder.toBytes().toByteArray();
        }
        PageHeader header;
        byte[] body;
        if (v2) {
            byte[] compressed = compress(codec, values.toByteArray());
            body = concat(levels, compressed);
            header =
                    new PageHeader(
                            PageType.DATA_PAGE_V2, levels.length + values.size(), body.length);
            DataPageHeaderV2 data =
                    new DataPageHeaderV2(
                            keys.length,
                            keys.length - nonNull,
                            keys.length,
                            Encoding.PLAIN,
                            levels.length,
                            0);
            data.setIs_compressed(codec != CompressionCodecName.UNCOMPRESSED);
            header.setData_page_header_v2(data);
        } else {
            byte[] plain =
                    levels.length == 0
                            ? values.toByteArray()
                            : concat(concat(le(4, levels.length), levels), values.toByteArray());
            body = compress(codec, plain);
            header = new PageHeader(PageType.DATA_PAGE, plain.length, body.length);
            header.setData_page_header(
                    new DataPageHeader(keys.length, Encoding.PLAIN, Encoding.RLE, Encoding.RLE));
        }
        ByteArrayOutputStream page = new ByteArrayOutputStream();
        Util.writePageHeader(header, page);
        page.write(body);
        return page.toByteArray();
    }

    private static byte[] compress(CompressionCodecName codec, byte[] data) {
        io.airlift.compress.Compressor c =
                switch (codec) {
                    case LZ4_RAW -> new io.airlift.compress.lz4.Lz4Compressor();
                    case SNAPPY -> new io.airlift.compress.snappy.SnappyCompressor();
                    case ZSTD -> new io.airlift.compress.zstd.ZstdCompressor();
                    default -> null;
                };
        if (c == null) {
            return data;
        }
        byte[] out = new byte[c.maxCompressedLength(data.length)];
        int n = c.compress(data, 0, data.length, out, 0, out.length);
        return java.util.Arrays.copyOf(out, n);
    }

    private static byte[] le(int width, long v) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v);
        return java.util.Arrays.copyOf(b.array(), width);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
