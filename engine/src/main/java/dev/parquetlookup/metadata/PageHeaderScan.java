package dev.parquetlookup.metadata;

import java.io.IOException;

/**
 * What the page-index builder needs from one Parquet {@code PageHeader}: type, sizes, value and row
 * counts, and the page's statistics when the writer put them in the header. Decoded with {@link
 * ThriftCompactReader}; unlike the engine's header parser it keeps the statistics and does not
 * require the page's payload to be present (only the header bytes are read).
 *
 * <p>Example: a v1 data page of 1,024 BIGINT values written by pyarrow has {@code type ==
 * DATA_PAGE}, {@code valueCount == 1024}, {@code rowCount() == 1024}, and 8-byte little-endian
 * {@code minValue}/{@code maxValue}.
 */
final class PageHeaderScan {

    static final int DATA_PAGE = 0;
    static final int INDEX_PAGE = 1;
    static final int DICTIONARY_PAGE = 2;
    static final int DATA_PAGE_V2 = 3;

    int type = -1;
    int compressedSize = -1;
    int valueCount = -1;

    /** v2 only; -1 for v1 pages. */
    int v2Rows = -1;

    /** v2 header's num_nulls, else the statistics' null_count, else -1. */
    long nullCount = -1;

    /** Statistics {@code min_value}/{@code max_value} (exact order), or null. */
    byte[] minValue;

    byte[] maxValue;

    /** Deprecated statistics {@code min}/{@code max} (signed order), or null. */
    byte[] legacyMin;

    byte[] legacyMax;

    /** Bytes of the header itself; the payload follows. */
    int headerLength;

    private PageHeaderScan() {}

    boolean isData() {
        return type == DATA_PAGE || type == DATA_PAGE_V2;
    }

    /** Rows of a data page of a flat column. */
    int rowCount() {
        return type == DATA_PAGE_V2 ? v2Rows : valueCount;
    }

    /**
     * Parses the header at the start of {@code bytes[offset, offset + length)}.
     *
     * @throws IOException if the bytes do not hold a complete, valid header (also when they are
     *     only the first part of a longer header)
     */
    static PageHeaderScan parse(byte[] bytes, int offset, int length) throws IOException {
        ThriftCompactReader in = new ThriftCompactReader(bytes, offset, length);
        PageHeaderScan h = new PageHeaderScan();
        int uncompressed = -1;
        while (in.nextField()) {
            int id = in.fieldId();
            switch (id) {
                case 1 -> h.type = in.readI32("type");
                case 2 -> uncompressed = in.readI32("uncompressed_page_size");
                case 3 -> h.compressedSize = in.readI32("compressed_page_size");
                case 5, 7, 8 -> {
                    in.expect(ThriftCompactReader.STRUCT, "page header field " + id);
                    int outer = in.beginStruct();
                    while (in.nextField()) {
                        h.pageField(in, id);
                    }
                    in.endStruct(outer);
                }
                default -> in.skip(in.fieldType());
            }
        }
        if (h.type < DATA_PAGE || h.type > DATA_PAGE_V2) {
            throw new IOException("page header has no valid page type (found " + h.type + ")");
        }
        if (h.compressedSize < 0 || uncompressed < 0) {
            throw new IOException(
                    "page header has invalid sizes: compressed "
                            + h.compressedSize
                            + ", uncompressed "
                            + uncompressed);
        }
        if (h.isData() && h.valueCount < 0) {
            throw new IOException("data page header lacks num_values");
        }
        if (h.type == DATA_PAGE_V2 && h.v2Rows < 0) {
            throw new IOException("DATA_PAGE_V2 header lacks num_rows");
        }
        h.headerLength = in.position() - offset;
        return h;
    }

    private void pageField(ThriftCompactReader in, int header) throws IOException {
        int inner = in.fieldId();
        if (inner == 1) { // num_values in all three headers
            valueCount = in.readI32("num_values");
        } else if (header == 8 && inner == 2) {
            nullCount = in.readI32("num_nulls");
        } else if (header == 8 && inner == 3) {
            v2Rows = in.readI32("num_rows");
        } else if (header == 5 && inner == 5 || header == 8 && inner == 8) {
            in.expect(ThriftCompactReader.STRUCT, "statistics");
            int outer = in.beginStruct();
            while (in.nextField()) {
                switch (in.fieldId()) {
                    case 1 -> legacyMax = in.readBinary("max");
                    case 2 -> legacyMin = in.readBinary("min");
                    case 3 -> {
                        long n = in.readI64("null_count");
                        if (nullCount < 0) {
                            nullCount = n;
                        }
                    }
                    case 5 -> maxValue = in.readBinary("max_value");
                    case 6 -> minValue = in.readBinary("min_value");
                    default -> in.skip(in.fieldType());
                }
            }
            in.endStruct(outer);
        } else {
            in.skip(in.fieldType());
        }
    }
}
