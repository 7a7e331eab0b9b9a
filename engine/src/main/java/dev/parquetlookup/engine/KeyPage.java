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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
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

    /**
     * Required PLAIN INT32/INT64 keys are searched in the page's bytes (little-endian) instead of
     * being copied into {@link #longs}: a lookup reads about log2(rows) of them.
     */
    @Nullable private final byte[] plain;

    private final boolean plainInt32;
    private final int size;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyPage(KeyType type, @Nullable int[] rows, long[] longs, Object[] objects, int size) {
        this.type = type;
        this.rows = rows;
        this.longs = longs;
        this.objects = objects;
        this.plain = null;
        this.plainInt32 = false;
        this.size = size;
    }

    private KeyPage(KeyType type, byte[] plain, boolean int32, int size) {
        this.type = type;
        this.rows = null;
        this.longs = null;
        this.objects = null;
        this.plain = plain;
        this.plainInt32 = int32;
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
        int n = page.rowsAvailable(); // a prefix when the rows after it are not asked for
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

    /**
     * Required PLAIN INT32/INT64 keys: searched straight in the page bytes, after one pass that
     * checks the leading key's order (no copy).
     */
    private static KeyPage plainLongs(
            LoadedPage loaded,
            KeyType type,
            boolean int32,
            FileErrors errors,
            RowGroupInfo rg,
            int keyIndex)
            throws IOException {
        DataPage page = loaded.page;
        int n = page.rowsAvailable();
        byte[] data = page.data();
        if ((long) n << (int32 ? 2 : 3) > page.length()) {
            throw new IOException(
                    "PLAIN page of " + page.length() + " bytes is too short for " + n + " keys");
        }
        if (keyIndex == 0 && n > 1) {
            long previous = read(data, int32, 0);
            for (int r = 1; r < n; r++) {
                long v = read(data, int32, r);
                if (v < previous) {
                    throw errors.unsortedPage(rg, keyIndex, loaded.pageNumber, previous, v);
                }
                previous = v;
            }
        }
        return new KeyPage(type, data, int32, n);
    }

    private static long read(byte[] data, boolean int32, int i) {
        return int32 ? (int) INT_LE.get(data, i << 2) : (long) LONG_LE.get(data, i << 3);
    }

    /** Like {@link KeySearch#firstAbove(long[], int, long, boolean)} over the page bytes. */
    private int plainFirstAbove(long key, boolean strict) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            long v = read(plain, plainInt32, mid);
            if (v < key || (strict && v == key)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    int size() {
        return size;
    }

    int row(int i) {
        return rows == null ? i : rows[i];
    }

    Object key(int i) {
        if (plain != null) {
            return read(plain, plainInt32, i);
        }
        return longs != null ? (Object) longs[i] : objects[i];
    }

    /** First index whose key is at least {@code key}. */
    int lowerBound(Object key) {
        if (plain != null) {
            return plainFirstAbove((Long) key, false);
        }
        return longs != null
                ? KeySearch.firstAbove(longs, size, (Long) key, false)
                : KeySearch.firstAbove(objects, size, key, false, type);
    }

    /** First index whose key is above {@code key}. */
    int upperBound(Object key) {
        if (plain != null) {
            return plainFirstAbove((Long) key, true);
        }
        return longs != null
                ? KeySearch.firstAbove(longs, size, (Long) key, true)
                : KeySearch.firstAbove(objects, size, key, true, type);
    }
}
