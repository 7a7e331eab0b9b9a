package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.PrefixDecompressor;

import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.format.PageType;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Decodes a data page only as far as its first rows need: it walks the decompressed bytes
 * (definition levels, then PLAIN values or the runs of dictionary ids) and asks the {@link
 * PrefixDecompressor} for just the bytes the walk reaches. Encodings whose readers need the whole
 * page (delta encodings, booleans, v1 bit-packed levels) are decompressed whole.
 *
 * <p>Example: a PLAIN BINARY page of 1,024 strings read for row 10: the levels, then 11 length
 * prefixes and strings are decompressed, the rest of the page is not. {@link
 * DataPage#rowsAvailable} says how many rows the result holds, and {@link PageCursor} refuses to
 * read past them.
 */
public final class PagePrefix {

    /**
     * A prefix of an uncompressed or Hadoop-framed LZ4 page is decoded when it needs at most this
     * share of the rows.
     */
    public static final double MAX_PREFIX_SHARE = 0.45;

    /**
     * LZ4_RAW prefixes up to this share: on the seed layout's pages {@code Lz4Sequences} takes
     * about 0.66-0.72x the CPU time of aircompressor's whole-page decoder for 45% of a page and
     * 1.0-1.25x for 75% ({@code ReaderProbe lz4}), so the whole page wins only beyond about 70%.
     */
    public static final double MAX_LZ4_RAW_PREFIX_SHARE = 0.7;

    /**
     * SNAPPY prefixes up to this share: {@code SnappyElements} decodes a whole page in 0.4-0.9x the
     * time of aircompressor's Snappy decoder (seed-like key and value pages, measured with the
     * prefix loop at 0.25-1.0 of a page), so a prefix wins almost up to the whole page.
     */
    public static final double MAX_SNAPPY_PREFIX_SHARE = 0.9;

    /** The largest share of a page's rows worth decoding as a prefix for {@code codec}. */
    public static double maxPrefixShare(CompressionCodecName codec) {
        return switch (codec) {
            case SNAPPY -> MAX_SNAPPY_PREFIX_SHARE;
            case LZ4_RAW -> MAX_LZ4_RAW_PREFIX_SHARE;
            default -> MAX_PREFIX_SHARE;
        };
    }

    /** Bytes decompressed ahead of a walk over PLAIN BINARY values. */
    private static final int WALK_STEP = 1024;

    private PagePrefix() {}

    /** Bytes the decoded page needs in its buffer. */
    public static int decodedSize(PageDecoder.Header header, CompressionCodecName codec) {
        if (header.type() == PageType.DATA_PAGE_V2
                && !(header.compressed() && codec != CompressionCodecName.UNCOMPRESSED)) {
            return header.compressedSize();
        }
        return header.uncompressedSize();
    }

    /**
     * Decodes the page whose header was parsed from {@code in} (absolute indexes) into {@code out},
     * at least its first {@code rows} rows ({@code rows >= valueCount} for the whole page). With a
     * {@code stop} (a verified key page searched for one key), a PLAIN page is decoded only until
     * its first value above the key, whatever share of the page that is, and at most {@code rows}
     * rows.
     */
    public static DataPage decode(
            ByteBuffer in,
            PageDecoder.Header header,
            CompressionCodecName codec,
            ColumnDescriptor column,
            int rows,
            byte[] out,
            boolean scratch,
            @Nullable KeyStop stop)
            throws IOException {
        boolean v2 = header.type() == PageType.DATA_PAGE_V2;
        if (!v2 && header.type() != PageType.DATA_PAGE) {
            throw new IOException("expected a data page, found a " + header.type() + " page");
        }
        int offset = header.payloadOffset();
        int compressed = header.compressedSize();
        // v2: the levels lie uncompressed before the (maybe compressed) values.
        int levels = v2 ? header.repetitionLength() + header.definitionLength() : 0;
        if (v2) {
            if (header.repetitionLength() < 0
                    || header.definitionLength() < 0
                    || levels > compressed) {
                throw new IOException(
                        "level lengths " + levels + " exceed the page of " + compressed + " bytes");
            }
            if (offset + compressed > in.limit()) {
                throw new IOException("page runs past the bytes read");
            }
            in.get(offset, out, 0, levels);
        }
        int size = decodedSize(header, codec);
        PrefixDecompressor d =
                PrefixDecompressor.start(
                        v2 && !header.compressed() ? CompressionCodecName.UNCOMPRESSED : codec,
                        in,
                        offset + levels,
                        compressed - levels,
                        out,
                        levels,
                        size - levels);
        try {
            int wanted = Math.min(Math.max(rows, 0), header.valueCount());
            return values(d, header, column, wanted, out, scratch, levels, size, stop);
        } finally {
            d.release();
        }
    }

    /**
     * Decodes the values of a page whose decompression {@code d} starts after its {@code levels}
     * (v2) and ends at {@code size}: a prefix when it is worth it, else the whole page.
     */
    private static DataPage values(
            PrefixDecompressor d,
            PageDecoder.Header header,
            ColumnDescriptor column,
            int wanted,
            byte[] out,
            boolean scratch,
            int levels,
            int size,
            @Nullable KeyStop stop)
            throws IOException {
        boolean v2 = header.type() == PageType.DATA_PAGE_V2;
        int valueCount = header.valueCount();
        int maxDefinition = column.getMaxDefinitionLevel();
        boolean stopping =
                stop != null
                        && KeyStop.applies(header.encoding())
                        && stop.worthIt(d.codec(), size - levels);
        boolean prefix = stopping || worthAPrefix(wanted, valueCount, d.codec());
        // v1: [4-byte length][definition levels][values]; v2: the header gives the level lengths.
        int definitionOffset = v2 ? header.repetitionLength() : 4;
        int definitionLength = v2 ? header.definitionLength() : 0;
        int valuesStart = levels;
        int nonNull = wanted;
        if (prefix && maxDefinition > 0) {
            if (v2) {
                nonNull =
                        nonNullCount(
                                out, definitionOffset, definitionLength, maxDefinition, wanted);
            } else if (header.definitionEncoding() != Encoding.RLE) {
                prefix = false;
            } else {
                d.ensure(4);
                definitionLength = BytesUtils.readIntLittleEndian(out, 0);
                if (definitionLength < 0 || definitionLength > size - 4) {
                    throw new IOException(
                            "definition levels of " + definitionLength + " bytes exceed the page");
                }
                d.ensure(4 + definitionLength);
                valuesStart = 4 + definitionLength;
                nonNull = nonNullCount(out, 4, definitionLength, maxDefinition, wanted);
            }
        }
        int end;
        long walked = -1;
        if (prefix && stopping) {
            wanted =
                    stop.rows(
                            d,
                            out,
                            valuesStart,
                            nonNull,
                            wanted,
                            definitionOffset,
                            definitionLength,
                            maxDefinition);
            end = wanted < valueCount ? d.available() : -1; // all of it: whole
        } else {
            walked = prefix ? valuesEnd(d, out, valuesStart, nonNull, header, column) : -1;
            end = (int) walked;
        }
        if (end < 0) {
            d.ensure(size);
            wanted = valueCount;
        } else if (d.complete()) {
            wanted = valueCount;
        }
        return lastValue(
                new DataPage(
                        valueCount,
                        v2,
                        header.encoding(),
                        v2 ? Encoding.RLE : header.definitionEncoding(),
                        out,
                        v2 ? definitionOffset : 0,
                        v2 ? definitionLength : 0,
                        levels,
                        d.available(),
                        wanted,
                        scratch),
                nonNull,
                walked);
    }

    /** Whether decoding only {@code wanted} of {@code valueCount} rows beats the whole page. */
    static boolean worthAPrefix(int wanted, int valueCount, CompressionCodecName codec) {
        return wanted < valueCount && wanted <= maxPrefixShare(codec) * valueCount;
    }

    /** Non-null values among the first {@code rows} rows (RLE/bit-packed hybrid levels). */
    private static int nonNullCount(
            byte[] data, int offset, int length, int maxDefinition, int rows) throws IOException {
        RunLengthBitPackingHybridDecoder levels =
                new RunLengthBitPackingHybridDecoder(
                        BytesUtils.getWidthFromMaxInt(maxDefinition),
                        new ByteArrayInputStream(data, offset, length));
        int nonNull = 0;
        for (int i = 0; i < rows; i++) {
            if (levels.readInt() == maxDefinition) {
                nonNull++;
            }
        }
        return nonNull;
    }

    /** Keeps where the walk of {@link #valuesEnd} found the last PLAIN byte string starting. */
    private static DataPage lastValue(DataPage page, int nonNull, long walked) {
        int lastStart = walked < 0 ? -1 : (int) (walked >>> 32) - 1;
        if (lastStart >= 0 && nonNull > 0) {
            page.lastValue(nonNull - 1, lastStart);
        }
        return page;
    }

    /**
     * Decompresses the first {@code nonNull} values starting at {@code start} and returns where
     * they end, or -1 when the encoding must be read whole. For PLAIN byte strings the high 32 bits
     * hold 1 + where the last of them starts (0 otherwise), so a cursor need not walk their lengths
     * again ({@link DataPage#lastValueStart}).
     */
    private static long valuesEnd(
            PrefixDecompressor d,
            byte[] out,
            int start,
            int nonNull,
            PageDecoder.Header header,
            ColumnDescriptor column)
            throws IOException {
        Encoding encoding = header.encoding();
        if (encoding == Encoding.PLAIN) {
            PrimitiveType type = column.getPrimitiveType();
            int width =
                    switch (type.getPrimitiveTypeName()) {
                        case INT32, FLOAT -> 4;
                        case INT64, DOUBLE -> 8;
                        case INT96 -> 12;
                        case FIXED_LEN_BYTE_ARRAY -> type.getTypeLength();
                        case BINARY -> 0;
                        default -> -1; // BOOLEAN: bit-packed, read whole
                    };
            if (width < 0) {
                return -1;
            }
            if (width > 0) {
                int end = start + nonNull * width;
                d.ensure(end);
                return end;
            }
            int p = start;
            int last = -1;
            int available = d.available();
            for (int i = 0; i < nonNull; i++) {
                if (p + 4 > available) {
                    // Ahead in steps, so the decompressor runs in a few calls, not one per value.
                    available = d.ensure(p + 4 + WALK_STEP);
                    if (p + 4 > available) {
                        throw new IOException("PLAIN value " + i + " runs past the page");
                    }
                }
                int length = (int) LittleEndian.INT.get(out, p);
                if (length < 0) {
                    throw new IOException("PLAIN value " + i + " has length " + length);
                }
                last = p;
                p += 4 + length;
            }
            d.ensure(p);
            return ((long) (last + 1) << 32) | p;
        }
        if (encoding == Encoding.RLE_DICTIONARY || encoding == Encoding.PLAIN_DICTIONARY) {
            return idsEnd(d, out, start, nonNull);
        }
        return -1;
    }

    /** Where the runs holding the first {@code nonNull} dictionary ids end (decompressed). */
    private static int idsEnd(PrefixDecompressor d, byte[] out, int start, int nonNull)
            throws IOException {
        // [bit width][runs]: an RLE run is a varint header and one value, a bit-packed run a
        // header and groups of 8 values.
        d.ensure(start + 1);
        int bitWidth = out[start] & 0xff;
        int p = start + 1;
        int count = 0;
        while (count < nonNull) {
            d.ensure(p + 5);
            int runHeader = 0;
            int shift = 0;
            int b;
            do {
                if (p >= d.available() || shift > 28) {
                    throw new IOException("dictionary ids run past the page");
                }
                b = out[p++] & 0xff;
                runHeader |= (b & 0x7f) << shift;
                shift += 7;
            } while ((b & 0x80) != 0);
            if ((runHeader & 1) == 0) {
                count += runHeader >>> 1;
                p += (bitWidth + 7) / 8;
            } else {
                int groups = runHeader >>> 1;
                count += groups * 8;
                p += groups * bitWidth;
            }
            d.ensure(p);
        }
        return p;
    }
}
