package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.engine.page.KeyDictionary;

import org.apache.parquet.column.Dictionary;

import javax.annotation.Nullable;

/**
 * Owns one data page as a lookup holds it: decompressed bytes, where it sits (row group, leaf
 * column, page number) and the row-group index of its first row. Per lookup, never shared.
 */
public final class LoadedPage {
    public final int rowGroup;
    public final int leaf;
    public final int pageNumber;
    public final long firstRow;

    /** Null until the batch read that fetches it fills it in. */
    public DataPage page;

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
