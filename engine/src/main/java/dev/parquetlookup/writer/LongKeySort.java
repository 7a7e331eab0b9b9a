package dev.parquetlookup.writer;

import java.util.Arrays;

/**
 * A stable sort of prepared rows by one integer key column (Integer or Long values, nulls first),
 * as an LSD radix sort of the keys with the row positions as payload: each row's key is read once,
 * where a comparison sort chases two row pointers per comparison, about 20 times per row for a
 * million rows (the cache misses were most of {@code prepare}'s sort time).
 *
 * <p>Example: keys {@code [5, null, -1, 5]} (rows a, b, c, d) sort to rows {@code b, c, a, d}: null
 * first, equal keys in input order (the order {@link RowLayout#compareKeys} gives).
 */
final class LongKeySort {

    private LongKeySort() {}

    /**
     * Sorts {@code rows} in place by {@code rows[i][column]}, or returns false (leaving {@code
     * rows} as they were) when a key is neither Integer, Long nor null.
     */
    static boolean sort(Object[][] rows, int column) {
        int n = rows.length;
        long[] keys = new long[n];
        boolean[] nulls = new boolean[n];
        for (int i = 0; i < n; i++) {
            Object v = rows[i][column];
            if (v == null) {
                nulls[i] = true;
            } else if (v instanceof Long || v instanceof Integer) {
                keys[i] = ((Number) v).longValue();
            } else {
                return false;
            }
        }
        int[] order = order(keys, nulls, n);
        Object[][] sorted = new Object[n][];
        for (int i = 0; i < n; i++) {
            sorted[i] = rows[order[i]];
        }
        System.arraycopy(sorted, 0, rows, 0, n);
        return true;
    }

    /**
     * The stable order of the first {@code n} keys (signed), nulls first: position {@code i} of the
     * result is the index of the {@code i}-th smallest key.
     *
     * @param nulls which keys are null, or null when none is
     */
    static int[] order(long[] values, boolean[] nulls, int n) {
        int nullCount = 0;
        if (nulls != null) {
            for (int i = 0; i < n; i++) {
                if (nulls[i]) {
                    nullCount++;
                }
            }
        }
        // Nulls first in input order, then the keyed rows, flipped sign bit: unsigned order.
        int m = n - nullCount;
        long[] keys = new long[m];
        int[] order = new int[m];
        int[] result = new int[n];
        int nullAt = 0;
        int keyAt = 0;
        long all = -1L; // bits set in every key
        long any = 0; // bits set in some key
        for (int i = 0; i < n; i++) {
            if (nulls != null && nulls[i]) {
                result[nullAt++] = i;
            } else {
                long k = values[i] ^ Long.MIN_VALUE;
                keys[keyAt] = k;
                order[keyAt++] = i;
                all &= k;
                any |= k;
            }
        }
        long[] keysTmp = new long[m];
        int[] orderTmp = new int[m];
        int[] counts = new int[256];
        long varying = m == 0 ? 0 : any ^ all; // bits that differ between keys
        for (int shift = 0; shift < 64; shift += 8) {
            if (((varying >>> shift) & 0xFF) == 0) {
                continue; // every key has the same byte here: the pass would not move anything
            }
            Arrays.fill(counts, 0);
            for (int i = 0; i < m; i++) {
                counts[(int) (keys[i] >>> shift) & 0xFF]++;
            }
            int sum = 0;
            for (int b = 0; b < 256; b++) {
                int c = counts[b];
                counts[b] = sum;
                sum += c;
            }
            for (int i = 0; i < m; i++) {
                int dest = counts[(int) (keys[i] >>> shift) & 0xFF]++;
                keysTmp[dest] = keys[i];
                orderTmp[dest] = order[i];
            }
            long[] k = keys;
            keys = keysTmp;
            keysTmp = k;
            int[] o = order;
            order = orderTmp;
            orderTmp = o;
        }
        System.arraycopy(order, 0, result, nullCount, m);
        return result;
    }
}
