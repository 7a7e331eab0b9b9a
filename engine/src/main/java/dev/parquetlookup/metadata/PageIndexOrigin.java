package dev.parquetlookup.metadata;

/**
 * Where a file's page index came from, and what building it cost (for {@code inspect} and logs).
 *
 * <p>Example: a 10M-row DuckDB file opened with synthesis at open: {@code SYNTHESIZED}, 82 row
 * groups' chunks walked, 12 ms, 41 MB read. Opened by a table (synthesis on first use, the
 * default): {@code SYNTHESIZED} and {@code onFirstUse}, nothing spent at open; {@link
 * LazySynthesis#cost()} tells what the row groups built since cost.
 *
 * @param kind own, synthesized, or none
 * @param chunks column chunks whose pages were walked (0 unless synthesized)
 * @param pages data pages found by the walk
 * @param bytesRead bytes read by the walk
 * @param nanos time the walk took
 * @param onFirstUse whether the index is built (or read) row group by row group on first use rather
 *     than at open; the figures are then those of the row groups built so far
 */
public record PageIndexOrigin(
        Kind kind, int chunks, long pages, long bytesRead, long nanos, boolean onFirstUse) {

    /** The kinds of page index a file can be served with. */
    public enum Kind {
        /** Every key chunk has the file's own ColumnIndex and OffsetIndex. */
        OWN,
        /** Built by walking page headers (some or all chunks had none). */
        SYNTHESIZED,
        /** No page index: lookups read whole key column chunks. */
        NONE
    }

    /** Built (or read) at open. */
    public PageIndexOrigin(Kind kind, int chunks, long pages, long bytesRead, long nanos) {
        this(kind, chunks, pages, bytesRead, nanos, false);
    }

    static PageIndexOrigin own() {
        return new PageIndexOrigin(Kind.OWN, 0, 0, 0, 0);
    }

    static PageIndexOrigin none() {
        return new PageIndexOrigin(Kind.NONE, 0, 0, 0, 0);
    }

    /** Synthesized row group by row group on first use, nothing spent yet. */
    static PageIndexOrigin synthesizedOnFirstUse() {
        return new PageIndexOrigin(Kind.SYNTHESIZED, 0, 0, 0, 0, true);
    }

    /** One line for humans, e.g. "synthesized from page headers at open: 164 chunks, ...". */
    public String describe() {
        return switch (kind) {
            case OWN -> "the file's own (ColumnIndex and OffsetIndex)";
            case NONE -> "none (lookups read whole key column chunks)";
            case SYNTHESIZED ->
                    String.format(
                            "synthesized from page headers %s: %,d chunks, %,d pages walked,"
                                    + " %,d bytes read, %.1f ms",
                            onFirstUse ? "on first use per row group (so far)" : "at open",
                            chunks,
                            pages,
                            bytesRead,
                            nanos / 1e6);
        };
    }
}
