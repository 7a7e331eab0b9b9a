package dev.parquetlookup.engine.index;

import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads one flat key column of one row group page by page, through parquet-java's page reader,
 * level and value decoders (not the engine's page decoder), and gives each row its key part: the
 * value of an integer column, {@link KeyCodes#bytesPart} of a string or binary, {@link
 * KeyCodes#bigIntegerPart} of a binary decimal. Strings of PLAIN pages are hashed straight from the
 * page buffer (no object per value); a dictionary's entries are hashed once per column chunk. Not
 * thread-safe.
 */
final class KeyColumnReader {

    private final PageReader pages;
    private final ColumnDescriptor column;
    private final KeyType type;
    private final int maxDefinition;
    private final boolean int32;
    private final int fixedLength;
    private Dictionary dictionary;

    /** The key part of each entry of the column chunk's dictionary, computed once. */
    private long[] partsOfDictionary;

    /** Values left in the current page. */
    private int left;

    private ValuesReader definitionV1;
    private RunLengthBitPackingHybridDecoder definitionV2;

    /** The current page's values: dictionary ids, or PLAIN strings in {@link #plain}, or else. */
    private ValuesReader values;

    /** The parts of the dictionary when the current page is dictionary-encoded, else null. */
    private long[] pageDictionary;

    private ByteBuffer plain;
    private int plainAt;

    KeyColumnReader(PageReader pages, ColumnDescriptor column, KeyType type, long rows)
            throws IOException {
        if (column.getMaxRepetitionLevel() > 0) {
            throw new IOException("key column " + column + " is repeated");
        }
        if (pages.getTotalValueCount() != rows) {
            throw new IOException(
                    "key column "
                            + column
                            + " has "
                            + pages.getTotalValueCount()
                            + " values in a row group of "
                            + rows
                            + " rows");
        }
        this.pages = pages;
        this.column = column;
        this.type = type;
        this.maxDefinition = column.getMaxDefinitionLevel();
        PrimitiveTypeName primitive = column.getPrimitiveType().getPrimitiveTypeName();
        this.int32 = primitive == PrimitiveTypeName.INT32;
        this.fixedLength =
                primitive == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                        ? column.getPrimitiveType().getTypeLength()
                        : -1;
        DictionaryPage page = pages.readDictionaryPage();
        if (page != null) {
            dictionary = page.getEncoding().initDictionary(column, page);
        }
    }

    /**
     * Reads the next {@code n} rows: {@code present[i]} whether row {@code i}'s value is not NULL,
     * and then {@code parts[i]} its key part.
     */
    void read(long[] parts, boolean[] present, int n) throws IOException {
        int done = 0;
        while (done < n) {
            if (left == 0) {
                nextPage();
            }
            int end = done + Math.min(n - done, left);
            for (int i = done; i < end; i++) {
                boolean value = maxDefinition == 0 || level() == maxDefinition;
                present[i] = value;
                if (value) {
                    parts[i] = part();
                }
            }
            left -= end - done;
            done = end;
        }
    }

    private int level() throws IOException {
        return definitionV1 != null ? definitionV1.readInteger() : definitionV2.readInt();
    }

    private long part() {
        if (plain != null) {
            int length = fixedLength;
            if (length < 0) {
                length = plain.getInt(plainAt);
                plainAt += 4;
            }
            long part = KeyCodes.hash(plain, plainAt, length);
            plainAt += length;
            return part;
        }
        if (pageDictionary != null) {
            return pageDictionary[values.readValueDictionaryId()];
        }
        switch (type.kind()) {
            case LONG:
                return int32 ? values.readInteger() : values.readLong();
            case BYTES:
                return KeyCodes.bytesPart(values.readBytes());
            default:
                return KeyCodes.bigIntegerPart(values.readBytes());
        }
    }

    private void nextPage() throws IOException {
        DataPage page = pages.readPage();
        if (page == null) {
            throw new IOException("key column " + column + " ends before its row group");
        }
        left = page.getValueCount();
        plain = null;
        pageDictionary = null;
        definitionV1 = null;
        definitionV2 = null;
        Encoding encoding;
        ByteBufferInputStream in;
        if (page instanceof DataPageV1 v1) {
            in = v1.getBytes().toInputStream();
            v1.getRlEncoding()
                    .getValuesReader(column, ValuesType.REPETITION_LEVEL)
                    .initFromPage(left, in);
            if (maxDefinition > 0) {
                definitionV1 =
                        v1.getDlEncoding().getValuesReader(column, ValuesType.DEFINITION_LEVEL);
                definitionV1.initFromPage(left, in);
            } else {
                v1.getDlEncoding()
                        .getValuesReader(column, ValuesType.DEFINITION_LEVEL)
                        .initFromPage(left, in);
            }
            encoding = v1.getValueEncoding();
        } else {
            DataPageV2 v2 = (DataPageV2) page;
            if (maxDefinition > 0) {
                definitionV2 =
                        new RunLengthBitPackingHybridDecoder(
                                BytesUtils.getWidthFromMaxInt(maxDefinition),
                                v2.getDefinitionLevels().toInputStream());
            }
            in = v2.getData().toInputStream();
            encoding = v2.getDataEncoding();
        }
        if (encoding.usesDictionary()) {
            if (dictionary == null) {
                throw new IOException(
                        "key column "
                                + column
                                + " has a dictionary-encoded page but no dictionary");
            }
            values = encoding.getDictionaryBasedValuesReader(column, ValuesType.VALUES, dictionary);
            values.initFromPage(left, in);
            pageDictionary = dictionaryParts();
        } else if (encoding == Encoding.PLAIN && type.kind() == KeyType.Kind.BYTES) {
            ByteBuffer bytes = in.slice(in.available());
            plain = bytes.order(ByteOrder.LITTLE_ENDIAN);
            plainAt = bytes.position();
        } else {
            values = encoding.getValuesReader(column, ValuesType.VALUES);
            values.initFromPage(left, in);
        }
    }

    private long[] dictionaryParts() {
        if (partsOfDictionary == null) {
            long[] parts = new long[dictionary.getMaxId() + 1];
            for (int id = 0; id < parts.length; id++) {
                switch (type.kind()) {
                    case LONG:
                        parts[id] =
                                int32 ? dictionary.decodeToInt(id) : dictionary.decodeToLong(id);
                        break;
                    case BYTES:
                        parts[id] = KeyCodes.bytesPart(dictionary.decodeToBinary(id));
                        break;
                    default:
                        parts[id] = KeyCodes.bigIntegerPart(dictionary.decodeToBinary(id));
                }
            }
            partsOfDictionary = parts;
        }
        return partsOfDictionary;
    }
}
