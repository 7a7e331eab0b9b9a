package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.KeyDictionary;
import dev.parquetlookup.engine.page.PageDecoder;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * Owns the dictionaries of one file's dictionary-encoded pages: read through the lookup's context,
 * decoded for value reads ({@link Dictionary}), and for key columns in comparable form ({@link
 * KeyDictionary}) straight from the page's PLAIN bytes. Both forms are kept decoded in the table's
 * metadata cache, one entry per chunk and form, whether a page cache is configured or not: a
 * dictionary is read and decoded once while it stays cached, never once per lookup.
 */
final class PageDictionaries {

    /** {@link MetadataCache#chunkValue} kinds. */
    private static final int VALUES = 0;

    private static final int KEYS = 1;

    private final InFlightReads reads;
    private final FileMetadata meta;
    @Nullable private final MetadataCache cache;
    private final ColumnDescriptor[] leaves;
    private final FileErrors errors;

    PageDictionaries(
            InFlightReads reads,
            FileMetadata meta,
            @Nullable MetadataCache cache,
            ColumnDescriptor[] leaves,
            FileErrors errors) {
        this.reads = reads;
        this.meta = meta;
        this.cache = cache;
        this.leaves = leaves;
        this.errors = errors;
    }

    private FileId file() {
        return meta.file();
    }

    /** Whether the value dictionary of a chunk is cached (a read ahead then skips its page). */
    boolean cached(int rowGroup, int leaf) {
        return cache != null && cache.chunkValue(file(), rowGroup, leaf, VALUES) != null;
    }

    /** The dictionary of a dictionary-encoded page (read once while cached). */
    @Nullable
    Dictionary dictionaryFor(LoadedPage page, int leaf, LookupContext ctx) throws IOException {
        if (!page.page.valueEncoding().usesDictionary()) {
            return null;
        }
        if (page.dictionary != null) {
            return page.dictionary;
        }
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        if (cache != null) {
            Object cached = cache.chunkValue(file(), rg.ordinal(), leaf, VALUES);
            if (cached != null) {
                page.dictionary = (Dictionary) cached;
                return page.dictionary;
            }
        }
        ColumnChunkInfo chunk = rg.columns()[leaf];
        if (!chunk.hasDictionaryPage()) {
            throw errors.missingDictionary(rg, leaf);
        }
        // The key search of this lookup may have read the page already (key columns projected).
        byte[] bytes =
                page.dictionaryBytes != null ? page.dictionaryBytes : ctx.read(reads, range(chunk));
        Dictionary dictionary;
        long weight;
        try {
            PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
            dictionary = PageDecoder.dictionary(bytes, header, chunk.codec(), leaves[leaf]);
            weight = weight(header, leaves[leaf]);
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, leaf, -1, e);
        }
        if (cache != null) {
            cache.putChunkValue(file(), rg.ordinal(), leaf, VALUES, dictionary, weight);
        }
        page.dictionary = dictionary;
        return dictionary;
    }

    /**
     * Heap bytes of a decoded dictionary: its values, and per value a {@code Binary} for byte
     * strings.
     */
    private static long weight(PageDecoder.Header header, ColumnDescriptor column) {
        long bytes = 64L + header.uncompressedSize();
        return switch (column.getPrimitiveType().getPrimitiveTypeName()) {
            case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> bytes + 48L * header.valueCount();
            default -> bytes + header.uncompressedSize(); // PLAIN values widened to an array
        };
    }

    /**
     * A key page's dictionary in comparable form, or null when the page is not dictionary-encoded:
     * built once from the dictionary page's bytes and cached.
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
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        KeyDictionary keys =
                cache == null
                        ? null
                        : (KeyDictionary) cache.chunkValue(file(), rg.ordinal(), leaf, KEYS);
        if (keys == null && page.dictionary != null) {
            keys = KeyDictionary.of(page.dictionary, type); // a walked chunk's
            if (cache != null) {
                cache.putChunkValue(file(), rg.ordinal(), leaf, KEYS, keys, keys.retainedBytes());
            }
        }
        if (keys == null) {
            ColumnChunkInfo chunk = rg.columns()[leaf];
            if (!chunk.hasDictionaryPage()) {
                throw errors.missingDictionary(rg, leaf);
            }
            byte[] bytes = ctx.read(reads, range(chunk));
            page.dictionaryBytes = bytes;
            try {
                PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
                byte[] values = PageDecoder.dictionaryValues(bytes, header, chunk.codec());
                keys = KeyDictionary.ofPlain(values, header.valueCount(), type);
            } catch (IOException | RuntimeException e) {
                throw errors.pageError(rg, leaf, -1, e);
            }
            if (cache != null) {
                cache.putChunkValue(file(), rg.ordinal(), leaf, KEYS, keys, keys.retainedBytes());
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
