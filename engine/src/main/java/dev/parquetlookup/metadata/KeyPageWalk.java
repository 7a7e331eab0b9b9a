package dev.parquetlookup.metadata;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounds of the data pages of one sort-key column chunk during a page walk, as a ColumnIndex
 * would give them: from each page header's statistics where the writer wrote them, else (the
 * chunk's only page) from the footer's chunk statistics, else by decoding the page with the
 * engine's {@link PageBoundsDecoder} (its dictionary page decoded once, on first need). Not
 * thread-safe: one per chunk walk.
 *
 * <p>Example: parquet-java writes no statistics in page headers: each key page of a stripped
 * parquet-java file is decompressed and decoded here, once, when its row group's index is built.
 */
final class KeyPageWalk {

    private final ChunkToWalk chunk;
    private final ChunkBytes bytes;
    private final PageBoundsDecoder decoder;
    private final List<Object> mins = new ArrayList<>();
    private final List<Object> maxs = new ArrayList<>();
    private long dictionaryOffset = -1;
    private int dictionaryLength;
    @Nullable private Object dictionary;

    /** Whether the last data page was decoded (then the next is read with its header). */
    private boolean decodedLast;

    KeyPageWalk(ChunkToWalk chunk, ChunkBytes bytes, PageBoundsDecoder decoder) {
        this.chunk = chunk;
        this.bytes = bytes;
        this.decoder = decoder;
    }

    /** Whether the last data page was decoded whole (the next is then likely to be as well). */
    boolean decodedLast() {
        return decodedLast;
    }

    /** Notes the chunk's dictionary page, decoded when a data page first needs it. */
    void dictionaryPage(long pos, int length) {
        dictionaryOffset = pos;
        dictionaryLength = length;
    }

    /**
     * Adds the bounds of the data page at {@code pos} ({@code total} bytes, header included).
     *
     * @param onlyPage whether it is the chunk's only data page
     */
    void dataPage(PageHeaderScan header, long pos, int total, boolean onlyPage) throws IOException {
        Object[] b = bounds(header, pos, total, onlyPage);
        mins.add(b == null ? null : b[0]);
        maxs.add(b == null ? null : b[1]);
    }

    /** The bounds of the pages seen so far, in page order. */
    KeyRanges ranges() {
        return KeyRanges.of(chunk.keyType(), mins, maxs);
    }

    @Nullable
    private Object[] bounds(PageHeaderScan header, long pos, int total, boolean onlyPage)
            throws IOException {
        Object[] bounds = statisticsBounds(header, chunk.keyType());
        if (bounds == ChunkToWalk.UNKNOWN && onlyPage) {
            // DuckDB writes one page per chunk: the footer's chunk statistics are its bounds.
            bounds = chunk.chunkBounds();
        }
        decodedLast = bounds == ChunkToWalk.UNKNOWN;
        if (bounds != ChunkToWalk.UNKNOWN) {
            return bounds;
        }
        if (dictionary == null && dictionaryOffset >= 0) {
            dictionary = decodeDictionary();
        }
        return decodeBounds(pos, total);
    }

    /**
     * Page bounds from header statistics: {@code {min, max}}, {@code null} for a page of nulls
     * only, or {@link ChunkToWalk#UNKNOWN} when the header cannot tell. The deprecated {@code
     * min}/{@code max} fields are in signed order, right only for integer keys.
     */
    @Nullable
    static Object[] statisticsBounds(PageHeaderScan header, KeyType type) {
        if (header.minValue != null && header.maxValue != null) {
            return new Object[] {
                type.decodeBound(header.minValue), type.decodeBound(header.maxValue)
            };
        }
        if (type.kind() == KeyType.Kind.LONG
                && header.legacyMin != null
                && header.legacyMax != null) {
            return new Object[] {
                type.decodeBound(header.legacyMin), type.decodeBound(header.legacyMax)
            };
        }
        if (header.nullCount >= 0 && header.nullCount >= header.valueCount) {
            return null;
        }
        return ChunkToWalk.UNKNOWN;
    }

    private Object decodeDictionary() throws IOException {
        ChunkBytes.Slice slice = bytes.read(dictionaryOffset, dictionaryLength);
        try {
            return decoder.dictionary(
                    slice.bytes(), slice.offset(), dictionaryLength, chunk.column(), chunk.codec());
        } catch (IOException | RuntimeException e) {
            throw damaged(
                    dictionaryOffset,
                    "its dictionary page cannot be decoded (" + e.getMessage() + ")",
                    e);
        }
    }

    @Nullable
    private Object[] decodeBounds(long offset, int length) throws IOException {
        ChunkBytes.Slice slice = bytes.page(offset, length);
        try {
            return decoder.bounds(
                    slice.bytes(),
                    slice.offset(),
                    length,
                    dictionary,
                    chunk.column(),
                    chunk.keyType(),
                    chunk.codec());
        } catch (LookupFileException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw damaged(offset, "its data page cannot be decoded (" + e.getMessage() + ")", e);
        }
    }

    private LookupFileException damaged(long offset, String why, Throwable cause) {
        return PageIndexBuilder.damaged(bytes.file(), chunk, offset, why, cause);
    }
}
