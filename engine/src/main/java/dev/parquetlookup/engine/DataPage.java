package dev.parquetlookup.engine;

import org.apache.parquet.column.Encoding;

/**
 * A decompressed data page (v1 or v2) of a flat column, ready to decode.
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
record DataPage(
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
    boolean whole() {
        return rowsAvailable == valueCount;
    }

    /** Heap bytes, for the page cache's weigher. */
    int retainedBytes() {
        return 64 + data.length;
    }
}
