package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.ScratchBuffers.Scratch;

import org.apache.parquet.column.ColumnDescriptor;

import java.io.IOException;

/**
 * A dictionary-encoded key page searched without a value per row: its ids are decoded from the page
 * bytes ({@link HybridRle}) and replaced by their ranks in the chunk's {@link KeyDictionary}, so a
 * search compares ints, and a key is turned into a rank range once per search. The ranks of the
 * leading key must not fall (the page is sorted); ids outside the dictionary are an error.
 *
 * <p>Example: dictionary {@code [10, 20, 30]}, page ids {@code [0, 0, 1, 2]}: the key 20 is rank 1,
 * found at index 2; the key 25 is the empty rank range {@code [2, 2)}, which {@link #firstAbove}
 * places before index 3.
 */
final class DictionaryKeys extends KeyPage.RowKeys {

    private final KeyDictionary dictionary;

    private DictionaryKeys(KeyDictionary dictionary, NonNullRows rows) {
        super(rows);
        this.dictionary = dictionary;
    }

    static DictionaryKeys read(
            DataPage page,
            ColumnDescriptor column,
            KeyDictionary dictionary,
            KeyPage.Order order,
            Scratch ctx)
            throws IOException {
        int n = page.rowsAvailable();
        NonNullRows rows = NonNullRows.read(page, column, n, ctx);
        int count = rows.count();
        byte[] slots = rows.slots();
        int base = rows.base();
        if (count > 0) {
            int start = rows.valuesStart();
            if (start >= page.length()) {
                throw new IOException("dictionary ids of " + count + " values are missing");
            }
            byte[] data = page.data();
            int bitWidth = data[start] & 0xff;
            HybridRle.decode(data, start + 1, page.length(), bitWidth, count, slots, base);
            int size = dictionary.size();
            int previous = 0;
            for (int i = 0; i < count; i++) {
                int id = HybridRle.get(slots, base + i);
                if (id < 0 || id >= size) {
                    throw new IOException(
                            "dictionary id " + id + " is outside the dictionary of " + size);
                }
                int rank = dictionary.rank(id);
                if (order.checked() && rank < previous) {
                    throw order.unsorted(dictionary.value(previous), dictionary.value(rank));
                }
                previous = rank;
                HybridRle.set(slots, base + i, rank);
            }
        }
        return new DictionaryKeys(dictionary, rows);
    }

    @Override
    KeyPage detached() {
        return new DictionaryKeys(dictionary, rows.detached());
    }

    @Override
    public Object key(int i) {
        return dictionary.value(rank(i));
    }

    private int rank(int i) {
        return HybridRle.get(rows.slots(), rows.base() + i);
    }

    @Override
    int firstAbove(Object key, boolean strict) {
        int target = dictionary.firstRankAbove(key, strict);
        int lo = 0;
        int hi = rows.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (rank(mid) < target) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
