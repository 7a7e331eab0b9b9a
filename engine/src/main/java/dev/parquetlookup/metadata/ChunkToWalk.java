package dev.parquetlookup.metadata;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

/**
 * One column chunk whose pages {@link PageIndexBuilder} walks: where its bytes lie, how they are
 * compressed, the rows its pages must add up to and, for a sort-key column, its key type and the
 * footer's chunk bounds (the bounds of a chunk's only page when its header carries none, as DuckDB
 * writes).
 *
 * <p>Example: row group 3's chunk of BIGINT key {@code id}, bytes [4, 1_048_580), LZ4_RAW, 131,072
 * rows, chunk bounds {@code {393216L, 524287L}}.
 *
 * @param rowGroup the row group's ordinal, for messages
 * @param column the leaf column (flat: one value per row)
 * @param codec the compression codec of its pages
 * @param start offset of its first page (dictionary page included)
 * @param size bytes from {@code start} to its end
 * @param rowCount rows of the row group
 * @param keyType the key type when this is a sort-key column (bounds wanted), else null
 * @param chunkBounds {@code {min, max}} from the footer's statistics, null when the chunk holds
 *     only nulls, {@link #UNKNOWN} without usable statistics (or for a non-key column)
 */
record ChunkToWalk(
        int rowGroup,
        ColumnDescriptor column,
        CompressionCodecName codec,
        long start,
        long size,
        long rowCount,
        @Nullable KeyType keyType,
        @Nullable Object[] chunkBounds) {

    /** Bounds that the footer (or a page header) cannot tell. */
    static final Object[] UNKNOWN = new Object[0];

    /** The chunk {@code chunk} of row group {@code rowGroup} as the footer describes it. */
    static ChunkToWalk of(
            int rowGroup,
            ColumnDescriptor column,
            ColumnChunkMetaData chunk,
            long rowCount,
            @Nullable KeyType keyType) {
        return new ChunkToWalk(
                rowGroup,
                column,
                chunk.getCodec(),
                chunk.getStartingPos(),
                chunk.getTotalSize(),
                rowCount,
                keyType,
                keyType == null ? UNKNOWN : chunkBounds(chunk, keyType, rowCount));
    }

    /** The column's dotted path, for messages. */
    String name() {
        return String.join(".", column.getPath());
    }

    long end() {
        return start + size;
    }

    /**
     * Bounds of a chunk's key column from the footer's chunk statistics: {@code {min, max}}, null
     * when the chunk holds only nulls, {@link #UNKNOWN} without usable statistics.
     */
    @Nullable
    static Object[] chunkBounds(ColumnChunkMetaData chunk, KeyType type, long rowCount) {
        Statistics<?> stats = chunk.getStatistics();
        if (stats == null || stats.isEmpty()) {
            return UNKNOWN;
        }
        if (stats.hasNonNullValue()) {
            try {
                return new Object[] {
                    type.decodeBound(stats.getMinBytes()), type.decodeBound(stats.getMaxBytes())
                };
            } catch (RuntimeException e) {
                return UNKNOWN;
            }
        }
        return stats.getNumNulls() == rowCount ? null : UNKNOWN;
    }
}
