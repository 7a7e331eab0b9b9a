package dev.parquetlookup.engine;

import org.apache.parquet.column.Dictionary;

import javax.annotation.Nullable;

/**
 * Owns one data page as a lookup holds it: decompressed bytes, where it sits (row group, leaf
 * column, page number) and the row-group index of its first row. Per lookup, never shared.
 */
final class LoadedPage {
    final int rowGroup;
    final int leaf;
    final int pageNumber;
    final long firstRow;

    /** Null until the batch read that fetches it fills it in. */
    DataPage page;

    /** The chunk's dictionary when the page was found by walking the chunk, else resolved later. */
    @Nullable Dictionary dictionary;

    /** A key column's dictionary in comparable form, once resolved for this page. */
    @Nullable KeyDictionary keyDictionary;

    /** The dictionary page's bytes as read for {@link #keyDictionary}, for a value read after. */
    @Nullable byte[] dictionaryBytes;

    LoadedPage(
            int rowGroup,
            int leaf,
            int pageNumber,
            long firstRow,
            DataPage page,
            @Nullable Dictionary dictionary) {
        this.rowGroup = rowGroup;
        this.leaf = leaf;
        this.pageNumber = pageNumber;
        this.firstRow = firstRow;
        this.page = page;
        this.dictionary = dictionary;
    }
}
