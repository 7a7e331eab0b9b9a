package dev.parquetlookup.engine;

import dev.parquetlookup.metadata.KeySearch;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.RowGroupInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Owns the decoded keys of one page of a sort-key column: the non-null keys in comparable form with
 * their row positions, and the binary searches over them. Sorted order is checked while decoding:
 * an unsorted page is an error, never a wrong answer.
 */
final class KeyPage {
    private final KeyType type;

    /** Page row of each key, or null when every row has one (key i is row i). */
    @Nullable private final int[] rows;

    @Nullable private final long[] longs;
    @Nullable private final Object[] objects;
    private final int size;

    private KeyPage(KeyType type, @Nullable int[] rows, long[] longs, Object[] objects, int size) {
        this.type = type;
        this.rows = rows;
        this.longs = longs;
        this.objects = objects;
        this.size = size;
    }

    /**
     * Decodes a key page. {@code dictionary} is the chunk's dictionary when the page is
     * dictionary-encoded, else null; {@code errors} makes the error of an unsorted page.
     */
    static KeyPage decode(
            LoadedPage loaded,
            ColumnDescriptor column,
            KeyType type,
            @Nullable Dictionary dictionary,
            FileErrors errors,
            RowGroupInfo rg,
            int keyIndex)
            throws IOException {
        DataPage page = loaded.page;
        int n = page.valueCount();
        boolean int32 =
                column.getPrimitiveType().getPrimitiveTypeName()
                        == PrimitiveType.PrimitiveTypeName.INT32;
        if (type.kind() == KeyType.Kind.LONG
                && page.valueEncoding() == Encoding.PLAIN
                && column.getMaxDefinitionLevel() == 0
                && !page.v2()) {
            return plainLongs(loaded, type, int32, errors, rg, keyIndex);
        }
        PageCursor cursor = new PageCursor(page, column, dictionary);
        int[] rows = new int[n];
        long[] longs = type.kind() == KeyType.Kind.LONG ? new long[n] : null;
        Object[] objects = longs == null ? new Object[n] : null;
        ValuesReader values = cursor.values();
        int size = 0;
        for (int r = 0; r < n; r++) {
            if (cursor.isNextNull()) {
                continue;
            }
            rows[size] = r;
            if (longs != null) {
                long v = int32 ? values.readInteger() : values.readLong();
                if (keyIndex == 0 && size > 0 && v < longs[size - 1]) {
                    throw errors.unsortedPage(rg, keyIndex, loaded.pageNumber, longs[size - 1], v);
                }
                longs[size] = v;
            } else {
                byte[] bytes = values.readBytes().getBytes();
                Object v = type.kind() == KeyType.Kind.BIG_INTEGER ? new BigInteger(bytes) : bytes;
                if (keyIndex == 0 && size > 0 && type.compare(objects[size - 1], v) > 0) {
                    throw errors.unsortedPage(
                            rg, keyIndex, loaded.pageNumber, objects[size - 1], v);
                }
                objects[size] = v;
            }
            size++;
        }
        // Only the leading key is checked: later ones are sorted within runs of equal leads.
        return new KeyPage(type, rows, longs, objects, size);
    }

    /** Required PLAIN INT32/INT64 keys: read straight from the page bytes. */
    private static KeyPage plainLongs(
            LoadedPage loaded,
            KeyType type,
            boolean int32,
            FileErrors errors,
            RowGroupInfo rg,
            int keyIndex) {
        DataPage page = loaded.page;
        int n = page.valueCount();
        ByteBuffer data = ByteBuffer.wrap(page.data()).order(ByteOrder.LITTLE_ENDIAN);
        long[] longs = new long[n];
        for (int r = 0; r < n; r++) {
            long v = int32 ? data.getInt(r << 2) : data.getLong(r << 3);
            if (keyIndex == 0 && r > 0 && v < longs[r - 1]) {
                throw errors.unsortedPage(rg, keyIndex, loaded.pageNumber, longs[r - 1], v);
            }
            longs[r] = v;
        }
        return new KeyPage(type, null, longs, null, n);
    }

    int size() {
        return size;
    }

    int row(int i) {
        return rows == null ? i : rows[i];
    }

    Object key(int i) {
        return longs != null ? (Object) longs[i] : objects[i];
    }

    /** First index whose key is at least {@code key}. */
    int lowerBound(Object key) {
        return longs != null
                ? KeySearch.firstAbove(longs, size, (Long) key, false)
                : KeySearch.firstAbove(objects, size, key, false, type);
    }

    /** First index whose key is above {@code key}. */
    int upperBound(Object key) {
        return longs != null
                ? KeySearch.firstAbove(longs, size, (Long) key, true)
                : KeySearch.firstAbove(objects, size, key, true, type);
    }
}
