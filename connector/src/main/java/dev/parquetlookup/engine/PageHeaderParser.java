package dev.parquetlookup.engine;

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
 * <p>Thrift compact encoding in brief: a struct is a run of field headers ending with a 0 byte; a
 * field header holds the field id delta (high nibble, 0 means a zigzag i16 id follows) and the type
 * (low nibble); integers are zigzag varints, booleans live in the field header's type.
 */
final class PageHeaderParser {

    // Compact protocol types.
    private static final int BOOLEAN_TRUE = 1;
    private static final int BOOLEAN_FALSE = 2;
    private static final int BYTE = 3;
    private static final int I16 = 4;
    private static final int I32 = 5;
    private static final int I64 = 6;
    private static final int DOUBLE = 7;
    private static final int BINARY = 8;
    private static final int LIST = 9;
    private static final int SET = 10;
    private static final int MAP = 11;
    private static final int STRUCT = 12;

    /** Nesting allowed while skipping unknown fields; headers of real writers nest 2-3 deep. */
    private static final int MAX_DEPTH = 16;

    private static final Encoding[] ENCODINGS = new Encoding[16];

    static {
        for (org.apache.parquet.format.Encoding e : org.apache.parquet.format.Encoding.values()) {
            if (e.getValue() < ENCODINGS.length) {
                ENCODINGS[e.getValue()] = Encoding.valueOf(e.name());
            }
        }
    }

    private final byte[] bytes;
    private final int end;
    private int pos;

    private PageHeaderParser(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.pos = offset;
        this.end = offset + length;
    }

    /**
     * Parses the header at {@code offset}; the page's payload follows it.
     *
     * @throws IOException if the bytes are not a complete, valid page header
     */
    static PageDecoder.Header parse(byte[] bytes, int offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset + length > bytes.length) {
            throw new IOException("page header range outside the buffer");
        }
        return new PageHeaderParser(bytes, offset, length).pageHeader();
    }

    private PageDecoder.Header pageHeader() throws IOException {
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
        int id = 0;
        while (true) {
            int header = readByte() & 0xff;
            int fieldType = header & 0x0f;
            if (fieldType == 0) {
                break;
            }
            id = fieldId(header, id);
            switch (id) {
                case 1 -> type = expectI32(fieldType, "type");
                case 2 -> uncompressed = expectI32(fieldType, "uncompressed_page_size");
                case 3 -> compressed = expectI32(fieldType, "compressed_page_size");
                case 5, 7, 8 -> {
                    if (fieldType != STRUCT) {
                        throw new IOException("page header field " + id + " is not a struct");
                    }
                    int innerId = 0;
                    while (true) {
                        int inner = readByte() & 0xff;
                        int innerType = inner & 0x0f;
                        if (innerType == 0) {
                            break;
                        }
                        innerId = fieldId(inner, innerId);
                        if (id == 5) { // DataPageHeader
                            switch (innerId) {
                                case 1 -> numValues = expectI32(innerType, "num_values");
                                case 2 -> encoding = expectI32(innerType, "encoding");
                                case 3 ->
                                        definitionEncoding =
                                                expectI32(innerType, "definition_level_encoding");
                                default -> skip(innerType, 0);
                            }
                        } else if (id == 7) { // DictionaryPageHeader
                            switch (innerId) {
                                case 1 -> numValues = expectI32(innerType, "num_values");
                                case 2 -> encoding = expectI32(innerType, "encoding");
                                default -> skip(innerType, 0);
                            }
                        } else { // DataPageHeaderV2
                            switch (innerId) {
                                case 1 -> numValues = expectI32(innerType, "num_values");
                                case 3 -> numRows = expectI32(innerType, "num_rows");
                                case 4 -> encoding = expectI32(innerType, "encoding");
                                case 5 ->
                                        definitionLength =
                                                expectI32(
                                                        innerType, "definition_levels_byte_length");
                                case 6 ->
                                        repetitionLength =
                                                expectI32(
                                                        innerType, "repetition_levels_byte_length");
                                case 7 -> isCompressed = expectBoolean(innerType, "is_compressed");
                                default -> skip(innerType, 0);
                            }
                        }
                    }
                }
                default -> skip(fieldType, 0);
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
        int payloadOffset = pos;
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

    private int fieldId(int header, int previous) throws IOException {
        int delta = header >>> 4;
        return delta == 0 ? (short) zigzag((int) readVarint()) : previous + delta;
    }

    private int expectI32(int fieldType, String name) throws IOException {
        if (fieldType != I32) {
            throw new IOException("page header field " + name + " is not an i32");
        }
        return zigzag((int) readVarint());
    }

    private static boolean expectBoolean(int fieldType, String name) throws IOException {
        if (fieldType != BOOLEAN_TRUE && fieldType != BOOLEAN_FALSE) {
            throw new IOException("page header field " + name + " is not a boolean");
        }
        return fieldType == BOOLEAN_TRUE;
    }

    /** Skips one value of a compact type; {@code depth} bounds nesting on damaged input. */
    private void skip(int type, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("page header nests deeper than " + MAX_DEPTH + " levels");
        }
        switch (type) {
            case BOOLEAN_TRUE, BOOLEAN_FALSE -> {}
            case BYTE -> advance(1);
            case I16, I32, I64 -> readVarint();
            case DOUBLE -> advance(8);
            case BINARY -> advance(length(readVarint()));
            case LIST, SET -> {
                int header = readByte() & 0xff;
                int size = header >>> 4;
                if (size == 15) {
                    size = length(readVarint());
                }
                int element = header & 0x0f;
                for (int i = 0; i < size; i++) {
                    // Booleans inside collections take one byte each.
                    if (element == BOOLEAN_TRUE || element == BOOLEAN_FALSE) {
                        advance(1);
                    } else {
                        skip(element, depth + 1);
                    }
                }
            }
            case MAP -> {
                int size = length(readVarint());
                if (size > 0) {
                    int kinds = readByte() & 0xff;
                    for (int i = 0; i < size; i++) {
                        skip(kinds >>> 4, depth + 1);
                        skip(kinds & 0x0f, depth + 1);
                    }
                }
            }
            case STRUCT -> {
                int id = 0;
                while (true) {
                    int header = readByte() & 0xff;
                    int fieldType = header & 0x0f;
                    if (fieldType == 0) {
                        return;
                    }
                    id = fieldId(header, id);
                    skip(fieldType, depth + 1);
                }
            }
            default -> throw new IOException("page header holds unknown Thrift type " + type);
        }
    }

    private int length(long value) throws IOException {
        if (value < 0 || value > end - pos) {
            throw new IOException("page header length " + value + " runs past its bytes");
        }
        return (int) value;
    }

    private void advance(int n) throws IOException {
        if (n > end - pos) {
            throw new IOException("page header is truncated");
        }
        pos += n;
    }

    private byte readByte() throws IOException {
        if (pos >= end) {
            throw new IOException("page header is truncated");
        }
        return bytes[pos++];
    }

    private long readVarint() throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = readByte();
            result |= (long) (b & 0x7f) << shift;
            if (b >= 0) {
                return result;
            }
        }
        throw new IOException("page header holds a varint longer than 10 bytes");
    }

    private static int zigzag(int n) {
        return (n >>> 1) ^ -(n & 1);
    }
}
