package dev.parquetlookup.metadata;

/**
 * Where a file's page index came from, and what building it cost (for {@code inspect} and logs).
 *
 * <p>Example: a 10M-row DuckDB file opened with synthesis on: {@code SYNTHESIZED}, 82 row groups'
 * chunks walked, 12 ms, 41 MB read.
 *
 * @param kind own, synthesized, or none
 * @param chunks column chunks whose pages were walked (0 unless synthesized)
 * @param pages data pages found by the walk
 * @param bytesRead bytes read by the walk
 * @param nanos time the walk took
 */
public record PageIndexOrigin(Kind kind, int chunks, long pages, long bytesRead, long nanos) {

    /** The kinds of page index a file can be served with. */
    public enum Kind {
        /** Every key chunk has the file's own ColumnIndex and OffsetIndex. */
        OWN,
        /** Built by walking page headers (some or all chunks had none). */
        SYNTHESIZED,
        /** No page index: lookups read whole key column chunks. */
        NONE
    }

    static PageIndexOrigin own() {
        return new PageIndexOrigin(Kind.OWN, 0, 0, 0, 0);
    }

    static PageIndexOrigin none() {
        return new PageIndexOrigin(Kind.NONE, 0, 0, 0, 0);
    }

    /** One line for humans, e.g. "synthesized from page headers: 164 chunks, 19,532 pages, ...". */
    public String describe() {
        return switch (kind) {
            case OWN -> "the file's own (ColumnIndex and OffsetIndex)";
            case NONE -> "none (lookups read whole key column chunks)";
            case SYNTHESIZED ->
                    String.format(
                            "synthesized from page headers at open: %,d chunks, %,d pages walked,"
                                    + " %,d bytes read, %.1f ms",
                            chunks, pages, bytesRead, nanos / 1e6);
        };
    }
}
