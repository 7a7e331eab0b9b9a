package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.engine.page.KeyDictionary;
import dev.parquetlookup.engine.page.KeyPage;
import dev.parquetlookup.engine.page.KeyStop;
import dev.parquetlookup.engine.page.PageDecoder;
import dev.parquetlookup.engine.page.PagePrefix;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Owns getting the pages of one file into memory: from this lookup's pages, the {@link PageCache},
 * or the file's {@link RangeSource} (located by the OffsetIndex; chunks without a page index are
 * read whole and walked by the {@link ChunkWalker}), decompressed only as far as the rows asked for
 * ({@link PagePrefix}) and cached when the cache admits them. Dictionaries come from {@link
 * PageDictionaries} (kept decoded in the metadata cache, page cache or not); asynchronous reads go
 * through {@link #fetch} ({@link InFlightReads}: single flight, within the caller's {@link
 * RequestLimiter}). A local disk tier plugs in below, as a decorator of the source.
 */
public final class PageLoader {

    /** Dictionary pages larger than this are not read ahead (they are fetched when needed). */
    private static final int MAX_PREFETCHED_DICTIONARY = 1 << 20;

    /**
     * The pages of one column under a key page's rows are read ahead as one range when they span at
     * most this many bytes (1 MiB, as many as the hedging reader still hedges), counted over the
     * columns of one key page together: one GET whose extra bytes take about a round trip at most.
     * Past it, at most {@value #MAX_PREFETCHED_PAGES} pages of a column are read ahead, each as its
     * own range (what every column got before).
     */
    static final int MAX_READ_AHEAD_RUN = 1 << 20;

    /** Value pages per column read ahead with a key page when their run is above the bound. */
    private static final int MAX_PREFETCHED_PAGES = 2;

    /** Rows {@code [from, to)} of one leaf column in one row group. */
    public record PageRequest(RowGroupInfo rowGroup, int leaf, long from, long to) {}

    private final FileMetadata meta;
    private final RangeSource source;
    @Nullable private final PageCache pageCache;
    private final ColumnDescriptor[] leaves;
    private final FileErrors errors;

    private final InFlightReads inFlight;
    private final PageDictionaries dictionaries;
    private final ChunkWalker walker;
    private final VerifiedKeyPages verifiedKeys;

    public PageLoader(
            FileMetadata meta,
            RangeSource source,
            @Nullable PageCache pageCache,
            @Nullable MetadataCache chunkCache,
            ColumnDescriptor[] leaves,
            FileErrors errors) {
        this.meta = meta;
        this.source = source;
        this.pageCache = pageCache;
        this.leaves = leaves;
        this.errors = errors;
        this.inFlight = new InFlightReads(source);
        this.dictionaries = new PageDictionaries(inFlight, meta, chunkCache, leaves, errors);
        this.walker = new ChunkWalker(inFlight, leaves, errors);
        this.verifiedKeys = new VerifiedKeyPages(meta.rowGroups().size(), meta.keyLeaves()[0]);
    }

    /** Leading-key pages of this file checked sorted in full so far (see KeyStop). */
    public int verifiedKeyPages() {
        return verifiedKeys.count();
    }

    public RangeSource source() {
        return source;
    }

    private FileId file() {
        return meta.file();
    }

    /** The pages covering one request's rows; they join the lookup's pages. */
    public List<LoadedPage> loadPages(
            RowGroupInfo rg, int leaf, long from, long to, LookupContext ctx) throws IOException {
        return loadPages(rg, leaf, from, to, null, ctx);
    }

    /**
     * As above, for the leading key's pages searched for one key: pages verified sorted by an
     * earlier lookup are decoded only until {@code stop} says the key's rows are behind (the page's
     * rows after them are not decoded, {@link DataPage#rowsAvailable}).
     */
    public List<LoadedPage> loadPages(
            RowGroupInfo rg,
            int leaf,
            long from,
            long to,
            @Nullable KeyStop stop,
            LookupContext ctx)
            throws IOException {
        Batch batch = new Batch();
        List<LoadedPage> pages = pages(rg, leaf, from, to, batch, null, stop, ctx);
        read(batch, ctx);
        keep(pages, ctx);
        return pages;
    }

    /**
     * Keeps {@code pages} among the pages this lookup decoded in the current file, so that a later
     * request of their rows reuses them (a key column read to check the rows an index named, then
     * projected).
     */
    public void keep(List<LoadedPage> pages, LookupContext ctx) {
        for (LoadedPage page : pages) {
            if (!ctx.loaded.contains(page)) {
                // A page decoded again for more rows replaces the earlier prefix (at the end:
                // ChunkWalker.alreadyWalked reads the order).
                LoadedPage earlier = find(ctx.loaded, page.rowGroup, page.leaf, page.pageNumber);
                if (earlier != null) {
                    ctx.loaded.remove(earlier);
                }
                ctx.loaded.add(page);
            }
        }
    }

    /**
     * The pages covering each request's rows. Pages this lookup already decoded or the page cache
     * holds are reused; the others are read in one batch, each page once even when several requests
     * need it.
     */
    public List<List<LoadedPage>> loadPages(List<PageRequest> requests, LookupContext ctx)
            throws IOException {
        List<List<LoadedPage>> result = new ArrayList<>(requests.size());
        Batch batch = new Batch();
        List<LoadedPage> walkedHere = new ArrayList<>();
        for (PageRequest r : requests) {
            result.add(
                    pages(r.rowGroup(), r.leaf(), r.from(), r.to(), batch, walkedHere, null, ctx));
        }
        read(batch, ctx);
        return result;
    }

    /**
     * The pages of one request: located by the OffsetIndex ({@link #indexedPages}, the missing ones
     * added to {@code batch}), or walked from the column chunk's start when it has none, reusing
     * walks of this lookup and of {@code walkedHere} (the other requests of a batch, if any).
     */
    private List<LoadedPage> pages(
            RowGroupInfo rg,
            int leaf,
            long from,
            long to,
            Batch batch,
            @Nullable List<LoadedPage> walkedHere,
            @Nullable KeyStop stop,
            LookupContext ctx)
            throws IOException {
        if (rg.columns()[leaf].pages() != null) {
            return indexedPages(rg, leaf, from, to, batch, stop, ctx);
        }
        PageRequest request = new PageRequest(rg, leaf, from, to);
        List<LoadedPage> walked = ChunkWalker.alreadyWalked(ctx.loaded, request);
        if (walked == null && walkedHere != null) {
            walked = ChunkWalker.alreadyWalked(walkedHere, request);
        }
        if (walked == null) {
            walked = walker.walk(request, ctx);
            if (walkedHere != null) {
                walkedHere.addAll(walked);
            }
        }
        return walked;
    }

    private static final int[] NO_ROWS = new int[0];

    /** The pages still to read in one batch, each once, with the leading rows asked of each. */
    private static final class Batch {
        final List<FileRange> ranges = new ArrayList<>();
        final List<LoadedPage> missing = new ArrayList<>(); // placeholders, one per range
        final List<KeyStop> stops = new ArrayList<>(); // per range: where a key page may stop
        int[] rowsNeeded = NO_ROWS; // grown on the first missing page

        void add(LoadedPage page, FileRange range, int rows, @Nullable KeyStop stop) {
            if (missing.size() == rowsNeeded.length) {
                rowsNeeded = Arrays.copyOf(rowsNeeded, Math.max(4, 2 * missing.size()));
            }
            rowsNeeded[missing.size()] = rows;
            stops.add(stop);
            ranges.add(range);
            missing.add(page);
        }
    }

    /**
     * The pages of a request located by the OffsetIndex: this lookup's own when they hold enough
     * rows, else the page cache's, else placeholders added to {@code batch}.
     */
    private List<LoadedPage> indexedPages(
            RowGroupInfo rg,
            int leaf,
            long from,
            long to,
            Batch batch,
            @Nullable KeyStop stop,
            LookupContext ctx) {
        PageLocations locations = rg.columns()[leaf].pages();
        int firstPage = locations.pageOfRow(from);
        int lastPage = locations.pageOfRow(to - 1);
        List<LoadedPage> pages = new ArrayList<>(lastPage - firstPage + 1);
        for (int p = firstPage; p <= lastPage; p++) {
            long firstRow = locations.firstRows()[p];
            int rows = (int) (Math.min(to, locations.endRow(p, rg.rowCount())) - firstRow);
            LoadedPage page = find(ctx.loaded, rg.ordinal(), leaf, p);
            if (page != null && page.page != null && page.page.rowsAvailable() < rows) {
                page = null; // decoded for fewer rows by an earlier step: decode again
            }
            if (page == null) {
                page = find(batch.missing, rg.ordinal(), leaf, p);
                if (page != null) {
                    int i = batch.missing.indexOf(page);
                    batch.rowsNeeded[i] = Math.max(batch.rowsNeeded[i], rows);
                    if (batch.stops.get(i) != stop) {
                        batch.stops.set(i, null); // asked for by two requests: no early stop
                    }
                }
            }
            if (page == null) {
                DataPage cached =
                        pageCache == null ? null : pageCache.page(file(), rg.ordinal(), leaf, p);
                page = new LoadedPage(rg.ordinal(), leaf, p, firstRow, cached, null);
                if (cached == null) {
                    boolean verified = stop != null && verifiedKeys.verified(rg, p);
                    batch.add(page, locations.range(p), rows, verified ? stop : null);
                }
            }
            pages.add(page);
        }
        return pages;
    }

    /**
     * Reads and decodes a batch (nothing when every page was found): local bytes lent in place,
     * remote ones through the context.
     */
    private void read(Batch batch, LookupContext ctx) throws IOException {
        if (batch.ranges.isEmpty()) {
            return;
        }
        byte[][] bytes =
                source.readsInline() ? null : ctx.read(inFlight, batch.ranges, batch.missing);
        for (int i = 0; i < batch.ranges.size(); i++) {
            FileRange range = batch.ranges.get(i);
            byte[] read = bytes == null ? null : bytes[i];
            decodeMissing(
                    batch.missing.get(i),
                    batch.rowsNeeded[i],
                    batch.stops.get(i),
                    ctx,
                    bytes == null
                            ? reader -> source.readWith(range.offset(), range.length(), reader)
                            : reader -> reader.read(ByteBuffer.wrap(read)));
        }
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
    private void decodeMissing(
            LoadedPage page, int rows, @Nullable KeyStop stop, LookupContext ctx, PageBytes bytes) {
        RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
        boolean cache =
                pageCache != null
                        && pageCache.admit(file(), page.rowGroup, page.leaf, page.pageNumber);
        // Pages of repeated leaves are decoded whole: their rows are not their values.
        boolean whole = cache || leaves[page.leaf].getMaxRepetitionLevel() > 0;
        int wanted = whole ? Integer.MAX_VALUE : rows;
        KeyStop stopAt = whole ? null : stop;
        try {
            page.page = bytes.decode(b -> decodePage(b, rg, page.leaf, wanted, cache, stopAt, ctx));
        } catch (IOException | RuntimeException e) {
            throw errors.pageError(rg, page.leaf, page.pageNumber, e);
        }
        if (cache) {
            if (page.leaf == meta.keyLeaves()[0]) {
                // Its searchable keys are kept with it: weighed here.
                page.page.reserveKeys(
                        KeyPage.keptBytesPerValue(
                                page.page, leaves[page.leaf], meta.keyTypes().get(0)));
            }
            if (leaves[page.leaf].getPrimitiveType().getPrimitiveTypeName()
                    == PrimitiveTypeName.BINARY) {
                // Lookups skip to their row by the starts it keeps: weighed here.
                page.page.reserveStarts();
            }
            pageCache.putPage(file(), page.rowGroup, page.leaf, page.pageNumber, page.page);
        }
    }

    /** Header bytes copied out of a page for parsing; larger headers are copied whole. */
    private static final int HEADER_PROBE = 256;

    private DataPage decodePage(
            ByteBuffer bytes,
            RowGroupInfo rg,
            int leaf,
            int rows,
            boolean whole,
            @Nullable KeyStop stop,
            LookupContext ctx)
            throws IOException {
        PageDecoder.Header header = header(bytes);
        CompressionCodecName codec = rg.columns()[leaf].codec();
        int size = PagePrefix.decodedSize(header, codec);
        if (size < 0) {
            throw new IOException("page size " + size + " is negative");
        }
        // Scratch arrays get slack for the decompressor's 8-byte copies.
        byte[] out = whole ? new byte[size] : ctx.scratch(size + 16);
        return PagePrefix.decode(bytes, header, codec, leaves[leaf], rows, out, !whole, stop);
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

    /** The dictionary of a dictionary-encoded page (read once per lookup, or from the cache). */
    @Nullable
    public Dictionary dictionaryFor(LoadedPage page, int leaf, LookupContext ctx)
            throws IOException {
        return dictionaries.dictionaryFor(page, leaf, ctx);
    }

    /**
     * The keys of the key page {@code loaded} of key column {@code keyIndex} (leaf {@code leaf}) as
     * a lookup searches them ({@link KeyPage#read}), its dictionary in the form the search needs.
     * The leading key's order is checked while the page is read unless this open file checked the
     * page in full before ({@link VerifiedKeyPages}); a cached page keeps its checked keys.
     */
    public KeyPage keyPage(
            LoadedPage loaded, int leaf, int keyIndex, RowGroupInfo rg, LookupContext ctx)
            throws IOException {
        DataPage page = loaded.page;
        KeyType type = meta.keyTypes().get(keyIndex);
        KeyPage kept = page.keys(type);
        if (kept != null) {
            return kept; // a cached page's keys, checked and made searchable by an earlier lookup
        }
        int pageNumber = loaded.pageNumber;
        boolean ordered = page.keysOrdered();
        // Checked in full by an earlier lookup of this open file (the same bytes).
        boolean verifiedBefore = !ordered && keyIndex == 0 && verifiedKeys.verified(rg, pageNumber);
        KeyPage.Order order =
                new KeyPage.Order(
                        keyIndex,
                        ordered || verifiedBefore,
                        (before, after) ->
                                errors.unsortedPage(rg, keyIndex, pageNumber, before, after));
        KeyPage keys =
                KeyPage.read(
                        page,
                        leaves[leaf],
                        type,
                        order,
                        ctx,
                        new KeyPage.Dictionaries() {
                            @Override
                            public KeyDictionary keys() throws IOException {
                                return dictionaries.keyDictionaryFor(loaded, leaf, type, ctx);
                            }

                            @Override
                            public Dictionary values() throws IOException {
                                return dictionaries.dictionaryFor(loaded, leaf, ctx);
                            }
                        });
        if (order.checked() && page.whole()) {
            // Checked in full: later lookups may decode it only as far as their key needs.
            verifiedKeys.verify(rg, pageNumber);
        }
        if (order.checked() || verifiedBefore) {
            page.keysChecked(type, keys); // a cached page: later lookups only search it
        }
        return keys;
    }

    // ---------------------------------------------------------------- asynchronous reads

    /** This file's reads: asynchronous ones single flight (see {@link InFlightReads}). */
    public InFlightReads reads() {
        return inFlight;
    }

    /**
     * Ranges worth reading together with the given missing pages: for a page of the leading key,
     * the pages of {@code columns} (leaves: the projected columns and the lookup's later key
     * columns) that overlap its rows (the rows a hit will read) and their dictionary pages, unless
     * cached. This turns a cold lookup into one round trip. The pages of one column are one range
     * when they span at most what is left of {@link #MAX_READ_AHEAD_RUN} bytes for the key page
     * (the lookup takes each page out of it), else its first {@value #MAX_PREFETCHED_PAGES} pages,
     * one range each.
     *
     * <p>Example: a 256-row key page over a string column of 16-row pages of 2 KiB each: one range
     * of 32 KiB holding the 16 pages, where two ranges held the first two pages before.
     */
    public List<FileRange> readAhead(List<LoadedPage> missing, int[] columns) {
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
            long runBytes = MAX_READ_AHEAD_RUN; // left for this key page's runs
            for (int leaf : columns) {
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
                int last = locations.pageOfRow(to - 1);
                long span =
                        locations.offsets()[last]
                                + locations.sizes()[last]
                                - locations.offsets()[first];
                if (span <= runBytes) {
                    runBytes -= span;
                    addRuns(rg, leaf, locations, first, last, ranges);
                } else {
                    for (int p = first; p <= last && p < first + MAX_PREFETCHED_PAGES; p++) {
                        if (!cached(rg, leaf, p)) {
                            ranges.add(locations.range(p));
                        }
                    }
                }
                if (chunk.hasDictionaryPage()
                        && chunk.firstDataPageOffset() - chunk.startOffset()
                                <= MAX_PREFETCHED_DICTIONARY
                        && !dictionaries.cached(rg.ordinal(), leaf)) {
                    ranges.add(PageDictionaries.range(chunk));
                }
            }
        }
        if (ranges == null || ranges.isEmpty()) {
            return List.of(); // every page cached
        }
        return missing.size() == 1 ? ranges : withoutOverlaps(ranges);
    }

    /**
     * {@code ranges} with overlapping ones merged (the runs under two key pages of one lookup may
     * share a page), so that no byte is asked for twice.
     */
    private static List<FileRange> withoutOverlaps(List<FileRange> ranges) {
        List<FileRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(FileRange::offset));
        List<FileRange> merged = new ArrayList<>(sorted.size());
        FileRange current = sorted.get(0);
        for (int i = 1; i < sorted.size(); i++) {
            FileRange next = sorted.get(i);
            if (next.offset() < current.end()) {
                long end = Math.max(current.end(), next.end());
                current = new FileRange(current.offset(), (int) (end - current.offset()));
            } else {
                merged.add(current);
                current = next;
            }
        }
        merged.add(current);
        return merged;
    }

    /**
     * Adds pages {@code [first, last]} of a column chunk as ranges: each run of pages next to each
     * other in the file that the page cache does not hold is one range.
     */
    private void addRuns(
            RowGroupInfo rg,
            int leaf,
            PageLocations locations,
            int first,
            int last,
            List<FileRange> ranges) {
        long runStart = -1;
        long runEnd = -1;
        for (int p = first; p <= last; p++) {
            if (cached(rg, leaf, p)) {
                continue;
            }
            long offset = locations.offsets()[p];
            if (runStart < 0 || offset != runEnd) { // a new run: the last one, if any, is done
                if (runStart >= 0) {
                    ranges.add(new FileRange(runStart, (int) (runEnd - runStart)));
                }
                runStart = offset;
            }
            runEnd = offset + locations.sizes()[p];
        }
        if (runStart >= 0) {
            ranges.add(new FileRange(runStart, (int) (runEnd - runStart)));
        }
    }

    private boolean cached(RowGroupInfo rg, int leaf, int page) {
        return pageCache != null && pageCache.page(file(), rg.ordinal(), leaf, page) != null;
    }

    /**
     * Owns which pages of one open file's leading sort-key column were found sorted in full: one
     * bit per page (pages as its OffsetIndex numbers them), per row group, set the first time a
     * lookup of this process decodes the whole page and checks its order ({@link
     * PageLoader#keyPage}). A set bit lets later lookups decompress that page only as far as their
     * key needs ({@link KeyStop}); an unset bit means the page is decoded whole and checked, as on
     * first use. Bits live as long as the open file (its {@link PageLoader}): a replaced file is a
     * new file id, opened anew, with no bits set.
     *
     * <p>Bounded: a row group's bits are allocated on its first verified page, {@code pages / 64}
     * longs (a 10M-row file of 1,024-row pages: about 1.2 KB). Thread-safe: bits are only ever set,
     * by compare-and-set.
     *
     * <p>Example: row group 3 of 128 key pages, page 70 checked: {@code words[3]} is a 2-long array
     * with bit 6 of its second long set; page 70 of row group 3 is then verified, page 71 not.
     */
    static final class VerifiedKeyPages {

        private final AtomicReferenceArray<AtomicLongArray> words;

        /** The leading key column's leaf: its OffsetIndex numbers the pages. */
        private final int keyLeaf;

        VerifiedKeyPages(int rowGroups, int keyLeaf) {
            this.words = new AtomicReferenceArray<>(rowGroups);
            this.keyLeaf = keyLeaf;
        }

        /**
         * Whether leading-key page {@code page} of {@code rg} was checked sorted in full (never for
         * a chunk without an OffsetIndex).
         */
        boolean verified(RowGroupInfo rg, int page) {
            if (rg.columns()[keyLeaf].pages() == null) {
                return false;
            }
            AtomicLongArray bits = words.get(rg.ordinal());
            int word = page >>> 6;
            return bits != null && word < bits.length() && (bits.get(word) & (1L << page)) != 0;
        }

        /** Records that leading-key page {@code page} of {@code rg} was checked sorted in full. */
        void verify(RowGroupInfo rg, int page) {
            PageLocations locations = rg.columns()[keyLeaf].pages();
            if (locations == null || page < 0 || page >= locations.pageCount()) {
                return;
            }
            int pageCount = locations.pageCount();
            int rowGroup = rg.ordinal();
            AtomicLongArray bits = words.get(rowGroup);
            if (bits == null) {
                words.compareAndSet(rowGroup, null, new AtomicLongArray((pageCount + 63) >>> 6));
                bits = words.get(rowGroup);
            }
            int word = page >>> 6;
            if (word >= bits.length()) {
                return; // a page count that changed: never trust a bit beyond the first one seen
            }
            long bit = 1L << page;
            long old;
            do {
                old = bits.get(word);
            } while ((old & bit) == 0 && !bits.compareAndSet(word, old, old | bit));
        }

        /** Pages marked verified, for tests and diagnostics. */
        int count() {
            int n = 0;
            for (int r = 0; r < words.length(); r++) {
                AtomicLongArray bits = words.get(r);
                for (int w = 0; bits != null && w < bits.length(); w++) {
                    n += Long.bitCount(bits.get(w));
                }
            }
            return n;
        }
    }

    /**
     * Owns one data page as a lookup holds it: decompressed bytes, where it sits (row group, leaf
     * column, page number) and the row-group index of its first row. Per lookup, never shared.
     */
    public static final class LoadedPage {
        public final int rowGroup;
        public final int leaf;
        public final int pageNumber;
        public final long firstRow;

        /** Null until the batch read that fetches it fills it in. */
        public DataPage page;

        /**
         * The chunk's dictionary when the page was found by walking the chunk, else resolved later.
         */
        @Nullable Dictionary dictionary;

        /** A key column's dictionary in comparable form, once resolved for this page. */
        @Nullable KeyDictionary keyDictionary;

        /**
         * The dictionary page's bytes as read for {@link #keyDictionary}, for a value read after.
         */
        @Nullable byte[] dictionaryBytes;

        LoadedPage(
                int rowGroup,
                int leaf,
                int pageNumber,
                long firstRow,
                DataPage page,
                @Nullable Dictionary dictionary) {
            this.rowGroup = rowGroup;
            this.leaf = leaf;
            this.pageNumber = pageNumber;
            this.firstRow = firstRow;
            this.page = page;
            this.dictionary = dictionary;
        }
    }
}
