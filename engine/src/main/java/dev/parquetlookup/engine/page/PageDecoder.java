package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.Decompression;
import dev.parquetlookup.metadata.ThriftCompactReader;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.format.PageType;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;

/**
 * Parses page headers and decompresses pages; decoding of values is {@link PageCursor}'s job.
 * Stateless and thread-safe.
 *
 * <p>A Parquet {@code PageHeader} (Thrift compact protocol) is decoded straight from the page's
 * bytes into a {@link Header}, keeping only what a reader needs and skipping the rest (statistics,
 * CRC, index page headers, unknown fields). Two headers are parsed per lookup, so this is on the
 * hot path: parquet-java's {@code Util.readPageHeader} allocates a stream, a transport and a
 * protocol per header and formats a validation message eagerly ({@code String.format}) even for
 * valid headers. This parser allocates only the result, and checks every length against the bytes
 * it was given. The decoding is {@link ThriftCompactReader}'s, shared with the OffsetIndex decoder.
 */
public final class PageDecoder {

    private PageDecoder() {}

    /**
     * A parsed page header and where the page's payload starts.
     *
     * @param type the page's type
     * @param uncompressedSize payload bytes after decompression (levels included)
     * @param compressedSize payload bytes as stored
     * @param valueCount values of a data or dictionary page (nulls included)
     * @param rowCount rows of a data page (v1: the value count, flat columns only)
     * @param encoding encoding of the values, or null for other page types
     * @param definitionEncoding encoding of a v1 page's definition levels
     * @param definitionLength v2: bytes of definition levels
     * @param repetitionLength v2: bytes of repetition levels
     * @param compressed v2: whether the values are compressed
     * @param payloadOffset where the payload starts in the parsed bytes
     */
    public record Header(
            PageType type,
            int uncompressedSize,
            int compressedSize,
            int valueCount,
            int rowCount,
            Encoding encoding,
            Encoding definitionEncoding,
            int definitionLength,
            int repetitionLength,
            boolean compressed,
            int payloadOffset) {}

    private static final Encoding[] ENCODINGS = new Encoding[16];

    static {
        for (org.apache.parquet.format.Encoding e : org.apache.parquet.format.Encoding.values()) {
            if (e.getValue() < ENCODINGS.length) {
                ENCODINGS[e.getValue()] = Encoding.valueOf(e.name());
            }
        }
    }

    /**
     * Parses the header at {@code offset}; the page's payload follows it.
     *
     * @throws IOException if the bytes are not a complete, valid page header
     */
    public static Header header(byte[] bytes, int offset, int length) throws IOException {
        return header(bytes, offset, length, length);
    }

    /**
     * Parses a header from the first {@code length} bytes of a page of {@code pageLength} bytes (a
     * probe copied out of a mapped page): the payload is checked against the page's length.
     */
    public static Header header(byte[] bytes, int offset, int length, int pageLength)
            throws IOException {
        ThriftCompactReader in;
        try {
            in = new ThriftCompactReader(bytes, offset, length);
        } catch (IOException e) {
            throw new IOException("page header range outside the buffer", e);
        }
        int end = offset + pageLength;
        int type = -1;
        int uncompressed = -1;
        int compressed = -1;
        int numValues = -1;
        int numRows = -1;
        int encoding = -1;
        int definitionEncoding = -1;
        int definitionLength = 0;
        int repetitionLength = 0;
        boolean isCompressed = true;
        while (in.nextField()) {
            int id = in.fieldId();
            switch (id) {
                case 1 -> type = in.readI32("type");
                case 2 -> uncompressed = in.readI32("uncompressed_page_size");
                case 3 -> compressed = in.readI32("compressed_page_size");
                case 5, 7, 8 -> {
                    in.expect(ThriftCompactReader.STRUCT, "page header field " + id);
                    int outer = in.beginStruct();
                    while (in.nextField()) {
                        int inner = in.fieldId();
                        if (id != 8) { // DataPageHeader (5) or DictionaryPageHeader (7)
                            if (inner == 1) {
                                numValues = in.readI32("num_values");
                            } else if (inner == 2) {
                                encoding = in.readI32("encoding");
                            } else if (inner == 3 && id == 5) {
                                definitionEncoding = in.readI32("definition_level_encoding");
                            } else {
                                in.skip(in.fieldType());
                            }
                        } else { // DataPageHeaderV2
                            switch (inner) {
                                case 1 -> numValues = in.readI32("num_values");
                                case 3 -> numRows = in.readI32("num_rows");
                                case 4 -> encoding = in.readI32("encoding");
                                case 5 ->
                                        definitionLength =
                                                in.readI32("definition_levels_byte_length");
                                case 6 ->
                                        repetitionLength =
                                                in.readI32("repetition_levels_byte_length");
                                case 7 -> isCompressed = in.readBoolean("is_compressed");
                                default -> in.skip(in.fieldType());
                            }
                        }
                    }
                    in.endStruct(outer);
                }
                default -> in.skip(in.fieldType());
            }
        }
        PageType pageType = type < 0 ? null : PageType.findByValue(type);
        if (pageType == null) {
            throw new IOException("page header has no valid page type (found " + type + ")");
        }
        if (compressed < 0 || uncompressed < 0) {
            throw new IOException(
                    "page header has invalid sizes: compressed "
                            + compressed
                            + ", uncompressed "
                            + uncompressed);
        }
        boolean data = pageType == PageType.DATA_PAGE || pageType == PageType.DATA_PAGE_V2;
        if ((data || pageType == PageType.DICTIONARY_PAGE) && (numValues < 0 || encoding < 0)) {
            throw new IOException(
                    "page header of a " + pageType + " page lacks num_values or encoding");
        }
        if (pageType == PageType.DATA_PAGE_V2
                && (numRows < 0 || definitionLength < 0 || repetitionLength < 0)) {
            throw new IOException("DATA_PAGE_V2 header lacks num_rows or level lengths");
        }
        int payloadOffset = in.position();
        if (compressed > end - payloadOffset) {
            throw new IOException(
                    "page header says "
                            + compressed
                            + " bytes follow but only "
                            + (end - payloadOffset)
                            + " are there");
        }
        return new Header(
                pageType,
                uncompressed,
                compressed,
                numValues,
                pageType == PageType.DATA_PAGE_V2 ? numRows : numValues,
                encoding < 0 ? null : encoding(encoding),
                definitionEncoding < 0 ? Encoding.RLE : encoding(definitionEncoding),
                definitionLength,
                repetitionLength,
                isCompressed,
                payloadOffset);
    }

    private static Encoding encoding(int value) throws IOException {
        Encoding e = value >= 0 && value < ENCODINGS.length ? ENCODINGS[value] : null;
        if (e == null) {
            throw new IOException("page header names unknown encoding " + value);
        }
        return e;
    }

    /**
     * Decompresses the data page whose header was parsed by {@link #header}.
     *
     * @throws IOException if the page is not a data page or its bytes are damaged
     */
    public static DataPage dataPage(byte[] bytes, Header header, CompressionCodecName codec)
            throws IOException {
        int offset = header.payloadOffset();
        int compressed = header.compressedSize();
        int uncompressed = header.uncompressedSize();
        if (header.type() == PageType.DATA_PAGE) {
            byte[] data = Decompression.decompress(codec, bytes, offset, compressed, uncompressed);
            return new DataPage(
                    header.valueCount(),
                    false,
                    header.encoding(),
                    header.definitionEncoding(),
                    data,
                    0,
                    0,
                    0);
        }
        if (header.type() == PageType.DATA_PAGE_V2) {
            int levels = header.repetitionLength() + header.definitionLength();
            if (levels < 0 || levels > compressed) {
                throw new IOException(
                        "level lengths " + levels + " exceed the page of " + compressed + " bytes");
            }
            byte[] data;
            if (header.compressed() && codec != CompressionCodecName.UNCOMPRESSED) {
                byte[] values =
                        Decompression.decompress(
                                codec,
                                bytes,
                                offset + levels,
                                compressed - levels,
                                uncompressed - levels);
                data = new byte[uncompressed];
                System.arraycopy(bytes, offset, data, 0, levels);
                System.arraycopy(values, 0, data, levels, values.length);
            } else {
                data = new byte[compressed];
                System.arraycopy(bytes, offset, data, 0, compressed);
            }
            return new DataPage(
                    header.valueCount(),
                    true,
                    header.encoding(),
                    Encoding.RLE,
                    data,
                    header.repetitionLength(),
                    header.definitionLength(),
                    levels);
        }
        throw new IOException("expected a data page, found a " + header.type() + " page");
    }

    /** The decompressed PLAIN values of a dictionary page. */
    public static byte[] dictionaryValues(byte[] bytes, Header header, CompressionCodecName codec)
            throws IOException {
        if (header.type() != PageType.DICTIONARY_PAGE) {
            throw new IOException("expected a dictionary page, found a " + header.type() + " page");
        }
        return Decompression.decompress(
                codec,
                bytes,
                header.payloadOffset(),
                header.compressedSize(),
                header.uncompressedSize());
    }

    /** Decompresses and decodes a dictionary page. */
    public static Dictionary dictionary(
            byte[] bytes, Header header, CompressionCodecName codec, ColumnDescriptor column)
            throws IOException {
        byte[] data = dictionaryValues(bytes, header, codec);
        // Writers mark dictionary pages PLAIN or PLAIN_DICTIONARY; both hold plain values.
        DictionaryPage page =
                new DictionaryPage(
                        BytesInput.from(data), header.valueCount(), Encoding.PLAIN_DICTIONARY);
        return Encoding.PLAIN_DICTIONARY.initDictionary(column, page);
    }
}
