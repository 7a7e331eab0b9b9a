package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.ColumnChunkInfo;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeySearch;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.PageLocations;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One sorted Parquet file of a snapshot: its cached metadata and its shared {@link RangeSource}.
 * Finds the rows of a key and reads projected columns of those rows. Thread-safe and lock-free: all
 * state is immutable; reads are positioned.
 *
 * <p>One lookup: row groups by the leading key's min/max (binary search), then pages by the
 * ColumnIndex minimums and maximums (binary search), then the key page is read and searched, then
 * for each projected column the OffsetIndex gives the page holding those rows, fetched together in
 * one {@link RangeSource#readAll} and decoded only up to the last wanted row.
 */
final class SortedFile implements Closeable {

    /** Rows {@code [from, to)} of one row group (row-group relative). */
    record RowSpan(int rowGroup, long from, long to) {}

    private final FileMetadata meta;
    private final RangeSource source;
    @Nullable private final PageCache pageCache;
    private final ColumnDescriptor[] leaves;
    private final Map<String, Integer> leafOfColumn;
    private final Map<String, ColumnTypes.ValueReader> readers;
    // Boxed once: every lookup compares against them.
    @Nullable private final Object minKey;
    @Nullable private final Object maxKey;

    SortedFile(FileMetadata meta, RangeSource source, @Nullable PageCache pageCache) {
        this.meta = meta;
        this.source = source;
        this.pageCache = pageCache;
        MessageType schema = meta.schema();
        this.leaves = schema.getColumns().toArray(new ColumnDescriptor[0]);
        this.leafOfColumn = new HashMap<>();
        this.readers = new HashMap<>();
        int leaf = 0;
        for (Type field : schema.getFields()) {
            leafOfColumn.put(field.getName(), leaf);
            if (field.isPrimitive() && !field.isRepetition(Type.Repetition.REPEATED)) {
                ValueType type = ColumnTypes.valueType(field);
                if (type.kind() != ValueType.Kind.UNSUPPORTED) {
                    readers.put(field.getName(), ColumnTypes.reader(field.asPrimitiveType()));
                    checkCodecs(field.getName(), leaf);
                }
            }
            leaf += countLeaves(field);
        }
        KeyRanges rg = meta.rowGroupKeys();
        this.minKey = rg.size() == 0 ? null : rg.min(0);
        this.maxKey = rg.size() == 0 ? null : rg.max(rg.size() - 1);
    }

    /** Refuses at open a readable column whose pages use a codec we cannot decompress. */
    private void checkCodecs(String column, int leaf) {
        for (RowGroupInfo rg : meta.rowGroups()) {
            CompressionCodecName codec = rg.columns()[leaf].codec();
            if (!Decompression.supports(codec)) {
                throw new LookupFileException(
                        "File "
                                + file()
                                + ": column '"
                                + column
                                + "' is compressed with "
                                + codec
                                + ", which parquet-lookup cannot read. Rewrite the file with"
                                + " 'prepare' (LZ4_RAW, ZSTD, SNAPPY, GZIP or UNCOMPRESSED).");
            }
        }
    }

    FileMetadata metadata() {
        return meta;
    }

    FileId file() {
        return meta.file();
    }

    /** The leading key's smallest value in this file, or null for a file without keys. */
    @Nullable
    Object minKey() {
        return minKey;
    }

    /** The leading key's largest value (the max of all row-group maxima). */
    @Nullable
    Object maxKey() {
        return maxKey;
    }

    int leaf(String column) {
        Integer leaf = leafOfColumn.get(column);
        if (leaf == null) {
            throw new LookupFileException("File " + file() + " has no column '" + column + "'.");
        }
        return leaf;
    }

    // ---------------------------------------------------------------- finding rows

    /**
     * Adds the spans of rows whose first {@code key.length} sort-key columns equal {@code key}
     * (comparable forms, see {@link KeyType}).
     */
    void findRows(Object[] key, List<RowSpan> out, List<LoadedPage> loaded) throws IOException {
        KeyRanges rowGroups = meta.rowGroupKeys();
        int first = rowGroups.firstWithMaxAtLeast(key[0]);
        int last = rowGroups.lastWithMinAtMost(key[0]);
        for (int e = first; e <= last; e++) {
            RowGroupInfo rg = meta.rowGroups().get(rowGroups.entry(e));
            findInRowGroup(rg, key, out, loaded);
        }
    }

    private void findInRowGroup(
            RowGroupInfo rg, Object[] key, List<RowSpan> out, List<LoadedPage> loaded)
            throws IOException {
        int keyLeaf = meta.keyLeaves()[0];
        long from;
        long to;
        if (rg.hasPageIndex(keyLeaf)) {
            KeyRanges pages = rg.keyPages()[0];
            int first = pages.firstWithMaxAtLeast(key[0]);
            int last = pages.lastWithMinAtMost(key[0]);
            if (first > last) {
                return; // between pages or outside: no page can hold the key, nothing to read
            }
            PageLocations locations = rg.columns()[keyLeaf].pages();
            from = locations.firstRows()[pages.entry(first)];
            to = locations.endRow(pages.entry(last), rg.rowCount());
            for (int k = 1; k < key.length && from < to; k++) {
                long[] narrowed = narrow(rg, k, key[k], from, to);
                from = narrowed[0];
                to = narrowed[1];
            }
            if (from >= to) {
                return;
            }
        } else {
            from = 0;
            to = rg.rowCount();
        }
        if (key.length == 1) {
            searchSingleKey(rg, key[0], from, to, out, loaded);
        } else {
            searchCompositeKey(rg, key, from, to, out, loaded);
        }
    }

    /**
     * Narrows candidate rows by a later key column's page bounds: pages of that column that overlap
     * {@code [from, to)} and whose bounds exclude the key cannot hold a match at their ends.
     */
    private long[] narrow(RowGroupInfo rg, int k, Object key, long from, long to) {
        KeyRanges pages = rg.keyPages()[k];
        int leaf = meta.keyLeaves()[k];
        PageLocations locations = rg.columns()[leaf].pages();
        if (pages == null || locations == null) {
            return new long[] {from, to};
        }
        // Trim leading and trailing pages whose bounds exclude the key (null pages never match).
        int firstPage = locations.pageOfRow(from);
        int lastPage = locations.pageOfRow(to - 1);
        long newFrom = from;
        long newTo = to;
        int entry = 0;
        while (entry < pages.size() && pages.entry(entry) < firstPage) {
            entry++;
        }
        for (int p = firstPage; p <= lastPage; p++) {
            boolean hasBounds = entry < pages.size() && pages.entry(entry) == p;
            boolean mayHold = hasBounds && pages.contains(entry, key);
            if (hasBounds) {
                entry++;
            }
            if (mayHold) {
                break;
            }
            newFrom = Math.max(newFrom, locations.endRow(p, rg.rowCount()));
        }
        int lastEntry = pages.size() - 1;
        while (lastEntry >= 0 && pages.entry(lastEntry) > lastPage) {
            lastEntry--;
        }
        for (int p = lastPage; p >= firstPage; p--) {
            boolean hasBounds = lastEntry >= 0 && pages.entry(lastEntry) == p;
            boolean mayHold = hasBounds && pages.contains(lastEntry, key);
            if (hasBounds) {
                lastEntry--;
            }
            if (mayHold) {
                break;
            }
            newTo = Math.min(newTo, locations.firstRows()[p]);
        }
        return new long[] {newFrom, Math.max(newFrom, newTo)};
    }

    /**
     * The rows of {@code [from, to)} whose leading key equals {@code key}, found by binary search
     * in the leading key's pages: {@code {first, end}}, or {@code null} when none. They are
     * contiguous because the leading key is sorted (checked while decoding).
     */
    @Nullable
    private long[] leadingKeyRows(
            RowGroupInfo rg, Object key, long from, long to, List<LoadedPage> loaded)
            throws IOException {
        int leaf = meta.keyLeaves()[0];
        KeyType type = meta.keyTypes().get(0);
        long matchFrom = -1;
        long matchTo = -1;
        for (LoadedPage page : loadPages(rg, leaf, from, to, loaded)) {
            KeyPage keys;
            try {
                keys = KeyPage.decode(page, leaves[leaf], type, this, rg, 0);
            } catch (IOException | RuntimeException e) {
                throw pageError(rg, leaf, page.pageNumber, e);
            }
            int lo = keys.lowerBound(key);
            int hi = keys.upperBound(key);
            if (lo < hi) {
                if (matchFrom < 0) {
                    matchFrom = page.firstRow + keys.row(lo);
                }
                matchTo = page.firstRow + keys.row(hi - 1) + 1;
            }
        }
        return matchFrom < 0 ? null : new long[] {Math.max(from, matchFrom), Math.min(to, matchTo)};
    }

    private void searchSingleKey(
            RowGroupInfo rg,
            Object key,
            long from,
            long to,
            List<RowSpan> out,
            List<LoadedPage> loaded)
            throws IOException {
        long[] rows = leadingKeyRows(rg, key, from, to, loaded);
        if (rows != null) {
            out.add(new RowSpan(rg.ordinal(), rows[0], rows[1]));
        }
    }

    /**
     * Composite keys: the leading key's rows by binary search, then the later key columns are
     * compared row by row only there (they are sorted only within runs of equal leading keys).
     */
    private void searchCompositeKey(
            RowGroupInfo rg,
            Object[] key,
            long from,
            long to,
            List<RowSpan> out,
            List<LoadedPage> loaded)
            throws IOException {
        long[] lead = leadingKeyRows(rg, key[0], from, to, loaded);
        if (lead == null) {
            return;
        }
        from = lead[0];
        to = lead[1];
        int n = key.length;
        int rows = (int) (to - from);
        Object[][] columns = new Object[n][];
        for (int k = 1; k < n; k++) {
            int leaf = meta.keyLeaves()[k];
            KeyType type = meta.keyTypes().get(k);
            Object[] values = new Object[rows];
            for (LoadedPage page : loadPages(rg, leaf, from, to, loaded)) {
                KeyPage keys;
                try {
                    keys = KeyPage.decode(page, leaves[leaf], type, this, rg, k);
                } catch (IOException | RuntimeException e) {
                    throw pageError(rg, leaf, page.pageNumber, e);
                }
                for (int i = 0; i < keys.size(); i++) {
                    long row = page.firstRow + keys.row(i);
                    if (row >= from && row < to) {
                        values[(int) (row - from)] = keys.key(i);
                    }
                }
            }
            columns[k] = values;
        }
        long runStart = -1;
        for (int r = 0; r < rows; r++) {
            boolean match = true;
            for (int k = 1; k < n && match; k++) {
                Object v = columns[k][r];
                match = v != null && meta.keyTypes().get(k).compare(v, key[k]) == 0;
            }
            if (match && runStart < 0) {
                runStart = from + r;
            } else if (!match && runStart >= 0) {
                out.add(new RowSpan(rg.ordinal(), runStart, from + r));
                runStart = -1;
            }
        }
        if (runStart >= 0) {
            out.add(new RowSpan(rg.ordinal(), runStart, to));
        }
    }

    // ---------------------------------------------------------------- reading values

    /**
     * Reads {@code columns} of the rows of {@code spans}, appending one {@code Object[]} per row
     * (values in {@link ValueType}'s representation, in column order) to {@code out}.
     */
    void readRows(
            List<RowSpan> spans, List<String> columns, List<LoadedPage> loaded, List<Object[]> out)
            throws IOException {
        int total = 0;
        for (RowSpan span : spans) {
            total += (int) (span.to() - span.from());
        }
        if (total == 0) {
            return;
        }
        Object[][] rows = new Object[total][];
        for (int i = 0; i < total; i++) {
            rows[i] = new Object[columns.size()];
        }
        // Fetch every page of every column in one request batch where the page index allows.
        List<PageRequest> requests = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            int leaf = leaf(columns.get(c));
            for (RowSpan span : spans) {
                requests.add(
                        new PageRequest(
                                meta.rowGroups().get(span.rowGroup()),
                                leaf,
                                span.from(),
                                span.to()));
            }
        }
        List<List<LoadedPage>> pages = loadPages(requests, loaded);
        int request = 0;
        for (int c = 0; c < columns.size(); c++) {
            ColumnTypes.ValueReader reader = readers.get(columns.get(c));
            int leaf = leaf(columns.get(c));
            int row = 0;
            for (RowSpan span : spans) {
                for (LoadedPage page : pages.get(request++)) {
                    try {
                        PageCursor cursor =
                                new PageCursor(page.page, leaves[leaf], dictionaryFor(page, leaf));
                        long pageEnd = page.firstRow + cursor.rows();
                        long start = Math.max(span.from(), page.firstRow);
                        long end = Math.min(span.to(), pageEnd);
                        cursor.skipRows((int) (start - page.firstRow));
                        for (long r = start; r < end; r++) {
                            if (!cursor.isNextNull()) {
                                rows[row][c] = cursor.read(reader);
                            }
                            row++;
                        }
                    } catch (IOException | RuntimeException e) {
                        throw pageError(
                                meta.rowGroups().get(page.rowGroup), leaf, page.pageNumber, e);
                    }
                }
            }
        }
        for (Object[] r : rows) {
            out.add(r);
        }
    }

    /** Every row of every row group, {@code columns} projected, in file order. */
    void scan(List<String> columns, DimensionTable.RowConsumer consumer) throws IOException {
        for (RowGroupInfo rg : meta.rowGroups()) {
            if (rg.rowCount() == 0) {
                continue;
            }
            List<Object[]> rows = new ArrayList<>((int) rg.rowCount());
            readRows(
                    List.of(new RowSpan(rg.ordinal(), 0, rg.rowCount())), columns, List.of(), rows);
            for (Object[] row : rows) {
                consumer.accept(row);
            }
        }
    }

    // ---------------------------------------------------------------- pages

    /** A decompressed data page and the row-group index of its first row. */
    static final class LoadedPage {
        final int rowGroup;
        final int leaf;
        final int pageNumber;
        final long firstRow;

        /** Null until the batch read that fetches it fills it in. */
        DataPage page;

        @Nullable Dictionary dictionary;

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

    private record PageRequest(RowGroupInfo rowGroup, int leaf, long from, long to) {}

    private List<LoadedPage> loadPages(
            RowGroupInfo rg, int leaf, long from, long to, List<LoadedPage> loaded)
            throws IOException {
        List<LoadedPage> pages =
                loadPages(List.of(new PageRequest(rg, leaf, from, to)), loaded).get(0);
        for (LoadedPage page : pages) {
            if (!loaded.contains(page)) {
                loaded.add(page);
            }
        }
        return pages;
    }

    /**
     * The pages covering each request's rows. Pages this lookup already decoded ({@code loaded}) or
     * the page cache holds are reused; the others, located by the OffsetIndex, are fetched in one
     * {@link RangeSource#readAll}, each page once even when several requests need it. Chunks
     * without a page index are read whole and walked.
     */
    private List<List<LoadedPage>> loadPages(List<PageRequest> requests, List<LoadedPage> loaded)
            throws IOException {
        List<List<LoadedPage>> result = new ArrayList<>(requests.size());
        List<FileRange> ranges = new ArrayList<>();
        List<LoadedPage> missing = new ArrayList<>(); // placeholders, one per range
        List<LoadedPage> walkedHere = new ArrayList<>();
        for (PageRequest request : requests) {
            RowGroupInfo rg = request.rowGroup;
            PageLocations locations = rg.columns()[request.leaf].pages();
            if (locations == null) {
                List<LoadedPage> walked = alreadyWalked(loaded, request);
                if (walked == null) {
                    walked = alreadyWalked(walkedHere, request);
                }
                if (walked == null) {
                    walked = walkChunk(request);
                    walkedHere.addAll(walked);
                }
                result.add(walked);
                continue;
            }
            int firstPage = locations.pageOfRow(request.from);
            int lastPage = locations.pageOfRow(request.to - 1);
            List<LoadedPage> pages = new ArrayList<>(lastPage - firstPage + 1);
            for (int p = firstPage; p <= lastPage; p++) {
                LoadedPage page = find(loaded, rg.ordinal(), request.leaf, p);
                if (page == null) {
                    page = find(missing, rg.ordinal(), request.leaf, p);
                }
                if (page == null) {
                    DataPage cached =
                            pageCache == null
                                    ? null
                                    : pageCache.page(file(), rg.ordinal(), request.leaf, p);
                    page =
                            new LoadedPage(
                                    rg.ordinal(),
                                    request.leaf,
                                    p,
                                    locations.firstRows()[p],
                                    cached,
                                    null);
                    if (cached == null) {
                        ranges.add(locations.range(p));
                        missing.add(page);
                    }
                }
                pages.add(page);
            }
            result.add(pages);
        }
        if (!ranges.isEmpty()) {
            byte[][] bytes = source.readAll(ranges);
            for (int i = 0; i < bytes.length; i++) {
                LoadedPage page = missing.get(i);
                RowGroupInfo rg = meta.rowGroups().get(page.rowGroup);
                try {
                    PageDecoder.Header header = PageDecoder.header(bytes[i], 0, bytes[i].length);
                    page.page =
                            PageDecoder.dataPage(bytes[i], header, rg.columns()[page.leaf].codec());
                } catch (IOException | RuntimeException e) {
                    throw pageError(rg, page.leaf, page.pageNumber, e);
                }
                if (pageCache != null) {
                    pageCache.putPage(file(), page.rowGroup, page.leaf, page.pageNumber, page.page);
                }
            }
        }
        return result;
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
            if (p.rowGroup == request.rowGroup.ordinal()
                    && p.leaf == request.leaf
                    && p.firstRow + p.page.valueCount() > request.from
                    && p.firstRow < request.to) {
                pages.add(p);
            }
        }
        if (pages.isEmpty()
                || pages.get(0).firstRow > request.from
                || pages.get(pages.size() - 1).firstRow
                                + pages.get(pages.size() - 1).page.valueCount()
                        < request.to) {
            return null;
        }
        return pages;
    }

    /** No page index: read the whole column chunk and walk its pages. */
    private List<LoadedPage> walkChunk(PageRequest request) throws IOException {
        RowGroupInfo rg = request.rowGroup;
        ColumnChunkInfo chunk = rg.columns()[request.leaf];
        FileRange range = new FileRange(chunk.startOffset(), (int) chunk.totalCompressedSize());
        byte[] bytes = source.read(range);
        List<LoadedPage> pages = new ArrayList<>();
        Dictionary dictionary = null;
        int offset = 0;
        long row = 0;
        int pageNumber = 0;
        try {
            while (offset < bytes.length && row < request.to) {
                PageDecoder.Header header =
                        PageDecoder.header(bytes, offset, bytes.length - offset);
                int next = header.payloadOffset() + header.compressedSize();
                PageType type = header.type();
                if (type == PageType.DICTIONARY_PAGE) {
                    dictionary =
                            PageDecoder.dictionary(
                                    bytes, header, chunk.codec(), leaves[request.leaf]);
                } else if (type == PageType.DATA_PAGE || type == PageType.DATA_PAGE_V2) {
                    int values = header.rowCount();
                    if (row + values > request.from) {
                        DataPage page = PageDecoder.dataPage(bytes, header, chunk.codec());
                        pages.add(
                                new LoadedPage(
                                        rg.ordinal(),
                                        request.leaf,
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
            throw pageError(rg, request.leaf, pageNumber, e);
        }
        return pages;
    }

    @Nullable
    Dictionary dictionaryFor(LoadedPage page, int leaf) throws IOException {
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
            throw new LookupFileException(
                    "File "
                            + file()
                            + ": column '"
                            + leaves[leaf].getPath()[0]
                            + "' in row group "
                            + rg.ordinal()
                            + " uses dictionary encoding but has no dictionary page."
                            + " The file is damaged: rewrite it.");
        }
        FileRange range =
                new FileRange(
                        chunk.startOffset(),
                        (int) (chunk.firstDataPageOffset() - chunk.startOffset()));
        byte[] bytes = source.read(range);
        Dictionary dictionary;
        int size;
        try {
            PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
            size = header.uncompressedSize();
            dictionary = PageDecoder.dictionary(bytes, header, chunk.codec(), leaves[leaf]);
        } catch (IOException | RuntimeException e) {
            throw pageError(rg, leaf, -1, e);
        }
        if (pageCache != null) {
            pageCache.putDictionary(file(), rg.ordinal(), leaf, dictionary, 64 + 2 * size);
        }
        page.dictionary = dictionary;
        return dictionary;
    }

    private LookupFileException pageError(RowGroupInfo rg, int leaf, int page, Exception e) {
        if (e instanceof LookupFileException lfe) {
            return lfe;
        }
        ColumnChunkInfo chunk = rg.columns()[leaf];
        FileRange range =
                page >= 0 && chunk.pages() != null
                        ? chunk.pages().range(page)
                        : new FileRange(chunk.startOffset(), (int) chunk.totalCompressedSize());
        String what = page < 0 ? "the dictionary page" : "page " + page;
        return new LookupFileException(
                "File "
                        + file()
                        + ": "
                        + what
                        + " of column '"
                        + String.join(".", leaves[leaf].getPath())
                        + "' in row group "
                        + rg.ordinal()
                        + " (bytes "
                        + range.offset()
                        + ".."
                        + range.end()
                        + ") cannot be read: "
                        + e.getMessage()
                        + ". The file is damaged or was rewritten in place; rewrite it atomically.",
                e);
    }

    LookupFileException unsortedPage(
            RowGroupInfo rg, int keyIndex, int page, Object before, Object after) {
        KeyType type = meta.keyTypes().get(keyIndex);
        String column = meta.sortKey().get(keyIndex);
        return new LookupFileException(
                "File "
                        + file()
                        + " is not sorted by '"
                        + column
                        + "': in row group "
                        + rg.ordinal()
                        + ", page "
                        + page
                        + ", key "
                        + type.format(before)
                        + " comes before "
                        + type.format(after)
                        + ". Lookups need files sorted by the key: rewrite it"
                        + " with 'prepare --key "
                        + column
                        + "'.");
    }

    @Override
    public void close() throws IOException {
        source.close();
    }

    private static int countLeaves(Type type) {
        if (type.isPrimitive()) {
            return 1;
        }
        int n = 0;
        for (Type child : type.asGroupType().getFields()) {
            n += countLeaves(child);
        }
        return n;
    }

    // ---------------------------------------------------------------- key pages

    /**
     * The non-null keys of one page in comparable form with their row positions. Sorted order is
     * checked while decoding: an unsorted page is an error, never a wrong answer.
     */
    static final class KeyPage {
        private final KeyType type;

        /** Page row of each key, or null when every row has one (key i is row i). */
        @Nullable private final int[] rows;

        @Nullable private final long[] longs;
        @Nullable private final Object[] objects;
        private final int size;

        private KeyPage(
                KeyType type, @Nullable int[] rows, long[] longs, Object[] objects, int size) {
            this.type = type;
            this.rows = rows;
            this.longs = longs;
            this.objects = objects;
            this.size = size;
        }

        static KeyPage decode(
                LoadedPage loaded,
                ColumnDescriptor column,
                KeyType type,
                SortedFile file,
                RowGroupInfo rg,
                int keyIndex)
                throws IOException {
            DataPage page = loaded.page;
            int n = page.valueCount();
            if (type.kind() == KeyType.Kind.LONG
                    && page.valueEncoding() == Encoding.PLAIN
                    && column.getMaxDefinitionLevel() == 0
                    && !page.v2()) {
                return plainLongs(loaded, column, type, file, rg, keyIndex);
            }
            PageCursor cursor =
                    new PageCursor(
                            page,
                            column,
                            file.dictionaryFor(loaded, file.leaf(column.getPath()[0])));
            int[] rows = new int[n];
            long[] longs = type.kind() == KeyType.Kind.LONG ? new long[n] : null;
            Object[] objects = longs == null ? new Object[n] : null;
            boolean int32 =
                    column.getPrimitiveType().getPrimitiveTypeName()
                            == PrimitiveType.PrimitiveTypeName.INT32;
            ValuesReader values = cursor.values();
            int size = 0;
            for (int r = 0; r < n; r++) {
                if (cursor.isNextNull()) {
                    continue;
                }
                rows[size] = r;
                if (longs != null) {
                    long v = int32 ? values.readInteger() : values.readLong();
                    if (keyIndex == 0 && size > 0 && v < longs[size - 1]) {
                        throw file.unsortedPage(
                                rg, keyIndex, loaded.pageNumber, longs[size - 1], v);
                    }
                    longs[size] = v;
                } else {
                    byte[] bytes = values.readBytes().getBytes();
                    Object v =
                            type.kind() == KeyType.Kind.BIG_INTEGER ? new BigInteger(bytes) : bytes;
                    if (keyIndex == 0 && size > 0 && type.compare(objects[size - 1], v) > 0) {
                        throw file.unsortedPage(
                                rg, keyIndex, loaded.pageNumber, objects[size - 1], v);
                    }
                    objects[size] = v;
                }
                size++;
            }
            // Only the leading key is checked: later ones are sorted within runs of equal leads.
            return new KeyPage(type, rows, longs, objects, size);
        }

        /** Required PLAIN INT32/INT64 keys: read straight from the page bytes. */
        private static KeyPage plainLongs(
                LoadedPage loaded,
                ColumnDescriptor column,
                KeyType type,
                SortedFile file,
                RowGroupInfo rg,
                int keyIndex) {
            DataPage page = loaded.page;
            int n = page.valueCount();
            ByteBuffer data = ByteBuffer.wrap(page.data()).order(ByteOrder.LITTLE_ENDIAN);
            boolean int32 =
                    column.getPrimitiveType().getPrimitiveTypeName()
                            == PrimitiveType.PrimitiveTypeName.INT32;
            long[] longs = new long[n];
            for (int r = 0; r < n; r++) {
                long v = int32 ? data.getInt(r << 2) : data.getLong(r << 3);
                if (keyIndex == 0 && r > 0 && v < longs[r - 1]) {
                    throw file.unsortedPage(rg, keyIndex, loaded.pageNumber, longs[r - 1], v);
                }
                longs[r] = v;
            }
            return new KeyPage(type, null, longs, null, n);
        }

        int size() {
            return size;
        }

        int row(int i) {
            return rows == null ? i : rows[i];
        }

        Object key(int i) {
            return longs != null ? (Object) longs[i] : objects[i];
        }

        /** First index whose key is at least {@code key}. */
        int lowerBound(Object key) {
            return longs != null
                    ? KeySearch.firstAbove(longs, size, (Long) key, false)
                    : KeySearch.firstAbove(objects, size, key, false, type);
        }

        /** First index whose key is above {@code key}. */
        int upperBound(Object key) {
            return longs != null
                    ? KeySearch.firstAbove(longs, size, (Long) key, true)
                    : KeySearch.firstAbove(objects, size, key, true, type);
        }
    }
}
