package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.KeyStop;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Owns which pages of one open file's leading sort-key column were found sorted in full: one bit
 * per page (pages as its OffsetIndex numbers them), per row group, set the first time a lookup of
 * this process decodes the whole page and checks its order ({@link PageLoader#keyPage}). A set bit
 * lets later lookups decompress that page only as far as their key needs ({@link KeyStop}); an
 * unset bit means the page is decoded whole and checked, as on first use. Bits live as long as the
 * open file (its {@link PageLoader}): a replaced file is a new file id, opened anew, with no bits
 * set.
 *
 * <p>Bounded: a row group's bits are allocated on its first verified page, {@code pages / 64} longs
 * (a 10M-row file of 1,024-row pages: about 1.2 KB). Thread-safe: bits are only ever set, by
 * compare-and-set.
 *
 * <p>Example: row group 3 of 128 key pages, page 70 checked: {@code words[3]} is a 2-long array
 * with bit 6 of its second long set; page 70 of row group 3 is then verified, page 71 not.
 */
final class VerifiedKeyPages {

    private final AtomicReferenceArray<AtomicLongArray> words;

    /** The leading key column's leaf: its OffsetIndex numbers the pages. */
    private final int keyLeaf;

    VerifiedKeyPages(int rowGroups, int keyLeaf) {
        this.words = new AtomicReferenceArray<>(rowGroups);
        this.keyLeaf = keyLeaf;
    }

    /**
     * Whether leading-key page {@code page} of {@code rg} was checked sorted in full (never for a
     * chunk without an OffsetIndex).
     */
    boolean verified(RowGroupInfo rg, int page) {
        if (rg.columns()[keyLeaf].pages() == null) {
            return false;
        }
        AtomicLongArray bits = words.get(rg.ordinal());
        int word = page >>> 6;
        return bits != null && word < bits.length() && (bits.get(word) & (1L << page)) != 0;
    }

    /** Records that leading-key page {@code page} of {@code rg} was checked sorted in full. */
    void verify(RowGroupInfo rg, int page) {
        PageLocations locations = rg.columns()[keyLeaf].pages();
        if (locations == null || page < 0 || page >= locations.pageCount()) {
            return;
        }
        int pageCount = locations.pageCount();
        int rowGroup = rg.ordinal();
        AtomicLongArray bits = words.get(rowGroup);
        if (bits == null) {
            words.compareAndSet(rowGroup, null, new AtomicLongArray((pageCount + 63) >>> 6));
            bits = words.get(rowGroup);
        }
        int word = page >>> 6;
        if (word >= bits.length()) {
            return; // a page count that changed: never trust a bit beyond the first one seen
        }
        long bit = 1L << page;
        long old;
        do {
            old = bits.get(word);
        } while ((old & bit) == 0 && !bits.compareAndSet(word, old, old | bit));
    }

    /** Pages marked verified, for tests and diagnostics. */
    int count() {
        int n = 0;
        for (int r = 0; r < words.length(); r++) {
            AtomicLongArray bits = words.get(r);
            for (int w = 0; bits != null && w < bits.length(); w++) {
                n += Long.bitCount(bits.get(w));
            }
        }
        return n;
    }
}
