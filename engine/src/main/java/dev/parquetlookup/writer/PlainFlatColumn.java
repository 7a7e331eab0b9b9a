package dev.parquetlookup.writer;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * Copies one flat column chunk whose data pages are all PLAIN-encoded, value by value, for {@link
 * RepagedCopy}: values are read from the decompressed page's array (a BINARY value is a {@link
 * Binary} over it) and handed to the writer. parquet-java's column reader makes a {@code
 * ByteBuffer} slice and a buffer-backed {@code Binary} per BINARY value, and checks its page state
 * per value: measured, about a third of a DuckDB file's local-form build (DuckDB writes PLAIN pages
 * when a dictionary does not pay). Levels are parsed by parquet-java's own level readers.
 *
 * <p>Example: a chunk of {@code optional binary name (STRING)} or {@code required int64 id} with
 * encodings [PLAIN, RLE] and no dictionary page {@linkplain #fits fits}; one with a dictionary
 * page, DELTA pages, a BOOLEAN or a repeated column is read by parquet-java's column reader.
 */
final class PlainFlatColumn {

    private static final Set<Encoding> PLAIN_ONLY =
            Set.of(Encoding.PLAIN, Encoding.RLE, Encoding.BIT_PACKED);

    private final PageReader pages;
    private final ColumnDescriptor column;
    private final PrimitiveType.PrimitiveTypeName type;
    private final int fixedLength;
    private final int maxDefinition;

    private byte[] page;
    private int position;
    private int valuesLeft;
    private DefinitionLevels levels;

    /** Definition levels of the current page. */
    private interface DefinitionLevels {
        int next() throws IOException;
    }

    PlainFlatColumn(PageReader pages, ColumnDescriptor column) {
        this.pages = pages;
        this.column = column;
        this.type = column.getPrimitiveType().getPrimitiveTypeName();
        this.fixedLength =
                type == PrimitiveType.PrimitiveTypeName.INT96
                        ? 12
                        : column.getPrimitiveType().getTypeLength();
        this.maxDefinition = column.getMaxDefinitionLevel();
    }

    /** Whether {@code chunk} of {@code column} can be copied this way. */
    static boolean fits(ColumnDescriptor column, ColumnChunkMetaData chunk) {
        return column.getMaxRepetitionLevel() == 0
                && column.getPrimitiveType().getPrimitiveTypeName()
                        != PrimitiveType.PrimitiveTypeName.BOOLEAN
                && !chunk.hasDictionaryPage()
                && PLAIN_ONLY.containsAll(chunk.getEncodings());
    }

    /**
     * Writes the next value (or null) to {@code out}: a BINARY value is valid while its row group
     * is copied, as parquet-java's reader gives it.
     */
    void copyNext(ColumnWriter out) {
        int definition;
        try {
            if (valuesLeft == 0) {
                nextPage();
            }
            valuesLeft--;
            definition = maxDefinition == 0 ? 0 : levels.next();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (definition < maxDefinition) {
            out.writeNull(0, definition);
            return;
        }
        byte[] p = page;
        int at = position;
        switch (type) {
            case INT32 -> {
                out.write(int32(p, at), 0, definition);
                position = at + 4;
            }
            case INT64 -> {
                out.write(int64(p, at), 0, definition);
                position = at + 8;
            }
            case FLOAT -> {
                out.write(Float.intBitsToFloat(int32(p, at)), 0, definition);
                position = at + 4;
            }
            case DOUBLE -> {
                out.write(Double.longBitsToDouble(int64(p, at)), 0, definition);
                position = at + 8;
            }
            case BINARY -> {
                int length = int32(p, at);
                out.write(Binary.fromConstantByteArray(p, at + 4, length), 0, definition);
                position = at + 4 + length;
            }
            case INT96, FIXED_LEN_BYTE_ARRAY -> {
                out.write(Binary.fromConstantByteArray(p, at, fixedLength), 0, definition);
                position = at + fixedLength;
            }
            default -> throw new IllegalStateException("not a PLAIN column: " + column);
        }
    }

    private static int int32(byte[] p, int at) {
        return (p[at] & 0xff)
                | (p[at + 1] & 0xff) << 8
                | (p[at + 2] & 0xff) << 16
                | (p[at + 3] & 0xff) << 24;
    }

    private static long int64(byte[] p, int at) {
        return (int32(p, at) & 0xffffffffL) | (long) int32(p, at + 4) << 32;
    }

    private void nextPage() throws IOException {
        DataPage next = pages.readPage();
        if (next == null) {
            throw new IOException("column " + column + " has fewer values than its chunk says");
        }
        valuesLeft = next.getValueCount();
        if (next instanceof DataPageV1 v1) {
            requirePlain(v1.getValueEncoding());
            ByteBuffer bytes = heap(v1.getBytes());
            ByteBufferInputStream in = ByteBufferInputStream.wrap(bytes);
            // A flat column has no repetition levels: its reader consumes nothing.
            v1.getRlEncoding()
                    .getValuesReader(column, ValuesType.REPETITION_LEVEL)
                    .initFromPage(valuesLeft, in);
            ValuesReader definitions =
                    v1.getDlEncoding().getValuesReader(column, ValuesType.DEFINITION_LEVEL);
            definitions.initFromPage(valuesLeft, in);
            levels = definitions::readInteger;
            page = bytes.array();
            position = bytes.arrayOffset() + bytes.position() + (int) in.position();
        } else if (next instanceof DataPageV2 v2) {
            requirePlain(v2.getDataEncoding());
            RunLengthBitPackingHybridDecoder decoder =
                    new RunLengthBitPackingHybridDecoder(
                            BytesUtils.getWidthFromMaxInt(maxDefinition),
                            v2.getDefinitionLevels().toInputStream());
            levels = decoder::readInt;
            ByteBuffer bytes = heap(v2.getData());
            page = bytes.array();
            position = bytes.arrayOffset() + bytes.position();
        } else {
            throw new IOException("unknown data page " + next.getClass().getName());
        }
    }

    private void requirePlain(Encoding encoding) throws IOException {
        if (encoding != Encoding.PLAIN) {
            throw new IOException(
                    "column " + column + " has a " + encoding + " page, its chunk says PLAIN only");
        }
    }

    private static ByteBuffer heap(BytesInput bytes) throws IOException {
        ByteBuffer b = bytes.toByteBuffer();
        return b.hasArray() ? b : ByteBuffer.wrap(bytes.toByteArray());
    }
}
