package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Walks the level entries of one leaf of a nested column across consecutive data pages (v1 or v2)
 * and feeds whole records to a {@link NestedRecord}. A record is the entries from one with
 * repetition level 0 up to the next; a page that starts inside a record (possible in v1 pages of
 * writers that write no OffsetIndex) continues the previous page's record. Per lookup, not
 * thread-safe.
 *
 * <p>Example: entries {@code (r0,d3,"a") (r1,d2) | (r0,d1)} over two pages are records 0 {@code
 * ["a", null]} and 1 {@code []}; {@code skipTo(1)} passes over value "a" without reading it.
 */
final class NestedLeafCursor {

    /** A stream of levels. */
    private interface Levels {
        int next() throws IOException;
    }

    private static final Levels ZERO = () -> 0;

    private final ColumnDescriptor column;
    private final ColumnTypes.ValueReader reader;
    private final NestedRecord record;
    private final int maxDefinition;
    private final int[] index;

    private List<LoadedPage> pages;
    private Dictionary[] dictionaries;
    private int page;
    private int remaining;
    private Levels repetition;
    private Levels definition;
    private ValuesReader values;

    /** Repetition level of the next entry, or -1 after the last page. */
    private int next;

    /** The record the next entry belongs to. */
    private long row;

    NestedLeafCursor(ColumnDescriptor column, ColumnTypes.ValueReader reader, NestedRecord record) {
        this.column = column;
        this.reader = reader;
        this.record = record;
        this.maxDefinition = column.getMaxDefinitionLevel();
        this.index = new int[record.maxRepetition() + 1];
    }

    /** The page the cursor is in, for messages. */
    LoadedPage currentPage() {
        return pages.get(Math.max(0, Math.min(page, pages.size() - 1)));
    }

    /**
     * Starts at the first entry of {@code pages}, which begins row {@code firstRow} of the row
     * group.
     */
    void start(List<LoadedPage> pages, Dictionary[] dictionaries, long firstRow)
            throws IOException {
        this.pages = pages;
        this.dictionaries = dictionaries;
        this.page = -1;
        this.remaining = 0;
        this.row = firstRow - 1;
        advance();
        if (next > 0) {
            throw new IOException(
                    "the page starts inside a row (repetition level "
                            + next
                            + "), though the column's page index says pages start at rows");
        }
    }

    /** Passes over the entries of the rows before {@code target}. */
    void skipTo(long target) throws IOException {
        while (row < target) {
            if (next < 0) {
                throw new IOException("the pages end before row " + target);
            }
            if (definition() == maxDefinition) {
                values.skip();
            }
            advance();
        }
    }

    /** Places the entries of the next row into {@code root[0]}. */
    void readRow(Object[] root) throws IOException {
        if (next != 0) {
            throw new IOException("the pages end before row " + (row + 1));
        }
        Arrays.fill(index, 0);
        do {
            int level = next;
            if (level > 0) {
                index[level]++;
                for (int j = level + 1; j < index.length; j++) {
                    index[j] = 0;
                }
            }
            int def = definition();
            Object value = def == maxDefinition ? reader.read(values) : null;
            record.place(root, index, def, value);
            advance();
        } while (next > 0);
    }

    private int definition() throws IOException {
        return maxDefinition == 0 ? 0 : definition.next();
    }

    private void advance() throws IOException {
        while (remaining == 0) {
            if (++page >= pages.size()) {
                next = -1;
                return;
            }
            open(pages.get(page).page, dictionaries[page]);
        }
        next = repetition.next();
        remaining--;
        if (next == 0) {
            row++;
        }
    }

    private void open(DataPage data, Dictionary dictionary) throws IOException {
        int maxRepetition = column.getMaxRepetitionLevel();
        if (maxRepetition > 0 && !data.whole()) {
            throw new IllegalStateException("a page of a repeated column was decoded in part");
        }
        int count = data.valueCount();
        // Without repetition an entry is a row, and a page may be decoded for its first rows.
        remaining = maxRepetition > 0 ? count : data.rowsAvailable();
        if (data.valueEncoding().usesDictionary()) {
            if (dictionary == null) {
                throw new IOException(
                        "page is dictionary-encoded but the column chunk has no dictionary page");
            }
            values =
                    data.valueEncoding()
                            .getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary);
        } else {
            values = data.valueEncoding().getValuesReader(column, ValuesType.VALUES);
        }
        if (data.v2()) {
            repetition =
                    maxRepetition == 0
                            ? ZERO
                            : hybrid(maxRepetition, data.data(), 0, data.definitionOffset());
            definition =
                    maxDefinition == 0
                            ? ZERO
                            : hybrid(
                                    maxDefinition,
                                    data.data(),
                                    data.definitionOffset(),
                                    data.definitionLength());
            values.initFromPage(
                    count,
                    ByteBufferInputStream.wrap(
                            ByteBuffer.wrap(
                                            data.data(),
                                            data.valuesOffset(),
                                            data.length() - data.valuesOffset())
                                    .slice()));
        } else {
            ByteBufferInputStream in =
                    ByteBufferInputStream.wrap(
                            ByteBuffer.wrap(data.data(), 0, data.length()).slice());
            repetition =
                    maxRepetition == 0 ? ZERO : v1Levels(data, ValuesType.REPETITION_LEVEL, in);
            definition =
                    maxDefinition == 0 ? ZERO : v1Levels(data, ValuesType.DEFINITION_LEVEL, in);
            values.initFromPage(count, in);
        }
    }

    private Levels v1Levels(DataPage data, ValuesType type, ByteBufferInputStream in)
            throws IOException {
        // v1 headers name both level encodings; writers use RLE (or the deprecated BIT_PACKED)
        // for both, and the page keeps the definition levels' one.
        ValuesReader levels = data.definitionEncoding().getValuesReader(column, type);
        levels.initFromPage(data.valueCount(), in);
        return levels::readInteger;
    }

    private static Levels hybrid(int max, byte[] data, int offset, int length) {
        RunLengthBitPackingHybridDecoder decoder =
                new RunLengthBitPackingHybridDecoder(
                        BytesUtils.getWidthFromMaxInt(max),
                        new ByteArrayInputStream(data, offset, length));
        return decoder::readInt;
    }
}
