package dev.parquetlookup.metadata;

/**
 * Binary search over ascending keys, shared by page bounds and decoded key pages.
 *
 * <p>{@code firstAbove(a, n, k, false)} is the first index whose key is at least {@code k} (a lower
 * bound); with {@code strict} it is the first index whose key is above {@code k} (an upper bound).
 * Example: over {@code [1, 4, 4, 9]} key 4 gives 1 and, strictly, 3.
 */
public final class KeySearch {

    private KeySearch() {}

    /** Over the first {@code size} primitive keys. */
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

    /** Over the first {@code size} keys in {@code type}'s comparable form. */
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
