package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.metadata.ColumnChunkInfo;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.RowGroupInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * Owns the dictionaries of one file's dictionary-encoded pages: read through the lookup's context
 * (once per lookup, or from the {@link PageCache}), decoded for value reads ({@link Dictionary}),
 * and for key columns in comparable form ({@link KeyDictionary}) straight from the page's PLAIN
 * bytes.
 */
final class PageDictionaries {

    private final PageLoader loader;
    private final FileMetadata meta;
    @Nullable private final PageCache pageCache;
    private final ColumnDescriptor[] leaves;
    private final FileErrors errors;

    PageDictionaries(
            PageLoader loader,
            FileMetadata meta,
            @Nullable PageCache pageCache,
            ColumnDescriptor[] leaves,
            FileErrors errors) {
        this.loader = loader;
        this.meta = meta;
        this.pageCache = pageCache;
        this.leaves = leaves;
        this.errors = errors;
    }

    private FileId file() {
        return meta.file();
    }

    /** The dictionary of a dictionary-encoded page (read once per lookup, or from the cache). */
    @Nullable
    Dictionary dictionaryFor(LoadedPage page, int leaf, LookupContext ctx) throws IOException {
        if (!page.page.valueEncoding().usesDictionary()) {
            return null;
        }
        if (page.dictionary != null) {
            return page.dictionary;
        }
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        if (pageCache != null) {
            Dictionary cached = pageCache.dictionary(file(), rg.ordinal(), leaf);
            if (cached != null) {
                return cached;
            }
        }
        ColumnChunkInfo chunk = rg.columns()[leaf];
        if (!chunk.hasDictionaryPage()) {
            throw errors.missingDictionary(rg, leaf);
        }
        // The key search of this lookup may have read the page already (key columns projected).
        byte[] bytes =
                page.dictionaryBytes != null
                        ? page.dictionaryBytes
                        : ctx.read(loader, range(chunk));
        Dictionary dictionary;
        int size;
        try {
            PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
            size = header.uncompressedSize();
            dictionary = PageDecoder.dictionary(bytes, header, chunk.codec(), leaves[leaf]);
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, leaf, -1, e);
        }
        if (pageCache != null) {
            pageCache.putDictionary(file(), rg.ordinal(), leaf, dictionary, 64 + 2 * size);
        }
        page.dictionary = dictionary;
        return dictionary;
    }

    /**
     * A key page's dictionary in comparable form, or null when the page is not dictionary-encoded:
     * built once from {@link #dictionaryFor} and cached beside it.
     */
    @Nullable
    KeyDictionary keyDictionaryFor(LoadedPage page, int leaf, KeyType type, LookupContext ctx)
            throws IOException {
        if (!page.page.valueEncoding().usesDictionary()) {
            return null;
        }
        if (page.keyDictionary != null) {
            return page.keyDictionary;
        }
        if (page.dictionary != null) {
            page.keyDictionary = KeyDictionary.of(page.dictionary, type); // a walked chunk's
            return page.keyDictionary;
        }
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        KeyDictionary keys =
                pageCache == null ? null : pageCache.keyDictionary(file(), rg.ordinal(), leaf);
        if (keys == null) {
            ColumnChunkInfo chunk = rg.columns()[leaf];
            if (!chunk.hasDictionaryPage()) {
                throw errors.missingDictionary(rg, leaf);
            }
            byte[] bytes = ctx.read(loader, range(chunk));
            page.dictionaryBytes = bytes;
            try {
                PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
                byte[] values = PageDecoder.dictionaryValues(bytes, header, chunk.codec());
                keys = KeyDictionary.ofPlain(values, header.valueCount(), type);
            } catch (IOException | RuntimeException e) {
                throw errors.pageError(rg, leaf, -1, e);
            }
            if (pageCache != null) {
                pageCache.putKeyDictionary(file(), rg.ordinal(), leaf, keys);
            }
        }
        page.keyDictionary = keys;
        return keys;
    }

    /** Where a chunk's dictionary page lies (before its first data page). */
    static FileRange range(ColumnChunkInfo chunk) {
        return new FileRange(
                chunk.startOffset(), (int) (chunk.firstDataPageOffset() - chunk.startOffset()));
    }
}
