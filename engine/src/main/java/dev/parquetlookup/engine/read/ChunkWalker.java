package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.engine.page.PageDecoder;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.format.PageType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Owns reading the pages of a column chunk without a page index: the whole chunk is read and its
 * pages walked (dictionary page first), and the data pages covering a request's rows are decoded
 * whole. Pages a lookup already walked are reused while they cover the rows asked for.
 */
final class ChunkWalker {

    private final InFlightReads reads;
    private final ColumnDescriptor[] leaves;
    private final FileErrors errors;

    ChunkWalker(InFlightReads reads, ColumnDescriptor[] leaves, FileErrors errors) {
        this.reads = reads;
        this.leaves = leaves;
        this.errors = errors;
    }

    /**
     * Pages of a walked chunk (no page index) this lookup already holds, if they cover the rows.
     */
    @Nullable
    static List<LoadedPage> alreadyWalked(List<LoadedPage> loaded, PageLoader.PageRequest request) {
        List<LoadedPage> pages = new ArrayList<>();
        for (LoadedPage p : loaded) {
            if (p.rowGroup == request.rowGroup().ordinal()
                    && p.leaf == request.leaf()
                    && p.firstRow + p.page.valueCount() > request.from()
                    && p.firstRow < request.to()) {
                pages.add(p);
            }
        }
        if (pages.isEmpty()
                || pages.get(0).firstRow > request.from()
                || pages.get(pages.size() - 1).firstRow
                                + pages.get(pages.size() - 1).page.valueCount()
                        < request.to()) {
            return null;
        }
        return pages;
    }

    /** No page index: read the whole column chunk and walk its pages. */
    List<LoadedPage> walk(PageLoader.PageRequest request, LookupContext ctx) throws IOException {
        RowGroupInfo rg = request.rowGroup();
        ColumnChunkInfo chunk = rg.columns()[request.leaf()];
        FileRange range = new FileRange(chunk.startOffset(), (int) chunk.totalCompressedSize());
        byte[] bytes = ctx.read(reads, range);
        List<LoadedPage> pages = new ArrayList<>();
        Dictionary dictionary = null;
        int offset = 0;
        long row = 0;
        int pageNumber = 0;
        try {
            while (offset < bytes.length && row < request.to()) {
                PageDecoder.Header header =
                        PageDecoder.header(bytes, offset, bytes.length - offset);
                int next = header.payloadOffset() + header.compressedSize();
                PageType type = header.type();
                if (type == PageType.DICTIONARY_PAGE) {
                    dictionary =
                            PageDecoder.dictionary(
                                    bytes, header, chunk.codec(), leaves[request.leaf()]);
                } else if (type == PageType.DATA_PAGE || type == PageType.DATA_PAGE_V2) {
                    int values = header.rowCount();
                    if (row + values > request.from()) {
                        DataPage page = PageDecoder.dataPage(bytes, header, chunk.codec());
                        pages.add(
                                new LoadedPage(
                                        rg.ordinal(),
                                        request.leaf(),
                                        pageNumber,
                                        row,
                                        page,
                                        dictionary));
                    }
                    row += values;
                    pageNumber++;
                }
                offset = next;
            }
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, request.leaf(), pageNumber, e);
        }
        return pages;
    }
}
