package dev.parquetlookup.metadata;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * Decodes the smallest and largest key of one data page, for the page-index builder when the page
 * header carries no statistics. Decompression and value decoding are the engine's, so the engine
 * supplies the implementation and {@code metadata} stays below it.
 *
 * <p>Both methods take a page as stored: header followed by payload, {@code length} bytes in all.
 */
public interface PageBoundsDecoder {

    /**
     * Decodes a dictionary page, to be passed to {@link #bounds} for the data pages of its chunk.
     * The result is opaque to the caller.
     */
    Object dictionary(
            byte[] page,
            int offset,
            int length,
            ColumnDescriptor column,
            CompressionCodecName codec)
            throws IOException;

    /**
     * The smallest and largest non-null key of a data page in {@code type}'s comparable form, as
     * {@code {min, max}}, or {@code null} when every value of the page is null.
     *
     * @param dictionary the chunk's decoded dictionary, or null when it has none
     */
    @Nullable
    Object[] bounds(
            byte[] page,
            int offset,
            int length,
            @Nullable Object dictionary,
            ColumnDescriptor column,
            KeyType type,
            CompressionCodecName codec)
            throws IOException;
}
