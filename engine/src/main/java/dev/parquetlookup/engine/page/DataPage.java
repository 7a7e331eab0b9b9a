package dev.parquetlookup.engine.page;

import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.Encoding;

import javax.annotation.Nullable;

/**
 * A decompressed data page (v1 or v2) of a flat column, ready to decode. A cached key page also
 * keeps what its first full check found: that its keys are ordered ({@link #keysOrdered()}), and
 * its keys in searchable form ({@link #keys(KeyType)}).
 *
 * <p>For v1 pages {@code data} holds {@code [definition levels][values]} as written (levels with
 * their 4-byte length prefix); for v2 pages it holds {@code [repetition levels][definition
 * levels][values]} with the level lengths given by the header.
 *
 * @param valueCount number of values including nulls (= rows for a flat column)
 * @param v2 whether it is a DATA_PAGE_V2
 * @param valueEncoding encoding of the values
 * @param definitionEncoding encoding of the definition levels (v1)
 * @param data the decompressed bytes
 * @param definitionOffset v2: offset of the definition levels in {@code data}
 * @param definitionLength v2: length of the definition levels
 * @param valuesOffset v2: offset of the values in {@code data}; v1: 0
 * @param length bytes of {@code data} decompressed (a prefix when only some rows were needed)
 * @param rowsAvailable the leading rows whose levels and values lie within {@code length}: all
 *     ({@code valueCount}) for a whole page
 * @param scratch whether {@code data} is a lookup's reusable buffer: such a page lives only as long
 *     as its lookup and is never cached
 */
public final class DataPage {

    private final int valueCount;
    private final boolean v2;
    private final Encoding valueEncoding;
    private final Encoding definitionEncoding;
    private final byte[] data;
    private final int definitionOffset;
    private final int definitionLength;
    private final int valuesOffset;
    private final int length;
    private final int rowsAvailable;
    private final boolean scratch;

    /**
     * Set once the leading key's order was checked on this whole page: a cached page is checked by
     * the lookup that decoded it, and later lookups only search it. Racing lookups may both check;
     * none skips a check that failed (the flag stays unset).
     */
    private volatile boolean keysOrdered;

    /**
     * A cached key page's keys in searchable form (ranks, value offsets, row slots in arrays of its
     * own), built once by the lookup that checked their order; with {@link #keysType}.
     */
    @Nullable private volatile KeyPage keys;

    @Nullable private volatile KeyType keysType;

    /** Whether this page was cached as a key page: its weight includes room for {@link #keys}. */
    private boolean keysReserved;

    private int keysBytes;

    /**
     * A prefix of PLAIN byte strings: the index of its last non-null value and where that value
     * starts in {@link #data}, found by the walk that decoded the prefix, so a cursor skips to the
     * wanted row without walking the lengths again; -1 when unknown.
     */
    private int lastValueIndex = -1;

    private int lastValueStart = -1;

    DataPage(
            int valueCount,
            boolean v2,
            Encoding valueEncoding,
            Encoding definitionEncoding,
            byte[] data,
            int definitionOffset,
            int definitionLength,
            int valuesOffset,
            int length,
            int rowsAvailable,
            boolean scratch) {
        this.valueCount = valueCount;
        this.v2 = v2;
        this.valueEncoding = valueEncoding;
        this.definitionEncoding = definitionEncoding;
        this.data = data;
        this.definitionOffset = definitionOffset;
        this.definitionLength = definitionLength;
        this.valuesOffset = valuesOffset;
        this.length = length;
        this.rowsAvailable = rowsAvailable;
        this.scratch = scratch;
    }

    /** A whole page in its own array. */
    DataPage(
            int valueCount,
            boolean v2,
            Encoding valueEncoding,
            Encoding definitionEncoding,
            byte[] data,
            int definitionOffset,
            int definitionLength,
            int valuesOffset) {
        this(
                valueCount,
                v2,
                valueEncoding,
                definitionEncoding,
                data,
                definitionOffset,
                definitionLength,
                valuesOffset,
                data.length,
                valueCount,
                false);
    }

    /** Whether every row is decoded (not a prefix). */
    public boolean whole() {
        return rowsAvailable == valueCount;
    }

    /** Heap bytes, for the page cache's weigher. */
    public int retainedBytes() {
        return 64
                + data.length
                + keysBytes
                + (startsReserved ? PlainStarts.bytesFor(valueCount) : 0);
    }

    /** Whether this cached page keeps {@link PlainStarts} once a lookup builds them. */
    private boolean startsReserved;

    @Nullable private volatile PlainStarts starts;

    /**
     * Marks a whole PLAIN page about to be cached: its weight then includes the starts of its byte
     * strings ({@link PlainStarts}), which the first lookup that skips on it keeps. Call before the
     * page is cached, for BINARY columns only.
     */
    public void reserveStarts() {
        startsReserved = whole() && !scratch && valueEncoding == Encoding.PLAIN;
    }

    /** The kept starts of this page's byte strings, or null. */
    @Nullable
    PlainStarts starts() {
        return starts;
    }

    /** Whether {@link #starts(PlainStarts)} keeps what it is given. */
    boolean keepsStarts() {
        return startsReserved;
    }

    /** Keeps {@code built} when this page was reserved for it (racing lookups build the same). */
    void starts(PlainStarts built) {
        if (startsReserved) {
            starts = built;
        }
    }

    /**
     * Marks a whole page about to be cached as a sort-key column's: its weight then includes its
     * searchable keys ({@code bytesPerValue}, see {@link KeyPage#keptBytesPerValue}), which the
     * first lookup that checks it keeps ({@link #keysChecked}). Call before the page is cached.
     */
    public void reserveKeys(int bytesPerValue) {
        keysReserved = whole() && !scratch;
        keysBytes = keysReserved ? 64 + bytesPerValue * valueCount : 0;
    }

    /** The searchable keys kept on this cached page for {@code type}, or null. */
    @Nullable
    public KeyPage keys(KeyType type) {
        KeyPage k = keys;
        return k != null && keysType == type ? k : null;
    }

    /** Whether the leading key's order was found sound on this whole page (see above). */
    public boolean keysOrdered() {
        return keysOrdered;
    }

    /**
     * Records that the leading key's order is sound on this page (whole pages only), and keeps
     * {@code checked} (with arrays of its own, see {@link KeyPage#detached()}) for later lookups
     * when this page was reserved for them.
     */
    public void keysChecked(KeyType type, KeyPage checked) {
        if (whole() && !scratch) {
            keysOrdered = true;
        }
        if (keysReserved) {
            keysType = type;
            keys = checked.detached();
        }
    }

    public int valueCount() {
        return valueCount;
    }

    public boolean v2() {
        return v2;
    }

    public Encoding valueEncoding() {
        return valueEncoding;
    }

    public Encoding definitionEncoding() {
        return definitionEncoding;
    }

    public byte[] data() {
        return data;
    }

    public int definitionOffset() {
        return definitionOffset;
    }

    public int definitionLength() {
        return definitionLength;
    }

    public int valuesOffset() {
        return valuesOffset;
    }

    public int length() {
        return length;
    }

    public int rowsAvailable() {
        return rowsAvailable;
    }

    boolean scratch() {
        return scratch;
    }

    /** Records where PLAIN value {@code index} starts (see {@link #lastValueIndex}). */
    void lastValue(int index, int start) {
        lastValueIndex = index;
        lastValueStart = start;
    }

    /** Index of the non-null value whose start is known, or -1. */
    int lastValueIndex() {
        return lastValueIndex;
    }

    /** Where value {@link #lastValueIndex()} starts in {@link #data()}. */
    int lastValueStart() {
        return lastValueStart;
    }
}
