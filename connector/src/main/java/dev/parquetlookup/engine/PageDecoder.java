package dev.parquetlookup.engine;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.ByteArrayInputStream;
import java.io.IOException;

/**
 * Parses page headers and decompresses pages; decoding of values is {@link PageCursor}'s job.
 * Stateless and thread-safe.
 */
final class PageDecoder {

    private static final ParquetMetadataConverter CONVERTER = new ParquetMetadataConverter();

    private PageDecoder() {}

    /** A parsed page header and where the page's payload starts. */
    record Header(PageHeader header, int payloadOffset) {}

    /** Parses the page header at {@code offset} of {@code bytes}. */
    static Header header(byte[] bytes, int offset, int length) throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(bytes, offset, length);
        PageHeader header = Util.readPageHeader(in);
        int headerLength = length - in.available();
        int payload = header.getCompressed_page_size();
        if (payload < 0 || headerLength + payload > length) {
            throw new IOException(
                    "page header says "
                            + payload
                            + " bytes follow but only "
                            + (length - headerLength)
                            + " are there");
        }
        return new Header(header, offset + headerLength);
    }

    /**
     * Decompresses the data page whose header was parsed by {@link #header}.
     *
     * @throws IOException if the page is not a data page or its bytes are damaged
     */
    static DataPage dataPage(byte[] bytes, Header parsed, CompressionCodecName codec)
            throws IOException {
        PageHeader header = parsed.header();
        int offset = parsed.payloadOffset();
        int compressed = header.getCompressed_page_size();
        int uncompressed = header.getUncompressed_page_size();
        if (header.getType() == PageType.DATA_PAGE) {
            DataPageHeader h = header.getData_page_header();
            byte[] data = Decompression.decompress(codec, bytes, offset, compressed, uncompressed);
            return new DataPage(
                    h.getNum_values(),
                    false,
                    encoding(h.getEncoding()),
                    encoding(h.getDefinition_level_encoding()),
                    data,
                    0,
                    0,
                    0);
        }
        if (header.getType() == PageType.DATA_PAGE_V2) {
            DataPageHeaderV2 h = header.getData_page_header_v2();
            int levels =
                    h.getRepetition_levels_byte_length() + h.getDefinition_levels_byte_length();
            if (levels < 0 || levels > compressed) {
                throw new IOException(
                        "level lengths " + levels + " exceed the page of " + compressed + " bytes");
            }
            byte[] data;
            boolean isCompressed = !h.isSetIs_compressed() || h.isIs_compressed();
            if (isCompressed && codec != CompressionCodecName.UNCOMPRESSED) {
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
                    h.getNum_values(),
                    true,
                    encoding(h.getEncoding()),
                    Encoding.RLE,
                    data,
                    h.getRepetition_levels_byte_length(),
                    h.getDefinition_levels_byte_length(),
                    levels);
        }
        throw new IOException("expected a data page, found a " + header.getType() + " page");
    }

    /** Decompresses and decodes a dictionary page. */
    static Dictionary dictionary(
            byte[] bytes, Header parsed, CompressionCodecName codec, ColumnDescriptor column)
            throws IOException {
        PageHeader header = parsed.header();
        if (header.getType() != PageType.DICTIONARY_PAGE) {
            throw new IOException(
                    "expected a dictionary page, found a " + header.getType() + " page");
        }
        DictionaryPageHeader h = header.getDictionary_page_header();
        byte[] data =
                Decompression.decompress(
                        codec,
                        bytes,
                        parsed.payloadOffset(),
                        header.getCompressed_page_size(),
                        header.getUncompressed_page_size());
        // Writers mark dictionary pages PLAIN or PLAIN_DICTIONARY; both hold plain values.
        DictionaryPage page =
                new DictionaryPage(
                        BytesInput.from(data), h.getNum_values(), Encoding.PLAIN_DICTIONARY);
        return Encoding.PLAIN_DICTIONARY.initDictionary(column, page);
    }

    private static Encoding encoding(org.apache.parquet.format.Encoding encoding) {
        return CONVERTER.getEncoding(encoding);
    }
}
