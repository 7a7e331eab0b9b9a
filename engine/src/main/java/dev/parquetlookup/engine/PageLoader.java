package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.ColumnChunkInfo;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.PageLocations;
import dev.parquetlookup.metadata.RowGroupInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.format.PageType;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Owns getting the pages of one file into memory: from this lookup's pages, the {@link PageCache},
 * or the file's {@link RangeSource} (located by the OffsetIndex; chunks without a page index are
 * read whole and walked), decompressed and cached. Asynchronous reads go through {@link #fetch}:
 * one request per range in flight, shared by every lookup that needs it (single flight), started
 * within the caller's {@link RequestLimiter}. A local disk tier plugs in below, as a decorator of
 * the source.
 */
final class PageLoader {

    /** Dictionary pages larger than this are not read ahead (they are fetched when needed). */
    private static final int MAX_PREFETCHED_DICTIONARY = 1 << 20;

    /** Value pages per column read ahead with a key page; more are fetched when needed. */
    private static final int MAX_PREFETCHED_PAGES = 2;

    /** Rows {@code [from, to)} of one leaf column in one row group. */
    record PageRequest(RowGroupInfo rowGroup, int leaf, long from, long to) {}

    private final FileMetadata meta;
    private final RangeSource source;
    @Nullable private final PageCache pageCache;
    private final ColumnDescriptor[] leaves;
    private final FileErrors errors;

    /** Requests in flight by range: a second lookup needing the range joins the first's. */
    private final ConcurrentHashMap<FileRange, CompletableFuture<byte[]>> inFlight =
            new ConcurrentHashMap<>();

    PageLoader(
            FileMetadata meta,
            RangeSource source,
            @Nullable PageCache pageCache,
            ColumnDescriptor[] leaves,
            FileErrors errors) {
        this.meta = meta;
        this.source = source;
        this.pageCache = pageCache;
        this.leaves = leaves;
        this.errors = errors;
    }

    RangeSource source() {
        return source;
    }

    private FileId file() {
        return meta.file();
    }

    /** The pages covering one request's rows; they join the lookup's pages. */
    List<LoadedPage> loadPages(RowGroupInfo rg, int leaf, long from, long to, LookupContext ctx)
            throws IOException {
        List<LoadedPage> pages =
                loadPages(List.of(new PageRequest(rg, leaf, from, to)), ctx).get(0);
        for (LoadedPage page : pages) {
            if (!ctx.loaded.contains(page)) {
                // A page decoded again for more rows replaces the earlier prefix.
                ctx.loaded.removeIf(
                        p ->
                                p.rowGroup == page.rowGroup
                                        && p.leaf == page.leaf
                                        && p.pageNumber == page.pageNumber);
                ctx.loaded.add(page);
            }
        }
        return pages;
    }

    /**
     * The pages covering each request's rows. Pages this lookup already decoded or the page cache
     * holds are reused; the others are read in one batch, each page once even when several requests
     * need it.
     */
    List<List<LoadedPage>> loadPages(List<PageRequest> requests, LookupContext ctx)
            throws IOException {
        List<List<LoadedPage>> result = new ArrayList<>(requests.size());
        List<FileRange> ranges = new ArrayList<>();
        List<LoadedPage> missing = new ArrayList<>(); // placeholders, one per range
        int[] rowsNeeded = new int[4]; // per missing page: its leading rows the requests read
        List<LoadedPage> walkedHere = new ArrayList<>();
        for (PageRequest request : requests) {
            RowGroupInfo rg = request.rowGroup();
            PageLocations locations = rg.columns()[request.leaf()].pages();
            if (locations == null) {
                List<LoadedPage> walked = alreadyWalked(ctx.loaded, request);
                if (walked == null) {
                    walked = alreadyWalked(walkedHere, request);
                }
                if (walked == null) {
                    walked = walkChunk(request, ctx);
                    walkedHere.addAll(walked);
                }
                result.add(walked);
                continue;
            }
            int firstPage = locations.pageOfRow(request.from());
            int lastPage = locations.pageOfRow(request.to() - 1);
            List<LoadedPage> pages = new ArrayList<>(lastPage - firstPage + 1);
            for (int p = firstPage; p <= lastPage; p++) {
                long firstRow = locations.firstRows()[p];
                int rows =
                        (int)
                                (Math.min(request.to(), locations.endRow(p, rg.rowCount()))
                                        - firstRow);
                LoadedPage page = find(ctx.loaded, rg.ordinal(), request.leaf(), p);
                if (page != null && page.page != null && page.page.rowsAvailable() < rows) {
                    page = null; // decoded for fewer rows by an earlier step: decode again
                }
                if (page == null) {
                    page = find(missing, rg.ordinal(), request.leaf(), p);
                    if (page != null) {
                        int i = missing.indexOf(page);
                        rowsNeeded[i] = Math.max(rowsNeeded[i], rows);
                    }
                }
                if (page == null) {
                    DataPage cached =
                            pageCache == null
                                    ? null
                                    : pageCache.page(file(), rg.ordinal(), request.leaf(), p);
                    page = new LoadedPage(rg.ordinal(), request.leaf(), p, firstRow, cached, null);
                    if (cached == null) {
                        ranges.add(locations.range(p));
                        if (missing.size() == rowsNeeded.length) {
                            rowsNeeded = java.util.Arrays.copyOf(rowsNeeded, 2 * missing.size());
                        }
                        rowsNeeded[missing.size()] = rows;
                        missing.add(page);
                    }
                }
                pages.add(page);
            }
            result.add(pages);
        }
        if (!ranges.isEmpty()) {
            if (source.readsInline()) {
                for (int i = 0; i < ranges.size(); i++) {
                    FileRange range = ranges.get(i);
                    decodeMissing(
                            missing.get(i),
                            rowsNeeded[i],
                            ctx,
                            reader -> source.readWith(range.offset(), range.length(), reader));
                }
            } else {
                byte[][] bytes = ctx.read(this, ranges, missing);
                for (int i = 0; i < bytes.length; i++) {
                    ByteBuffer page = ByteBuffer.wrap(bytes[i]);
                    decodeMissing(missing.get(i), rowsNeeded[i], ctx, reader -> reader.read(page));
                }
            }
        }
        return result;
    }

    /** Runs a page decode over the bytes of one range, wherever they lie. */
    @FunctionalInterface
    private interface PageBytes {
        DataPage decode(RangeSource.RangeReader<DataPage> reader) throws IOException;
    }

    /**
     * Decodes one missing page from its bytes (a local file's, lent in place, or a remote read's)
     * only as far as the {@code rows} asked for, into the lookup's scratch arrays. A page the cache
     * admits is decoded whole into its own array and cached instead.
     */
    private void decodeMissing(LoadedPage page, int rows, LookupContext ctx, PageBytes bytes) {
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        boolean cache =
                pageCache != null
                        && pageCache.admit(file(), page.rowGroup, page.leaf, page.pageNumber);
        int wanted = cache ? Integer.MAX_VALUE : rows;
        try {
            page.page = bytes.decode(b -> decodePage(b, rg, page.leaf, wanted, cache, ctx));
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, page.leaf, page.pageNumber, e);
        }
        if (cache) {
            pageCache.putPage(file(), page.rowGroup, page.leaf, page.pageNumber, page.page);
        }
    }

    /** Header bytes copied out of a page for parsing; larger headers are copied whole. */
    private static final int HEADER_PROBE = 256;

    private DataPage decodePage(
            ByteBuffer bytes, RowGroupInfo rg, int leaf, int rows, boolean whole, LookupContext ctx)
            throws IOException {
        PageDecoder.Header header = header(bytes);
        CompressionCodecName codec = rg.columns()[leaf].codec();
        int size = PagePrefix.decodedSize(header, codec);
        if (size < 0) {
            throw new IOException("page size " + size + " is negative");
        }
        // Scratch arrays get slack for the decompressor's 8-byte copies.
        byte[] out = whole ? new byte[size] : ctx.scratch(size + 16);
        return PagePrefix.decode(bytes, header, codec, leaves[leaf], rows, out, !whole);
    }

    /** The header of the page in {@code bytes}: parsed in place from a heap array, else a copy. */
    private static PageDecoder.Header header(ByteBuffer bytes) throws IOException {
        int length = bytes.limit();
        if (bytes.hasArray() && bytes.arrayOffset() == 0) {
            return PageDecoder.header(bytes.array(), 0, length);
        }
        byte[] head = new byte[Math.min(length, HEADER_PROBE)];
        bytes.get(0, head, 0, head.length);
        try {
            return PageDecoder.header(head, 0, head.length, length);
        } catch (IOException e) {
            if (head.length == length) {
                throw e;
            }
            head = new byte[length];
            bytes.get(0, head, 0, length);
            return PageDecoder.header(head, 0, length);
        }
    }

    @Nullable
    private static LoadedPage find(List<LoadedPage> pages, int rowGroup, int leaf, int page) {
        for (LoadedPage p : pages) {
            if (p.rowGroup == rowGroup && p.leaf == leaf && p.pageNumber == page) {
                return p;
            }
        }
        return null;
    }

    /**
     * Pages of a walked chunk (no page index) this lookup already holds, if they cover the rows.
     */
    @Nullable
    private static List<LoadedPage> alreadyWalked(List<LoadedPage> loaded, PageRequest request) {
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
    private List<LoadedPage> walkChunk(PageRequest request, LookupContext ctx) throws IOException {
        RowGroupInfo rg = request.rowGroup();
        ColumnChunkInfo chunk = rg.columns()[request.leaf()];
        FileRange range = new FileRange(chunk.startOffset(), (int) chunk.totalCompressedSize());
        byte[] bytes = ctx.read(this, range);
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

    /** The dictionary of a dictionary-encoded page (read once per lookup, or from the cache). */
    @Nullable
    Dictionary dictionaryFor(LoadedPage page, int leaf, LookupContext ctx) throws IOException {
        if (!page.page.valueEncoding().usesDictionary()) {
            return null;
        }
        if (page.dictionary != null) {
            return page.dictionary;
        }
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        if (pageCache != null) {
            Dictionary cached = pageCache.dictionary(file(), rg.ordinal(), leaf);
            if (cached != null) {
                return cached;
            }
        }
        ColumnChunkInfo chunk = rg.columns()[leaf];
        if (!chunk.hasDictionaryPage()) {
            throw errors.missingDictionary(rg, leaf);
        }
        byte[] bytes = ctx.read(this, dictionaryRange(chunk));
        Dictionary dictionary;
        int size;
        try {
            PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
            size = header.uncompressedSize();
            dictionary = PageDecoder.dictionary(bytes, header, chunk.codec(), leaves[leaf]);
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, leaf, -1, e);
        }
        if (pageCache != null) {
            pageCache.putDictionary(file(), rg.ordinal(), leaf, dictionary, 64 + 2 * size);
        }
        page.dictionary = dictionary;
        return dictionary;
    }

    /**
     * A key page's dictionary in comparable form, or null when the page is not dictionary-encoded:
     * built once from {@link #dictionaryFor} and cached beside it.
     */
    @Nullable
    KeyDictionary keyDictionaryFor(LoadedPage page, int leaf, KeyType type, LookupContext ctx)
            throws IOException {
        if (!page.page.valueEncoding().usesDictionary()) {
            return null;
        }
        if (page.keyDictionary != null) {
            return page.keyDictionary;
        }
        if (page.dictionary != null) {
            page.keyDictionary = KeyDictionary.of(page.dictionary, type); // a walked chunk's
            return page.keyDictionary;
        }
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        KeyDictionary keys =
                pageCache == null ? null : pageCache.keyDictionary(file(), rg.ordinal(), leaf);
        if (keys == null) {
            ColumnChunkInfo chunk = rg.columns()[leaf];
            if (!chunk.hasDictionaryPage()) {
                throw errors.missingDictionary(rg, leaf);
            }
            byte[] bytes = ctx.read(this, dictionaryRange(chunk));
            try {
                PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
                byte[] values = PageDecoder.dictionaryValues(bytes, header, chunk.codec());
                keys = KeyDictionary.ofPlain(values, header.valueCount(), type);
            } catch (IOException | RuntimeException e) {
                throw errors.pageError(rg, leaf, -1, e);
            }
            if (pageCache != null) {
                pageCache.putKeyDictionary(file(), rg.ordinal(), leaf, keys);
            }
        }
        page.keyDictionary = keys;
        return keys;
    }

    private static FileRange dictionaryRange(ColumnChunkInfo chunk) {
        return new FileRange(
                chunk.startOffset(), (int) (chunk.firstDataPageOffset() - chunk.startOffset()));
    }

    // ---------------------------------------------------------------- asynchronous reads

    /**
     * Starts (or joins) one request per range: a range already in flight for another lookup is
     * shared, the others are read in one {@link RangeSource#readAllAsync} started within {@code
     * limiter}. Local sources complete the futures before this returns.
     */
    List<CompletableFuture<byte[]>> fetch(List<FileRange> ranges, RequestLimiter limiter) {
        List<CompletableFuture<byte[]>> result = new ArrayList<>(ranges.size());
        List<FileRange> mine = null;
        List<CompletableFuture<byte[]>> mineFutures = null;
        for (FileRange range : ranges) {
            CompletableFuture<byte[]> future = new CompletableFuture<>();
            CompletableFuture<byte[]> existing = inFlight.putIfAbsent(range, future);
            if (existing != null) {
                result.add(existing);
                continue;
            }
            if (mine == null) {
                mine = new ArrayList<>(ranges.size());
                mineFutures = new ArrayList<>(ranges.size());
            }
            mine.add(range);
            mineFutures.add(future);
            result.add(future);
        }
        if (mine != null) {
            List<FileRange> requested = mine;
            List<CompletableFuture<byte[]>> futures = mineFutures;
            limiter.submit(requested.size(), () -> source.readAllAsync(requested))
                    .whenComplete(
                            (bytes, failure) -> {
                                for (int i = 0; i < futures.size(); i++) {
                                    inFlight.remove(requested.get(i), futures.get(i));
                                    if (failure != null) {
                                        futures.get(i).completeExceptionally(unwrap(failure));
                                    } else {
                                        futures.get(i).complete(bytes[i]);
                                    }
                                }
                            });
        }
        return result;
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /**
     * Ranges worth reading together with the given missing pages: for a page of the leading key,
     * the pages of {@code projected} leaves that overlap its rows (the rows a hit will read) and
     * their dictionary pages, unless cached. This turns a cold lookup into one round trip.
     */
    List<FileRange> readAhead(List<LoadedPage> missing, int[] projected) {
        int keyLeaf = meta.keyLeaves()[0];
        List<FileRange> ranges = null;
        for (LoadedPage page : missing) {
            if (page.leaf != keyLeaf) {
                continue;
            }
            RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
            PageLocations keyPages = rg.columns()[keyLeaf].pages();
            long from = keyPages.firstRows()[page.pageNumber];
            long to = keyPages.endRow(page.pageNumber, rg.rowCount());
            for (int leaf : projected) {
                if (leaf == keyLeaf) {
                    continue;
                }
                ColumnChunkInfo chunk = rg.columns()[leaf];
                PageLocations locations = chunk.pages();
                if (locations == null || to <= from) {
                    continue;
                }
                if (ranges == null) {
                    ranges = new ArrayList<>(4);
                }
                int first = locations.pageOfRow(from);
                int last = Math.min(locations.pageOfRow(to - 1), first + MAX_PREFETCHED_PAGES - 1);
                for (int p = first; p <= last; p++) {
                    if (pageCache == null
                            || pageCache.page(file(), rg.ordinal(), leaf, p) == null) {
                        ranges.add(locations.range(p));
                    }
                }
                if (chunk.hasDictionaryPage()
                        && chunk.firstDataPageOffset() - chunk.startOffset()
                                <= MAX_PREFETCHED_DICTIONARY
                        && (pageCache == null
                                || pageCache.dictionary(file(), rg.ordinal(), leaf) == null)) {
                    ranges.add(dictionaryRange(chunk));
                }
            }
        }
        return ranges == null ? List.of() : ranges;
    }
}
