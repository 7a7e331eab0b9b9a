package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Owns the sort buffer's rows as columns: each fixed-width column in one {@code long[]} (booleans,
 * ints, longs, float and double bits), each binary column in one {@code byte[]} with end offsets,
 * nulls in one {@code boolean[]} per nullable column. A million rows are a handful of arrays
 * instead of millions of long-lived row arrays and boxed values (what made {@code prepare}'s
 * garbage collector copy them between generations and its walk over the sorted rows miss the
 * cache).
 *
 * <p>Rows go in as prepared rows ({@link RowLayout#prepare}) and come out as equal prepared rows,
 * in the stable key order of {@link RowLayout#compareKeys} ({@link #sortedOrder}). Binary values
 * come out as slices of the column's bytes: the buffer must not be {@link #clear}ed while they are
 * in use.
 */
final class ColumnarRows {

    /** A binary column's bytes stay below this; the sort spills before. */
    static final int MAX_BINARY_BYTES = 1 << 30;

    private static final int INITIAL_ROWS = 1024;

    private final RowLayout layout;
    private final PrimitiveTypeName[] physical;
    private final boolean[] binary;
    private final long[][] fixed;
    private final byte[][] bytes;
    private final int[][] ends;
    private final int[] byteCount;
    private final boolean[][] nulls;
    private final int[] keys;
    private int size;
    private long heapBytes;

    ColumnarRows(RowLayout layout) {
        this.layout = layout;
        int n = layout.columns().size();
        physical = new PrimitiveTypeName[n];
        binary = new boolean[n];
        fixed = new long[n][];
        bytes = new byte[n][];
        ends = new int[n][];
        byteCount = new int[n];
        nulls = new boolean[n][];
        keys = layout.keyIndexes();
        for (int i = 0; i < n; i++) {
            physical[i] = layout.storedType(i);
            binary[i] =
                    switch (physical[i]) {
                        case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> true;
                        default -> false;
                    };
            if (binary[i]) {
                bytes[i] = new byte[INITIAL_ROWS * 8];
                ends[i] = new int[INITIAL_ROWS];
            } else {
                fixed[i] = new long[INITIAL_ROWS];
            }
            if (layout.columns().get(i).nullable()) {
                nulls[i] = new boolean[INITIAL_ROWS];
            }
        }
    }

    int size() {
        return size;
    }

    /**
     * What the rows take on the heap, about: their values, offsets and null flags, plus the sort's
     * 12 bytes a row.
     */
    long heapBytes() {
        return heapBytes;
    }

    /** Whether a binary column is near the most one array holds: spill before adding more. */
    boolean binaryNearlyFull() {
        for (int count : byteCount) {
            if (count >= MAX_BINARY_BYTES) {
                return true;
            }
        }
        return false;
    }

    /** Appends one prepared row. */
    void add(Object[] row) {
        if (size == capacity()) {
            grow();
        }
        long rowBytes = 12;
        for (int c = 0; c < row.length; c++) {
            Object v = row[c];
            if (nulls[c] != null) {
                nulls[c][size] = v == null;
                rowBytes++;
            }
            if (binary[c]) {
                int start = byteCount[c];
                if (v != null) {
                    Binary b = (Binary) v;
                    int len = b.length();
                    if (start + len > bytes[c].length) {
                        long want = Math.max((long) start + len, bytes[c].length * 3L / 2);
                        bytes[c] = Arrays.copyOf(bytes[c], (int) Math.min(want, Integer.MAX_VALUE));
                    }
                    b.toByteBuffer().get(bytes[c], start, len);
                    byteCount[c] = start + len;
                    rowBytes += len;
                }
                ends[c][size] = byteCount[c];
                rowBytes += 4;
            } else {
                fixed[c][size] = v == null ? 0 : bits(physical[c], v);
                rowBytes += 8;
            }
        }
        heapBytes += rowBytes;
        size++;
    }

    private static long bits(PrimitiveTypeName type, Object v) {
        return switch (type) {
            case BOOLEAN -> (Boolean) v ? 1 : 0;
            case INT32 -> (Integer) v;
            case INT64 -> (Long) v;
            case FLOAT -> Float.floatToRawIntBits((Float) v);
            case DOUBLE -> Double.doubleToRawLongBits((Double) v);
            default -> throw new IllegalStateException(type.toString());
        };
    }

    private int capacity() {
        int c = 0;
        return binary[c] ? ends[c].length : fixed[c].length;
    }

    private void grow() {
        int cap = capacity() + (capacity() >> 1) + 1;
        for (int c = 0; c < physical.length; c++) {
            if (binary[c]) {
                ends[c] = Arrays.copyOf(ends[c], cap);
            } else {
                fixed[c] = Arrays.copyOf(fixed[c], cap);
            }
            if (nulls[c] != null) {
                nulls[c] = Arrays.copyOf(nulls[c], cap);
            }
        }
    }

    /** Row {@code i} as a prepared row (binary values are slices of this buffer). */
    Object[] row(int i) {
        Object[] row = new Object[physical.length];
        for (int c = 0; c < row.length; c++) {
            if (nulls[c] != null && nulls[c][i]) {
                continue;
            }
            if (binary[c]) {
                int start = i == 0 ? 0 : ends[c][i - 1];
                row[c] = Binary.fromConstantByteArray(bytes[c], start, ends[c][i] - start);
            } else {
                long x = fixed[c][i];
                row[c] =
                        switch (physical[c]) {
                            case BOOLEAN -> x != 0;
                            case INT32 -> (int) x;
                            case INT64 -> x;
                            case FLOAT -> Float.intBitsToFloat((int) x);
                            case DOUBLE -> Double.longBitsToDouble(x);
                            default -> throw new IllegalStateException(physical[c].toString());
                        };
            }
        }
        return row;
    }

    /**
     * The rows' positions in key order, stably (equal keys keep their input order): a radix sort
     * for one integer key column ({@link LongKeySort}), else a stable merge sort comparing the key
     * columns in place.
     */
    int[] sortedOrder() {
        if (keys.length == 1 && !binary[keys[0]]) {
            return LongKeySort.order(fixed[keys[0]], nulls[keys[0]], size);
        }
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Comparator<Integer> byKey = (a, b) -> compareKeys(a, b);
        Arrays.parallelSort(order, byKey);
        int[] result = new int[size];
        for (int i = 0; i < size; i++) {
            result[i] = order[i];
        }
        return result;
    }

    /** {@link RowLayout#compareKeys} of rows {@code a} and {@code b}, read in place. */
    private int compareKeys(int a, int b) {
        for (int c : keys) {
            int r = compareValue(c, a, b);
            if (r != 0) {
                return r;
            }
        }
        return 0;
    }

    private int compareValue(int c, int a, int b) {
        if (nulls[c] != null) {
            boolean na = nulls[c][a];
            boolean nb = nulls[c][b];
            if (na || nb) {
                return na ? (nb ? 0 : -1) : 1;
            }
        }
        if (!binary[c]) {
            return Long.compare(fixed[c][a], fixed[c][b]);
        }
        int[] e = ends[c];
        int sa = a == 0 ? 0 : e[a - 1];
        int sb = b == 0 ? 0 : e[b - 1];
        byte[] data = bytes[c];
        if (layout.columns().get(c).type().kind() == ValueType.Kind.DECIMAL) {
            return new BigInteger(data, sa, e[a] - sa)
                    .compareTo(new BigInteger(data, sb, e[b] - sb));
        }
        return Arrays.compareUnsigned(data, sa, e[a], data, sb, e[b]);
    }

    /**
     * Puts the rows in {@code order} (a permutation of the rows, as {@link #sortedOrder} gives),
     * one column at a time: reading them afterwards walks each array from start to end instead of
     * jumping around all of them for every row. Needs one column's arrays more while it works.
     */
    void reorder(int[] order) {
        for (int c = 0; c < physical.length; c++) {
            if (binary[c]) {
                int[] e = ends[c];
                byte[] data = bytes[c];
                byte[] newData = new byte[byteCount[c]];
                int[] newEnds = new int[e.length];
                int at = 0;
                for (int i = 0; i < size; i++) {
                    int row = order[i];
                    int start = row == 0 ? 0 : e[row - 1];
                    int len = e[row] - start;
                    System.arraycopy(data, start, newData, at, len);
                    at += len;
                    newEnds[i] = at;
                }
                bytes[c] = newData;
                ends[c] = newEnds;
            } else {
                long[] values = fixed[c];
                long[] sorted = new long[values.length];
                for (int i = 0; i < size; i++) {
                    sorted[i] = values[order[i]];
                }
                fixed[c] = sorted;
            }
            if (nulls[c] != null) {
                boolean[] n = nulls[c];
                boolean[] sorted = new boolean[n.length];
                for (int i = 0; i < size; i++) {
                    sorted[i] = n[order[i]];
                }
                nulls[c] = sorted;
            }
        }
    }

    /** Forgets the rows, keeping the arrays for the next ones. */
    void clear() {
        size = 0;
        heapBytes = 0;
        Arrays.fill(byteCount, 0);
    }
}
