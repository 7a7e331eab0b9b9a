package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.PrefixDecompressor;
import dev.parquetlookup.engine.page.KeyPage.PlainKeys;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * Owns where the decompression of a <em>verified</em> key page may stop for one searched key: at
 * the first PLAIN value above the key (then every row holding the key, if any, lies before it),
 * decompressed in steps through the page's {@link PrefixDecompressor}. Only pages whose whole
 * leading-key order was checked before (the open file's verified key pages) are read this way: on a
 * sorted page, the keys after a key above the searched one are above it too.
 *
 * <p>Values compare as {@link PlainKeys} compares them (INT32/INT64 signed, byte strings unsigned),
 * so a search over the prefix finds what a search over the whole page would.
 *
 * <p>Example: a required INT64 page of keys {@code 1..1024} searched for 300: its bounds put 300 at
 * 29% of the page, so the first step decompresses keys 1..304 (maybe a little more, to the end of
 * an LZ4 sequence), the last of them is above 300, the page's 304 leading rows are decoded and the
 * rest of the page is not. Without known bounds (byte-string keys) the steps are 1,024 bytes: keys
 * 1..384.
 */
public final class KeyStop {

    /** Value bytes decompressed per step before the last complete value is compared. */
    static final int STEP = 1024;

    /**
     * Values decompressed past the expected position of the first key above the searched one, in
     * the first step of a page whose keys' spread is known ({@link #expectedShare}).
     */
    static final int GUESS_MARGIN = 4;

    /** Width of a fixed-width value, 0 for BINARY. */
    private final int width;

    private final long longKey;
    @Nullable private final byte[] bytesKey;

    /** Where in the page the key is expected, as a share of its rows (0 when unknown). */
    private final double expectedShare;

    private KeyStop(int width, long longKey, @Nullable byte[] bytesKey, double expectedShare) {
        this.width = width;
        this.longKey = longKey;
        this.bytesKey = bytesKey;
        this.expectedShare = expectedShare;
    }

    /**
     * The stop for searching {@code key} (comparable form of {@code type}) in PLAIN pages of {@code
     * column}, or null when its values are not compared in their bytes ({@link PlainKeys#handles}).
     * {@code expectedShare}: where the key is expected in the page, as a share of its rows (from
     * its bounds, see {@link #expectedShare}); 0 when unknown.
     */
    @Nullable
    public static KeyStop of(
            ColumnDescriptor column, KeyType type, Object key, double expectedShare) {
        if (column.getMaxRepetitionLevel() > 0 || !PlainKeys.handles(column, type)) {
            return null;
        }
        PrimitiveType primitive = column.getPrimitiveType();
        return switch (primitive.getPrimitiveTypeName()) {
            case INT32 -> new KeyStop(4, (Long) key, null, expectedShare);
            case INT64 -> new KeyStop(8, (Long) key, null, expectedShare);
            case FIXED_LEN_BYTE_ARRAY ->
                    new KeyStop(primitive.getTypeLength(), 0, (byte[]) key, expectedShare);
            case BINARY -> new KeyStop(0, 0, (byte[]) key, expectedShare);
            default -> null;
        };
    }

    /**
     * Where integer key {@code key} is expected on a page whose keys span {@code [min, max]}, as a
     * share of its rows, assuming evenly spread keys; 0 when unknown (not integers).
     */
    public static double expectedShare(Object key, Object min, Object max) {
        if (!(key instanceof Long k && min instanceof Long lo && max instanceof Long hi)
                || hi <= lo) {
            return 0;
        }
        double share = ((double) k - lo) / ((double) hi - lo);
        return Math.max(0, Math.min(1, share));
    }

    /**
     * Whether stopping early is expected to beat decoding the whole page ({@code valueBytes} of
     * values, {@code codec}): the expected share plus half a step of overshoot is at most {@link
     * PagePrefix#maxPrefixShare} (beyond it the library's whole-page decoder is faster).
     */
    boolean worthIt(CompressionCodecName codec, int valueBytes) {
        int ahead = expectedShare > 0 && width > 0 ? GUESS_MARGIN * width : STEP / 2;
        double overshoot = valueBytes > 0 ? (double) ahead / valueBytes : 0;
        return expectedShare + overshoot <= PagePrefix.maxPrefixShare(codec);
    }

    /** Whether pages with values in {@code encoding} can stop early (PLAIN only). */
    static boolean applies(Encoding encoding) {
        return encoding == Encoding.PLAIN;
    }

    /**
     * Decompresses the values starting at {@code start} until one is above the key, at most the
     * {@code nonNull} values of the {@code rows} leading rows, and returns the leading rows whose
     * values are decompressed whole: {@code rows}, or fewer ending with the value above the key.
     * Definition levels ({@code maxDefinition > 0}) are at {@code [levelsOffset, +levelsLength)},
     * decompressed.
     */
    int rows(
            PrefixDecompressor d,
            byte[] out,
            int start,
            int nonNull,
            int rows,
            int levelsOffset,
            int levelsLength,
            int maxDefinition)
            throws IOException {
        int values = values(d, out, start, nonNull);
        if (values >= nonNull) {
            return rows;
        }
        if (maxDefinition == 0) {
            return values;
        }
        RunLengthBitPackingHybridDecoder levels =
                new RunLengthBitPackingHybridDecoder(
                        BytesUtils.getWidthFromMaxInt(maxDefinition),
                        new ByteArrayInputStream(out, levelsOffset, levelsLength));
        int held = 0;
        for (int seen = 0; seen < values; held++) {
            if (levels.readInt() == maxDefinition) {
                seen++;
            }
        }
        return held;
    }

    /**
     * Decompresses the values starting at {@code start} until one is above the key, or {@code
     * limit} values; returns how many values are decompressed whole (at least the first above the
     * key when there is one within the limit).
     */
    int values(PrefixDecompressor d, byte[] out, int start, int limit) throws IOException {
        return width > 0 ? fixed(d, out, start, limit) : binary(d, out, start, limit);
    }

    private int fixed(PrefixDecompressor d, byte[] out, int start, int limit) throws IOException {
        int done = 0;
        int stepValues = Math.max(1, STEP / width);
        // The first step ends just past where evenly spread keys put the first one above the key.
        int firstValues =
                expectedShare > 0
                        ? (int) Math.min(limit, Math.ceil(expectedShare * limit) + GUESS_MARGIN)
                        : stepValues;
        while (done < limit) {
            int target =
                    start + Math.min(limit, done + (done == 0 ? firstValues : stepValues)) * width;
            int available = d.ensure(target);
            int complete = Math.min(limit, (available - start) / width);
            if (complete <= done) {
                throw new IOException(
                        "PLAIN page is too short for " + limit + " keys of " + width + " bytes");
            }
            done = complete;
            if (above(out, start + (complete - 1) * width)) {
                return complete;
            }
        }
        return limit;
    }

    private boolean above(byte[] out, int at) {
        if (bytesKey != null) {
            return Arrays.compareUnsigned(out, at, at + width, bytesKey, 0, bytesKey.length) > 0;
        }
        long v =
                width == 4
                        ? (int) LittleEndian.INT.get(out, at)
                        : (long) LittleEndian.LONG.get(out, at);
        return v > longKey;
    }

    private int binary(PrefixDecompressor d, byte[] out, int start, int limit) throws IOException {
        int p = start;
        int available = d.available();
        for (int i = 0; i < limit; i++) {
            if (p + 4 > available) {
                available = d.ensure(p + 4 + STEP);
                if (p + 4 > available) {
                    throw new IOException("PLAIN value " + i + " runs past the page");
                }
            }
            int length = (int) LittleEndian.INT.get(out, p);
            if (length < 0) {
                throw new IOException("PLAIN value " + i + " has length " + length);
            }
            int end = p + 4 + length;
            if (end > available) {
                available = d.ensure(end + STEP);
                if (end > available) {
                    throw new IOException("PLAIN value " + i + " runs past the page");
                }
            }
            if (Arrays.compareUnsigned(out, p + 4, end, bytesKey, 0, bytesKey.length) > 0) {
                return i + 1;
            }
            p = end;
        }
        return limit;
    }
}
