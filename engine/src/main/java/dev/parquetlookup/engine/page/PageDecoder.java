package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.Decompression;

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

    /** Parses the page header at {@code offset} of {@code bytes}. */
    public static Header header(byte[] bytes, int offset, int length) throws IOException {
        return PageHeaderParser.parse(bytes, offset, length);
    }

    /**
     * Parses the header of a page of {@code pageLength} bytes from a probe of its first {@code
     * length} bytes at {@code offset} of {@code bytes}.
     */
    public static Header header(byte[] bytes, int offset, int length, int pageLength)
            throws IOException {
        return PageHeaderParser.parse(bytes, offset, length, pageLength);
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
