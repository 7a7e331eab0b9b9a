package dev.parquetlookup.engine.page;

import dev.parquetlookup.metadata.ThriftCompactReader;

import org.apache.parquet.column.Encoding;
import org.apache.parquet.format.PageType;

import java.io.IOException;

/**
 * Decodes a Parquet {@code PageHeader} (Thrift compact protocol) straight from the page's bytes
 * into a {@link PageDecoder.Header}, keeping only what a reader needs and skipping the rest
 * (statistics, CRC, index page headers, unknown fields).
 *
 * <p>Two headers are parsed per lookup, so this is on the hot path: parquet-java's {@code
 * Util.readPageHeader} allocates a stream, a transport and a protocol per header and formats a
 * validation message eagerly ({@code String.format}) even for valid headers. This parser allocates
 * only the result, and checks every length against the bytes it was given.
 *
 * <p>The decoding is {@link ThriftCompactReader}'s, shared with the OffsetIndex decoder.
 */
final class PageHeaderParser {

    private static final Encoding[] ENCODINGS = new Encoding[16];

    static {
        for (org.apache.parquet.format.Encoding e : org.apache.parquet.format.Encoding.values()) {
            if (e.getValue() < ENCODINGS.length) {
                ENCODINGS[e.getValue()] = Encoding.valueOf(e.name());
            }
        }
    }

    private PageHeaderParser() {}

    /**
     * Parses the header at {@code offset}; the page's payload follows it.
     *
     * @throws IOException if the bytes are not a complete, valid page header
     */
    static PageDecoder.Header parse(byte[] bytes, int offset, int length) throws IOException {
        return parse(bytes, offset, length, length);
    }

    /**
     * Parses a header from the first {@code length} bytes of a page of {@code pageLength} bytes (a
     * probe copied out of a mapped page): the payload is checked against the page's length.
     */
    static PageDecoder.Header parse(byte[] bytes, int offset, int length, int pageLength)
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
                        if (id == 5) { // DataPageHeader
                            switch (inner) {
                                case 1 -> numValues = in.readI32("num_values");
                                case 2 -> encoding = in.readI32("encoding");
                                case 3 ->
                                        definitionEncoding =
                                                in.readI32("definition_level_encoding");
                                default -> in.skip(in.fieldType());
                            }
                        } else if (id == 7) { // DictionaryPageHeader
                            switch (inner) {
                                case 1 -> numValues = in.readI32("num_values");
                                case 2 -> encoding = in.readI32("encoding");
                                default -> in.skip(in.fieldType());
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
        return new PageDecoder.Header(
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
}
