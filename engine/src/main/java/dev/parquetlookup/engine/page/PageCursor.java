package dev.parquetlookup.engine.page;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;

import javax.annotation.Nullable;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Walks the rows of one decoded data page of a flat column: definition levels say which rows are
 * null, parquet-java's {@link ValuesReader} for the page's encoding yields the non-null values.
 * Rows before the wanted ones are skipped without materialising them; PLAIN byte strings by walking
 * their length prefixes in the page's bytes (parquet-java's reader skips one value at a time).
 *
 * <p>Example: rows {@code [7, null, 9]} of an optional column: {@code skipRows(1)} skips value 7,
 * then {@code isNextNull()} is true, then {@code read(...)} gives 9.
 */
public final class PageCursor {

    private final int rows;

    /** Rows whose bytes were decompressed: reading past them would read stale bytes. */
    private final int decodedRows;

    private final int maxDefinition;
    private final ValuesReader values;
    @Nullable private final ValuesReader definitionV1;
    @Nullable private final RunLengthBitPackingHybridDecoder definitionV2;
    private int position;

    /** The page, for walking PLAIN byte strings in place. */
    private final DataPage page;

    /**
     * PLAIN BINARY values only skipped so far: where the next value starts in {@link #page}'s
     * bytes; -1 otherwise (other encodings, or values handed out).
     */
    private int plainNext = -1;

    /** PLAIN BINARY values skipped so far (while {@link #plainNext} is set). */
    private int plainSkipped;

    /** Where the page's PLAIN BINARY values start, for building its {@link PlainStarts}. */
    private int plainFirst = -1;

    public PageCursor(DataPage page, ColumnDescriptor column, @Nullable Dictionary dictionary)
            throws IOException {
        this.rows = page.valueCount();
        this.decodedRows = page.rowsAvailable();
        this.maxDefinition = column.getMaxDefinitionLevel();
        this.page = page;
        boolean plainBinary =
                page.valueEncoding() == org.apache.parquet.column.Encoding.PLAIN
                        && column.getPrimitiveType().getPrimitiveTypeName()
                                == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
        if (column.getMaxRepetitionLevel() > 0) {
            throw new IOException("column " + column + " is repeated; only flat columns are read");
        }
        if (page.valueEncoding().usesDictionary()) {
            if (dictionary == null) {
                throw new IOException(
                        "page is dictionary-encoded but the column chunk has no dictionary page");
            }
            values =
                    page.valueEncoding()
                            .getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary);
        } else {
            values = page.valueEncoding().getValuesReader(column, ValuesType.VALUES);
        }
        if (page.v2()) {
            definitionV1 = null;
            definitionV2 =
                    maxDefinition == 0
                            ? null
                            : new RunLengthBitPackingHybridDecoder(
                                    BytesUtils.getWidthFromMaxInt(maxDefinition),
                                    new ByteArrayInputStream(
                                            page.data(),
                                            page.definitionOffset(),
                                            page.definitionLength()));
            ByteBuffer valueBytes =
                    ByteBuffer.wrap(
                                    page.data(),
                                    page.valuesOffset(),
                                    page.length() - page.valuesOffset())
                            .slice();
            values.initFromPage(rows, ByteBufferInputStream.wrap(valueBytes));
            plainNext = plainBinary ? page.valuesOffset() : -1;
            plainFirst = plainNext;
        } else {
            definitionV2 = null;
            ByteBufferInputStream in =
                    ByteBufferInputStream.wrap(
                            ByteBuffer.wrap(page.data(), 0, page.length()).slice());
            if (maxDefinition == 0) {
                definitionV1 = null;
            } else {
                definitionV1 =
                        page.definitionEncoding()
                                .getValuesReader(column, ValuesType.DEFINITION_LEVEL);
                definitionV1.initFromPage(rows, in);
            }
            plainNext = plainBinary ? (int) in.position() : -1;
            plainFirst = plainNext;
            values.initFromPage(rows, in);
        }
    }

    public int rows() {
        return rows;
    }

    int position() {
        return position;
    }

    /** Consumes the next row's definition level; true if the row is null. */
    public boolean isNextNull() throws IOException {
        if (position >= decodedRows) {
            throw beyondPrefix(1);
        }
        position++;
        if (maxDefinition == 0) {
            return false;
        }
        int level = definitionV1 != null ? definitionV1.readInteger() : definitionV2.readInt();
        return level < maxDefinition;
    }

    /** Reads the value of the row whose level {@link #isNextNull()} just consumed. */
    public Object read(ColumnTypes.ValueReader reader) {
        plainNext = -1;
        return reader.read(values);
    }

    /** The underlying reader, for primitive reads of the row just consumed. */
    ValuesReader values() {
        plainNext = -1;
        return values;
    }

    private IllegalStateException beyondPrefix(int n) {
        return new IllegalStateException(
                "reading "
                        + n
                        + " rows at row "
                        + position
                        + " of a page decoded for its first "
                        + decodedRows
                        + " rows");
    }

    /** Skips {@code n} rows. */
    public void skipRows(int n) throws IOException {
        if (n <= 0) {
            return;
        }
        if (position + n > decodedRows) {
            throw beyondPrefix(n);
        }
        int nonNull = n;
        if (maxDefinition > 0) {
            nonNull = 0;
            for (int i = 0; i < n; i++) {
                int level =
                        definitionV1 != null ? definitionV1.readInteger() : definitionV2.readInt();
                if (level == maxDefinition) {
                    nonNull++;
                }
            }
        }
        position += n;
        if (nonNull > 0 && plainNext >= 0) {
            skipPlain(nonNull);
        } else if (nonNull > 0) {
            values.skip(nonNull);
        }
    }

    /**
     * Skips {@code n} PLAIN byte strings by their lengths, then reads on from the next one. Where
     * the prefix decoder's walk already found a value's start ({@link DataPage#lastValueStart}),
     * the skip starts there.
     */
    private void skipPlain(int n) throws IOException {
        byte[] data = page.data();
        int end = page.length();
        int p = plainNext;
        int target = plainSkipped + n;
        int known = page.lastValueIndex();
        if (known >= plainSkipped && known <= target && page.lastValueStart() <= end - 4) {
            p = page.lastValueStart();
            n = target - known;
        } else if (page.keepsStarts() && target >= PlainStarts.EVERY) {
            PlainStarts starts = page.starts();
            if (starts == null) {
                starts = PlainStarts.build(page.data(), plainFirst, end, page.valueCount());
                if (starts != null) {
                    page.starts(starts);
                }
            }
            int block = starts == null ? -1 : starts.blockAtOrBefore(target);
            if (block >= 0 && block * PlainStarts.EVERY > plainSkipped) {
                p = starts.start(block);
                n = target - block * PlainStarts.EVERY;
            }
        }
        plainSkipped = target;
        for (int i = 0; i < n; i++) {
            if (p + 4 > end) {
                throw new IOException("PLAIN value " + i + " of a skip runs past the page");
            }
            int length = (int) LittleEndian.INT.get(data, p);
            if (length < 0 || length > end - p - 4) {
                throw new IOException("PLAIN value " + i + " has length " + length);
            }
            p += 4 + length;
        }
        plainNext = p;
        values.initFromPage(
                rows, ByteBufferInputStream.wrap(ByteBuffer.wrap(data, p, end - p).slice()));
    }
}
