package dev.parquetlookup.testing;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Layout choices for one generated table, spanning what the engine must read.
 *
 * @param codec page compression
 * @param dictionary dictionary encoding on (PLAIN/RLE_DICTIONARY pages, with PLAIN fallback when
 *     the dictionary outgrows {@code dictionaryPageBytes})
 * @param v2 Parquet writer version 2 (data page v2, DELTA_* encodings when not dictionary)
 * @param byteStreamSplit BYTE_STREAM_SPLIT for FLOAT and DOUBLE columns
 * @param rowsPerPage the page row-count limit (1 means one row per page)
 * @param pageBytes the page size limit in bytes (small values cut pages early)
 * @param dictionaryPageBytes the dictionary size limit before falling back to plain encoding
 * @param rowsPerRowGroup the row-group row-count limit
 * @param pageIndex ColumnIndex and OffsetIndex written (only {@code LookupFileWriter} can leave
 *     them out, like writers such as DuckDB do)
 */
public record WriterOptions(
        CompressionCodecName codec,
        boolean dictionary,
        boolean v2,
        boolean byteStreamSplit,
        int rowsPerPage,
        int pageBytes,
        int dictionaryPageBytes,
        int rowsPerRowGroup,
        boolean pageIndex) {

    /** Point-read friendly defaults: no dictionary, 64-row pages, 1,000-row row groups. */
    public static WriterOptions defaults() {
        return new WriterOptions(
                CompressionCodecName.UNCOMPRESSED,
                false,
                false,
                false,
                64,
                1 << 20,
                1 << 20,
                1000,
                true);
    }

    public WriterOptions withRowsPerPage(int rows) {
        return new WriterOptions(
                codec,
                dictionary,
                v2,
                byteStreamSplit,
                rows,
                pageBytes,
                dictionaryPageBytes,
                rowsPerRowGroup,
                pageIndex);
    }

    public WriterOptions withRowsPerRowGroup(int rows) {
        return new WriterOptions(
                codec,
                dictionary,
                v2,
                byteStreamSplit,
                rowsPerPage,
                pageBytes,
                dictionaryPageBytes,
                rows,
                pageIndex);
    }

    public WriterOptions withCodec(CompressionCodecName newCodec) {
        return new WriterOptions(
                newCodec,
                dictionary,
                v2,
                byteStreamSplit,
                rowsPerPage,
                pageBytes,
                dictionaryPageBytes,
                rowsPerRowGroup,
                pageIndex);
    }

    public WriterOptions withPageIndex(boolean on) {
        return new WriterOptions(
                codec,
                dictionary,
                v2,
                byteStreamSplit,
                rowsPerPage,
                pageBytes,
                dictionaryPageBytes,
                rowsPerRowGroup,
                on);
    }

    public WriterOptions withDictionary(boolean on) {
        return new WriterOptions(
                codec,
                on,
                v2,
                byteStreamSplit,
                rowsPerPage,
                pageBytes,
                dictionaryPageBytes,
                rowsPerRowGroup,
                pageIndex);
    }
}
