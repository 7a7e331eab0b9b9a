package dev.parquetlookup.metadata;

import javax.annotation.Nullable;

/**
 * How the metadata reader gets page indexes: the file's own only, or also synthesized from page
 * headers for column chunks that have none.
 *
 * <p>Example: {@code PageIndexOptions.synthesized(decoder)} builds an index for a DuckDB file at
 * open; {@link #OWN} leaves such a file to the row-group fallback (whole key chunks per lookup).
 *
 * @param synthesize whether to build page indexes the file lacks
 * @param decoder decodes key pages whose headers carry no statistics; required to synthesize
 * @param lazy whether a file's own complete page index is read row group by row group on first use
 *     ({@link RowGroupIndexes}) instead of at open; the engine's tables read lazily, tools that
 *     read metadata and close the file read eagerly
 */
public record PageIndexOptions(
        boolean synthesize, @Nullable PageBoundsDecoder decoder, boolean lazy) {

    /** The file's own page index only. */
    public static final PageIndexOptions OWN = new PageIndexOptions(false, null);

    public PageIndexOptions {
        if (synthesize && decoder == null) {
            throw new IllegalArgumentException("synthesizing page indexes needs a page decoder");
        }
    }

    /** Read at open (not lazily). */
    public PageIndexOptions(boolean synthesize, @Nullable PageBoundsDecoder decoder) {
        this(synthesize, decoder, false);
    }

    /**
     * These options with a file's own complete page index read lazily: the metadata then reads
     * through the source it was read with (or the one it is bound to), which must stay open.
     */
    public PageIndexOptions lazily() {
        return new PageIndexOptions(synthesize, decoder, true);
    }

    /** Synthesize missing page indexes, decoding key pages with {@code decoder}. */
    public static PageIndexOptions synthesized(PageBoundsDecoder decoder) {
        return new PageIndexOptions(true, decoder);
    }
}
