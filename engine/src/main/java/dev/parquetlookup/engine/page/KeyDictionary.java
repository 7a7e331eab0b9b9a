package dev.parquetlookup.engine.page;

import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Owns the dictionary of a sort-key column chunk in comparable form ({@link KeyType}), built once
 * per dictionary (and cached with it): each id's value and its <em>rank</em>, the position of the
 * value among the dictionary's distinct values in key order. A dictionary-encoded key page is then
 * searched over the ranks of its ids (ints), without materialising a value per row: a key becomes a
 * rank range by one binary search in the dictionary.
 *
 * <p>Example: dictionary {@code [30, 10, 20]} has ranks {@code [2, 0, 1]}; the key 20 spans ranks
 * {@code [1, 2)}, the key 15 the empty range {@code [1, 1)}. Writers that fill the dictionary in
 * first-appearance order over sorted rows give ascending dictionaries, where the rank is the id.
 * Immutable and thread-safe.
 */
public final class KeyDictionary {

    private final KeyType type;
    private final int size;

    /** Distinct values in key order (index = rank). */
    @Nullable private final long[] sortedLongs;

    @Nullable private final Object[] sortedObjects;
    private final int distinct;

    /** Rank of each id, or null when the dictionary is strictly ascending (rank = id). */
    @Nullable private final int[] rank;

    private KeyDictionary(
            KeyType type,
            int size,
            @Nullable long[] sortedLongs,
            @Nullable Object[] sortedObjects,
            int distinct,
            @Nullable int[] rank) {
        this.type = type;
        this.size = size;
        this.sortedLongs = sortedLongs;
        this.sortedObjects = sortedObjects;
        this.distinct = distinct;
        this.rank = rank;
    }

    /** The comparable form of a decoded dictionary of a key column of {@code type}. */
    public static KeyDictionary of(Dictionary dictionary, KeyType type) {
        int size = dictionary.getMaxId() + 1;
        if (type.kind() == KeyType.Kind.LONG) {
            boolean int32 =
                    type.type().getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32;
            long[] values = new long[size];
            for (int id = 0; id < size; id++) {
                values[id] = int32 ? dictionary.decodeToInt(id) : dictionary.decodeToLong(id);
            }
            return ofLongs(type, values);
        }
        Object[] values = new Object[size];
        for (int id = 0; id < size; id++) {
            byte[] bytes = dictionary.decodeToBinary(id).getBytes();
            values[id] = type.kind() == KeyType.Kind.BIG_INTEGER ? new BigInteger(bytes) : bytes;
        }
        return ofObjects(type, values);
    }

    /**
     * The comparable form of a dictionary page's PLAIN values ({@code count} of them in {@code
     * data}), read straight from the bytes: no parquet-java dictionary is built on the way.
     */
    public static KeyDictionary ofPlain(byte[] data, int count, KeyType type) throws IOException {
        PrimitiveType primitive = type.type();
        int p = 0;
        if (type.kind() == KeyType.Kind.LONG) {
            boolean int32 =
                    primitive.getPrimitiveTypeName() == PrimitiveType.PrimitiveTypeName.INT32;
            int width = int32 ? 4 : 8;
            if ((long) count * width > data.length) {
                throw new IOException(
                        "dictionary of " + data.length + " bytes is too short for " + count);
            }
            long[] values = new long[count];
            for (int id = 0; id < count; id++) {
                values[id] =
                        int32
                                ? (int) LittleEndian.INT.get(data, id << 2)
                                : (long) LittleEndian.LONG.get(data, id << 3);
            }
            return ofLongs(type, values);
        }
        boolean fixed =
                primitive.getPrimitiveTypeName()
                        == PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
        Object[] values = new Object[count];
        for (int id = 0; id < count; id++) {
            int length;
            if (fixed) {
                length = primitive.getTypeLength();
            } else {
                if (p + 4 > data.length) {
                    throw new IOException("dictionary value " + id + " runs past the page");
                }
                length = (int) LittleEndian.INT.get(data, p);
                p += 4;
            }
            if (length < 0 || length > data.length - p) {
                throw new IOException("dictionary value " + id + " runs past the page");
            }
            byte[] bytes = java.util.Arrays.copyOfRange(data, p, p + length);
            p += length;
            values[id] = type.kind() == KeyType.Kind.BIG_INTEGER ? new BigInteger(bytes) : bytes;
        }
        return ofObjects(type, values);
    }

    private static KeyDictionary ofLongs(KeyType type, long[] values) {
        int size = values.length;
        boolean ascending = true;
        for (int i = 1; i < size && ascending; i++) {
            ascending = values[i - 1] < values[i];
        }
        if (ascending) {
            return new KeyDictionary(type, size, values, null, size, null);
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < size; i++) {
            if (distinct == 0 || sorted[distinct - 1] != sorted[i]) {
                sorted[distinct++] = sorted[i];
            }
        }
        int[] rank = new int[size];
        for (int id = 0; id < size; id++) {
            rank[id] = KeyRanges.firstAbove(sorted, distinct, values[id], false);
        }
        return new KeyDictionary(type, size, Arrays.copyOf(sorted, distinct), null, distinct, rank);
    }

    private static KeyDictionary ofObjects(KeyType type, Object[] values) {
        int size = values.length;
        boolean ascending = true;
        for (int i = 1; i < size && ascending; i++) {
            ascending = type.compare(values[i - 1], values[i]) < 0;
        }
        if (ascending) {
            return new KeyDictionary(type, size, null, values, size, null);
        }
        Object[] sorted = values.clone();
        Arrays.sort(sorted, type::compare);
        int distinct = 0;
        for (int i = 0; i < size; i++) {
            if (distinct == 0 || type.compare(sorted[distinct - 1], sorted[i]) != 0) {
                sorted[distinct++] = sorted[i];
            }
        }
        int[] rank = new int[size];
        for (int id = 0; id < size; id++) {
            rank[id] = KeyRanges.firstAbove(sorted, distinct, values[id], false, type);
        }
        return new KeyDictionary(type, size, null, Arrays.copyOf(sorted, distinct), distinct, rank);
    }

    /** Ids in the dictionary: a page's id must be below. */
    int size() {
        return size;
    }

    /** The rank of id {@code id} (which must be below {@link #size()}). */
    int rank(int id) {
        return rank == null ? id : rank[id];
    }

    /** The value of rank {@code r}, in comparable form (shared: callers must not change it). */
    Object value(int r) {
        return sortedLongs != null ? (Object) sortedLongs[r] : sortedObjects[r];
    }

    /** First rank whose value is at least ({@code strict}: above) {@code key}. */
    int firstRankAbove(Object key, boolean strict) {
        return sortedLongs != null
                ? KeyRanges.firstAbove(sortedLongs, distinct, (Long) key, strict)
                : KeyRanges.firstAbove(sortedObjects, distinct, key, strict, type);
    }

    /** Heap bytes, for the page cache's weigher. */
    public int retainedBytes() {
        long bytes = 64L + (rank == null ? 0 : 4L * size);
        if (sortedLongs != null) {
            bytes += 8L * distinct;
        } else {
            for (int i = 0; i < distinct; i++) {
                Object v = sortedObjects[i];
                bytes +=
                        v instanceof byte[] b
                                ? 24L + b.length
                                : 48L + ((BigInteger) v).bitLength() / 8;
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, bytes);
    }
}
