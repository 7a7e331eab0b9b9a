package dev.parquetlookup.metadata;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

/**
 * What a lookup needs to know about one column chunk of one row group.
 *
 * @param codec the compression codec of its pages
 * @param startOffset offset of its first page (the dictionary page when there is one)
 * @param firstDataPageOffset offset of its first data page
 * @param totalCompressedSize bytes from {@code startOffset} to its end
 * @param totalUncompressedSize its pages' bytes uncompressed (headers included), as the footer says
 * @param hasDictionaryPage whether a dictionary page precedes the data pages
 * @param pages page locations from the OffsetIndex, or {@code null} without a page index
 */
public record ColumnChunkInfo(
        CompressionCodecName codec,
        long startOffset,
        long firstDataPageOffset,
        long totalCompressedSize,
        long totalUncompressedSize,
        boolean hasDictionaryPage,
        @Nullable PageLocations pages) {

    long retainedBytes() {
        return 48L + (pages == null ? 0 : pages.retainedBytes());
    }
}
