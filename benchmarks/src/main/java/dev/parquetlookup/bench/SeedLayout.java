package dev.parquetlookup.bench;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.util.Locale;

/**
 * How the seed dataset is laid out in a Parquet file.
 *
 * <p>Example: {@code SeedLayout.lookupDefault(10_000_000)} is the protocol's default lookup layout
 * (131,072 rows per row group, 1,024 rows per page, dictionary off, LZ4_RAW, page index on,
 * sorted).
 *
 * @param rows rows {@code k = 1..rows}
 * @param rowsPerRowGroup row-group row limit
 * @param rowsPerPage data-page row limit
 * @param dictionary whether dictionary encoding is on
 * @param codec the compression codec
 * @param pageIndex whether the ColumnIndex/OffsetIndex stay in the file
 * @param sorted whether rows are written in key order (else in a fixed scrambled order)
 * @param keyUncompressed whether the key column is left uncompressed whatever {@code codec} says
 *     (the writer's default; the protocol's layout compresses every column)
 */
public record SeedLayout(
        long rows,
        int rowsPerRowGroup,
        int rowsPerPage,
        boolean dictionary,
        CompressionCodecName codec,
        boolean pageIndex,
        boolean sorted,
        boolean keyUncompressed) {

    public static SeedLayout lookupDefault(long rows) {
        return new SeedLayout(
                rows, 131_072, 1_024, false, CompressionCodecName.LZ4_RAW, true, true, false);
    }

    /**
     * What {@code LookupFileWriter} and {@code prepare} write by default: the lookup layout with
     * 256-row pages and the key column uncompressed.
     */
    public static SeedLayout writerDefault(long rows) {
        return lookupDefault(rows).withPages(131_072, 256).withKeyUncompressed(true);
    }

    public SeedLayout withPages(int rowGroupRows, int pageRows) {
        return new SeedLayout(
                rows,
                rowGroupRows,
                pageRows,
                dictionary,
                codec,
                pageIndex,
                sorted,
                keyUncompressed);
    }

    public SeedLayout withDictionary(boolean on) {
        return new SeedLayout(
                rows, rowsPerRowGroup, rowsPerPage, on, codec, pageIndex, sorted, keyUncompressed);
    }

    public SeedLayout withCodec(CompressionCodecName c) {
        return new SeedLayout(
                rows,
                rowsPerRowGroup,
                rowsPerPage,
                dictionary,
                c,
                pageIndex,
                sorted,
                keyUncompressed);
    }

    public SeedLayout withSorted(boolean s) {
        return new SeedLayout(
                rows,
                rowsPerRowGroup,
                rowsPerPage,
                dictionary,
                codec,
                pageIndex,
                s,
                keyUncompressed);
    }

    public SeedLayout withKeyUncompressed(boolean on) {
        return new SeedLayout(
                rows, rowsPerRowGroup, rowsPerPage, dictionary, codec, pageIndex, sorted, on);
    }

    /** A file-name-safe identity of every parameter. */
    public String id() {
        return String.format(
                Locale.ROOT,
                "n%d-rg%d-p%d-dict%s-%s-%s-%s%s",
                rows,
                rowsPerRowGroup,
                rowsPerPage,
                dictionary ? "on" : "off",
                codec.name().toLowerCase(Locale.ROOT),
                pageIndex ? "idx" : "noidx",
                sorted ? "sorted" : "unsorted",
                keyUncompressed ? "-keyraw" : "");
    }

    /** For CONDITIONS lines. */
    public String describe() {
        return String.format(
                Locale.ROOT,
                "rows=%d layout=rg%d/page%d/dict-%s/%s%s/%s/%s",
                rows,
                rowsPerRowGroup,
                rowsPerPage,
                dictionary ? "on" : "off",
                codec,
                keyUncompressed ? "(key-uncompressed)" : "",
                pageIndex ? "page-index" : "no-page-index",
                sorted ? "sorted" : "unsorted");
    }
}
