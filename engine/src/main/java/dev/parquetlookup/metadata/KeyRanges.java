package dev.parquetlookup.metadata;

import java.util.List;

/**
 * The min/max key of a sequence of pages (or row groups) of one sort-key column, decoded once into
 * arrays, with binary searches over them; {@link #firstAbove} is the binary search over ascending
 * keys that key pages and dictionaries use too.
 *
 * <p>Entries without bounds (all-null pages, missing statistics) are kept out of the arrays; {@link
 * #entry(int)} maps back to the page number. For {@link KeyType.Kind#LONG} keys the bounds are
 * primitive {@code long[]} and the searches allocate nothing.
 *
 * <p>Example: pages with bounds [1,4] [4,9] [12,20] answer {@code firstWithMaxAtLeast(4) == 0},
 * {@code lastWithMinAtMost(4) == 1} (key 4 may be in pages 0 and 1), and for key 10 {@code 2 > 1}:
 * no page can hold it.
 */
public final class KeyRanges {

    private final KeyType type;
    private final int[] entries;
    private final long[] minLong;
    private final long[] maxLong;
    private final Object[] min;
    private final Object[] max;

    private KeyRanges(
            KeyType type,
            int[] entries,
            long[] minLong,
            long[] maxLong,
            Object[] min,
            Object[] max) {
        this.type = type;
        this.entries = entries;
        this.minLong = minLong;
        this.maxLong = maxLong;
        this.min = min;
        this.max = max;
    }

    /**
     * Builds ranges from decoded bounds; a {@code null} bound marks an entry without bounds.
     *
     * @param mins per entry, the comparable minimum or {@code null}
     * @param maxs per entry, the comparable maximum or {@code null}
     */
    public static KeyRanges of(KeyType type, List<Object> mins, List<Object> maxs) {
        int n = 0;
        for (int i = 0; i < mins.size(); i++) {
            if (mins.get(i) != null && maxs.get(i) != null) {
                n++;
            }
        }
        int[] entries = new int[n];
        boolean primitive = type.kind() == KeyType.Kind.LONG;
        long[] minLong = primitive ? new long[n] : null;
        long[] maxLong = primitive ? new long[n] : null;
        Object[] min = primitive ? null : new Object[n];
        Object[] max = primitive ? null : new Object[n];
        int j = 0;
        for (int i = 0; i < mins.size(); i++) {
            if (mins.get(i) == null || maxs.get(i) == null) {
                continue;
            }
            entries[j] = i;
            if (primitive) {
                minLong[j] = (Long) mins.get(i);
                maxLong[j] = (Long) maxs.get(i);
            } else {
                min[j] = mins.get(i);
                max[j] = maxs.get(i);
            }
            j++;
        }
        return new KeyRanges(type, entries, minLong, maxLong, min, max);
    }

    public KeyType type() {
        return type;
    }

    /** Number of entries with bounds. */
    public int size() {
        return entries.length;
    }

    /** The page (or row group) number of entry {@code i}. */
    public int entry(int i) {
        return entries[i];
    }

    public Object min(int i) {
        return minLong != null ? (Object) minLong[i] : min[i];
    }

    public Object max(int i) {
        return maxLong != null ? (Object) maxLong[i] : max[i];
    }

    /** First entry whose max is at least {@code key}, or {@link #size()} if none. */
    public int firstWithMaxAtLeast(Object key) {
        return maxLong != null
                ? firstAbove(maxLong, entries.length, (Long) key, false)
                : firstAbove(max, entries.length, key, false, type);
    }

    /** Last entry whose min is at most {@code key}, or -1 if none. */
    public int lastWithMinAtMost(Object key) {
        return (minLong != null
                        ? firstAbove(minLong, entries.length, (Long) key, true)
                        : firstAbove(min, entries.length, key, true, type))
                - 1;
    }

    /** Whether entry {@code i}'s bounds contain {@code key}. */
    public boolean contains(int i, Object key) {
        if (minLong != null) {
            long k = (Long) key;
            return minLong[i] <= k && k <= maxLong[i];
        }
        return type.compare(min[i], key) <= 0 && type.compare(key, max[i]) <= 0;
    }

    /**
     * The first entry that breaks ascending order, or -1 when sorted. Entry {@code i} breaks it
     * when its min is below the previous min, or (for exact bounds) below the previous max. String
     * bounds may be truncated by the writer, so only their minimums and maximums are each required
     * not to decrease.
     */
    public int firstUnsorted() {
        boolean exact = type.kind() != KeyType.Kind.BYTES;
        for (int i = 1; i < entries.length; i++) {
            if (minLong != null) {
                if (minLong[i] < maxLong[i - 1]) {
                    return i;
                }
            } else if (type.compare(min[i], min[i - 1]) < 0
                    || type.compare(max[i], max[i - 1]) < 0
                    || (exact && type.compare(min[i], max[i - 1]) < 0)) {
                return i;
            }
        }
        return -1;
    }

    /** Approximate heap bytes held, for cache weights. */
    public long retainedBytes() {
        long bytes = 48L + 4L * entries.length;
        if (minLong != null) {
            return bytes + 16L * entries.length;
        }
        for (int i = 0; i < entries.length; i++) {
            bytes += 8 + KeyType.retainedBytes(min[i]) + 8 + KeyType.retainedBytes(max[i]);
        }
        return bytes;
    }

    // Binary search over ascending keys, shared by page bounds, decoded key pages and dictionaries.
    // firstAbove(a, n, k, false) is the first index whose key is at least k (a lower bound); with
    // strict it is the first index whose key is above k (an upper bound). Example: over
    // [1, 4, 4, 9] key 4 gives 1 and, strictly, 3.

    /**
     * First index of the first {@code size} primitive keys at least (strict: above) {@code key}.
     */
    public static int firstAbove(long[] keys, int size, long key, boolean strict) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys[mid] < key || (strict && keys[mid] == key)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * As {@link #firstAbove(long[], int, long, boolean)}, for keys in {@code type}'s comparable
     * form.
     */
    public static int firstAbove(
            Object[] keys, int size, Object key, boolean strict, KeyType type) {
        int lo = 0;
        int hi = size;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = type.compare(keys[mid], key);
            if (c < 0 || (strict && c == 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
