package dev.parquetlookup.engine.local;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.FooterReader;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.metadata.PageIndexReader;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;

/**
 * The one rule that decides whether a file gets a local form: <b>its pages hold more than {@value
 * #MAX_ROWS_PER_PAGE} rows on average</b>, measured on the first column chunk of its largest row
 * group (the page count from its OffsetIndex, or, without one, from its page headers). A lookup
 * reads and decompresses a whole page per column; the point-read layout has 256 rows per page
 * ({@link WriterOptions}), parquet-java's default at most 20,000; DuckDB writes one page per
 * 122,880-row column chunk, for which a lookup read 4.5 MB (docs/formats.md).
 *
 * <p>Example: a DuckDB file of 10M rows has 122,880 rows per page: {@code localForm() == true},
 * estimated at about its uncompressed column size; a parquet-java file with default pages (at most
 * 20,000 rows) or one written by {@code prepare} (256) is served as it is.
 */
public final class PageSizeRule {

    /** Average rows per page above which a file gets a local form. */
    public static final long MAX_ROWS_PER_PAGE = 16_384;

    /** Page headers read at most to count a chunk's pages without an OffsetIndex. */
    private static final int MAX_HEADERS = 16;

    /** Bytes read at once to parse one page header (a header with statistics fits easily). */
    private static final int HEADER_READ_BYTES = 16 << 10;

    /** Bytes of page index and page header per page of each column, for the estimate. */
    private static final long PAGE_OVERHEAD_BYTES = 64;

    private PageSizeRule() {}

    /**
     * What the rule says about one file.
     *
     * @param localForm whether the file gets a local form
     * @param rows rows in the file
     * @param rowsPerPage average rows per page of the measured column chunk
     * @param estimatedBytes the local form's estimated size: the columns' uncompressed size plus
     *     page index and headers for pages of {@code pageRows} rows (written LZ4_RAW, it is usually
     *     smaller)
     * @param reason one line for logs and {@code inspect}
     */
    public record Verdict(
            boolean localForm, long rows, long rowsPerPage, long estimatedBytes, String reason) {}

    /**
     * Applies the rule to {@code file}: reads its footer, and its first column's offset index or a
     * few page headers. The estimate is for the point-read layout's {@value
     * dev.parquetlookup.writer.WriterOptions#DEFAULT_PAGE_ROWS}-row pages.
     */
    public static Verdict evaluate(FileStore store, FileId file) throws IOException {
        try (RangeSource in = store.open(file)) {
            return evaluate(
                    FooterReader.read(in).metadata().getBlocks(),
                    in,
                    WriterOptions.DEFAULT_PAGE_ROWS);
        }
    }

    /**
     * Applies the rule from the footer the engine cached for {@code meta}'s file: no footer read.
     * The measured chunk's page count comes from its row group's page index: cached, or the file's
     * own read into {@code cache} through {@code source} (one read, which a lookup in that row
     * group would make); a file without one has its first page headers read (one small read for a
     * chunk of large pages).
     *
     * @param pageRows rows per page of the local form, for the estimate
     */
    public static Verdict evaluate(
            FileMetadata meta, MetadataCache cache, RangeSource source, int pageRows)
            throws IOException {
        long rows = 0;
        long uncompressed = 0;
        long pagesAfter = 0;
        int largest = -1;
        long largestRows = 0;
        for (int r = 0; r < meta.rowGroups().size(); r++) {
            RowGroupInfo rg = meta.footerRowGroup(r);
            rows += rg.rowCount();
            for (ColumnChunkInfo c : rg.columns()) {
                uncompressed += c.totalUncompressedSize();
                pagesAfter += (rg.rowCount() + pageRows - 1) / pageRows;
            }
            if (largest < 0 || rg.rowCount() > largestRows) {
                largest = r;
                largestRows = rg.rowCount();
            }
        }
        long estimate = uncompressed + pagesAfter * PAGE_OVERHEAD_BYTES;
        if (largest < 0 || largestRows == 0 || meta.footerRowGroup(largest).columns().length == 0) {
            return new Verdict(false, rows, 0, estimate, "no rows");
        }
        RowGroupIndexes lazy = meta.bind(source, cache).rowGroupIndexes();
        RowGroupInfo indexed;
        if (lazy == null) {
            indexed = meta.rowGroups().get(largest);
        } else if (meta.pageIndex().kind() == PageIndexOrigin.Kind.OWN) {
            indexed = lazy.get(largest); // one read, kept for lookups, when not cached yet
        } else {
            indexed = lazy.cached(largest);
        }
        PageLocations pages = indexed == null ? null : indexed.columns()[0].pages();
        if (pages != null) {
            return verdict(rows, largestRows, pages.pageCount(), estimate, "from its page index");
        }
        // Not at hand: its first page headers, one small read (values counted as rows: exact for
        // a flat first column).
        ColumnChunkInfo chunk = meta.footerRowGroup(largest).columns()[0];
        double headers =
                dataPages(
                        source,
                        chunk.startOffset(),
                        chunk.startOffset() + chunk.totalCompressedSize(),
                        largestRows);
        return verdict(rows, largestRows, headers, estimate, "from its page headers");
    }

    private static Verdict verdict(
            long rows, long largestRows, double pages, long estimate, String source) {
        long rowsPerPage = (long) Math.ceil(largestRows / Math.max(1.0, pages));
        boolean needed = rowsPerPage > MAX_ROWS_PER_PAGE;
        String reason =
                String.format(
                        "%,d rows per page (%s) %s %,d",
                        rowsPerPage, source, needed ? ">" : "<=", MAX_ROWS_PER_PAGE);
        return new Verdict(needed, rows, rowsPerPage, estimate, reason);
    }

    /**
     * Applies the rule to the row groups of {@code file}'s footer: reads the measured chunk's
     * OffsetIndex, or without one its page headers (a few small reads).
     *
     * @param pageRows rows per page of the local form, for the estimate
     */
    private static Verdict evaluate(List<BlockMetaData> blocks, RangeSource file, int pageRows)
            throws IOException {
        long rows = 0;
        long uncompressed = 0;
        long pagesAfter = 0;
        BlockMetaData largest = null;
        for (BlockMetaData b : blocks) {
            rows += b.getRowCount();
            for (ColumnChunkMetaData c : b.getColumns()) {
                uncompressed += c.getTotalUncompressedSize();
                pagesAfter += (b.getRowCount() + pageRows - 1) / pageRows;
            }
            if (largest == null || b.getRowCount() > largest.getRowCount()) {
                largest = b;
            }
        }
        long estimate = uncompressed + pagesAfter * PAGE_OVERHEAD_BYTES;
        if (largest == null || largest.getRowCount() == 0 || largest.getColumns().isEmpty()) {
            return new Verdict(false, rows, 0, estimate, "no rows");
        }
        ColumnChunkMetaData chunk = largest.getColumns().get(0);
        IndexReference offsets = chunk.getOffsetIndexReference();
        double pages;
        if (offsets != null) {
            byte[] bytes = file.read(new FileRange(offsets.getOffset(), offsets.getLength()));
            pages = PageIndexReader.decodeOffsetIndex(bytes, 0, bytes.length).pageCount();
        } else {
            pages =
                    dataPages(
                            file,
                            chunk.getStartingPos(),
                            chunk.getStartingPos() + chunk.getTotalSize(),
                            chunk.getValueCount());
        }
        return verdict(
                rows,
                largest.getRowCount(),
                pages,
                estimate,
                offsets != null ? "from its offset index" : "from its page headers");
    }

    /**
     * Data pages of the chunk from {@code pos} to {@code end} holding {@code valueCount} values,
     * from its page headers: the first {@value #MAX_HEADERS} pages are read, and a longer chunk is
     * extrapolated from their values (its pages are small anyway).
     */
    private static double dataPages(RangeSource file, long pos, long end, long valueCount)
            throws IOException {
        long values = 0;
        int pages = 0;
        byte[] buffer = new byte[HEADER_READ_BYTES];
        for (int headers = 0;
                headers < MAX_HEADERS && pos < end && values < valueCount;
                headers++) {
            int n = (int) Math.min(buffer.length, end - pos);
            file.readFully(pos, buffer, 0, n);
            ByteArrayInputStream bytes = new ByteArrayInputStream(buffer, 0, n);
            PageHeader header = Util.readPageHeader(bytes);
            long headerLength = n - bytes.available();
            switch (header.getType()) {
                case DATA_PAGE -> {
                    values += header.getData_page_header().getNum_values();
                    pages++;
                }
                case DATA_PAGE_V2 -> {
                    values += header.getData_page_header_v2().getNum_values();
                    pages++;
                }
                default -> {}
            }
            pos += headerLength + header.getCompressed_page_size();
        }
        if (pages == 0 || values == 0) {
            return 1;
        }
        // Values per page over the pages seen, spread over the chunk's values.
        return Math.max(pages, (double) valueCount * pages / values);
    }
}
