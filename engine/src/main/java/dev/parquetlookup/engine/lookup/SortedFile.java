package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.codec.Decompression;
import dev.parquetlookup.engine.index.IndexProbe;
import dev.parquetlookup.engine.index.KeyCodes;
import dev.parquetlookup.engine.index.KeyIndex;
import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.engine.page.PageCursor;
import dev.parquetlookup.engine.read.FileErrors;
import dev.parquetlookup.engine.read.InFlightReads;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.engine.read.OpenFile;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.read.PageLoader;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.engine.read.PagesPending;
import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.Widening;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Owns one sorted Parquet file of a snapshot: its cached metadata, its shared {@link RangeSource},
 * and reading projected columns of found rows. Finding the rows is the {@link PageLocator}'s job,
 * getting pages into memory the {@link PageLoader}'s. Thread-safe and lock-free: all state is
 * immutable (the loader's requests in flight are a concurrent map); reads are positioned.
 *
 * <p>One lookup: row groups by the leading key's min/max, pages by the ColumnIndex, the key page is
 * read and searched, then for each projected column the OffsetIndex gives the page holding those
 * rows, fetched together in one batch and decoded only up to the last wanted row.
 *
 * <p>A file not sorted by its key is served through a key index instead ({@link KeyIndexes}): found
 * at open, it is opened that way; found at a lookup (a key page out of order), it switches once to
 * a twin opened that way. An indexed lookup reads the rows the index names and keeps only those
 * whose key, read from the row, equals the looked-up key; a row whose key does not match its index
 * entry is an error naming the file, never a wrong row.
 */
final class SortedFile implements OpenFile, Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(SortedFile.class);

    /** Rows {@code [from, to)} of one row group (row-group relative). */
    record RowSpan(int rowGroup, long from, long to) {}

    /**
     * A key whose rows are found through a key index: its stored columns' leaves and how they
     * compare; the index codes the first {@code coded} of them (the others are compared in the rows
     * read). An unsorted file's index codes its leading key column, a secondary key's all of its.
     */
    record IndexedKey(int[] leaves, List<KeyType> types, int coded) {}

    private final FileMetadata meta;
    private final RangeSource source;
    private final ColumnDescriptor[] leaves;
    private final Map<String, Integer> leafOfColumn;
    private final Map<String, ColumnTypes.ValueReader> readers;
    // ARRAY, MAP and ROW columns, read from all their leaves (usually empty).
    private final Map<String, NestedColumn> nested;
    private final FileErrors errors;
    private final PageLoader loader;
    private final PageLocator locator;
    private final DeletedRows deleted;
    // The table's columns in this file: their fields, constants and the key over the file.
    private final FileColumns columns;
    // Columns this file stores narrower than the table serves them (INT32 in a BIGINT column):
    // set once at open, before the table is shared; usually empty.
    private Map<String, ValueType> conversions = Map.of();
    // Boxed once: every lookup compares against them.
    @Nullable private final Object minKey;
    @Nullable private final Object maxKey;
    // How this file gets key indexes (whether an unsorted file is served through one; null:
    // refused, secondary keys indexed in the default directory).
    @Nullable private final FileIndexing indexing;
    // The indexes of secondary keys (lookups on columns not a prefix of the sort key).
    private final SecondaryKeys secondary;
    // This file's key index when it is served through one (opened unsorted), else null.
    @Nullable private final KeyIndexes.Handle index;
    // An unsorted file's index key (its sort key, the leading column coded) and the coded
    // columns' types: built once, every lookup through the index uses them.
    private final IndexedKey leadKey;
    private final List<KeyType> leadCoded;
    // First row of each row group, for row positions from an index.
    private final long[] firstRows;

    /**
     * Opens the twins of files found unsorted by asynchronous lookups (their metadata read again, a
     * blocking read), off the threads that complete reads.
     */
    private static final Executor TWIN_OPENS =
            DaemonThreads.idleEndingPool(2, DaemonThreads.jvmWide("parquet-lookup-index-twin"));

    // The twin opened and its index built for asynchronous lookups: see twinReady.
    @Nullable private CompletableFuture<Void> twinReady;

    // The twin serving this file through an index since a lookup found it unsorted.
    @Nullable private volatile SortedFile indexedTwin;
    @Nullable private final PageCache pageCache;
    @Nullable private final MetadataCache chunkCache;

    /**
     * A file whose columns the table names and supplies as {@code columns} says, of a table version
     * that deleted {@code deleted} of its rows (never returned); decoded dictionaries are kept in
     * {@code chunkCache} (the table's metadata cache; null: per lookup). {@code indexing} (null:
     * refuse) serves the file through a key index when it is found unsorted, from the start when
     * {@code unsorted} (its metadata then read without order checks) or when a lookup finds a key
     * page out of order.
     */
    SortedFile(
            FileMetadata meta,
            RangeSource source,
            @Nullable PageCache pageCache,
            @Nullable MetadataCache chunkCache,
            DeletedRows deleted,
            FileColumns columns,
            @Nullable FileIndexing indexing,
            boolean unsorted) {
        this.meta = meta;
        this.indexing = indexing;
        this.pageCache = pageCache;
        this.chunkCache = chunkCache;
        this.deleted = deleted;
        this.columns = columns;
        this.source = source;
        MessageType schema = meta.schema();
        this.leaves = schema.getColumns().toArray(new ColumnDescriptor[0]);
        this.leafOfColumn = new HashMap<>();
        this.readers = new HashMap<>();
        this.nested = new HashMap<>();
        int leaf = 0;
        for (Type field : schema.getFields()) {
            String name = columns.tableName(field.getName());
            if (name != null) {
                leafOfColumn.put(name, leaf);
                NestedColumn column =
                        NestedColumn.of(schema, field, leaves, leaf, countLeaves(field));
                if (column != null) {
                    nested.put(name, column);
                    for (int l : column.leaves()) {
                        checkCodecs(name, l);
                    }
                }
                if (field.isPrimitive() && !field.isRepetition(Type.Repetition.REPEATED)) {
                    ValueType type = ColumnTypes.valueType(field);
                    if (type.kind() != ValueType.Kind.UNSUPPORTED) {
                        readers.put(name, ColumnTypes.reader(field.asPrimitiveType()));
                        checkCodecs(name, leaf);
                    }
                }
            }
            leaf += countLeaves(field);
        }
        this.errors = new FileErrors(meta, leaves);
        this.loader = new PageLoader(meta, source, pageCache, chunkCache, leaves, errors);
        this.locator = new PageLocator(meta, leaves, loader, errors);
        KeyRanges rg = meta.rowGroupKeys();
        this.firstRows = new long[meta.rowGroups().size()];
        for (int r = 0; r < firstRows.length; r++) {
            firstRows[r] = meta.footerRowGroup(r).firstRow();
        }
        this.leadKey = new IndexedKey(meta.keyLeaves(), meta.keyTypes(), 1);
        this.leadCoded = meta.keyTypes().isEmpty() ? List.of() : List.of(meta.keyTypes().get(0));
        if (unsorted && indexing != null && indexing.indexUnsorted()) {
            // Starts the build in the background: the first lookup into the file waits for it.
            this.index = indexing.acquire(meta, source, leaves);
        } else {
            this.index = null;
        }
        this.secondary =
                new SecondaryKeys(
                        meta,
                        leaves,
                        columns,
                        this::leaf,
                        source,
                        indexing != null
                                ? indexing
                                : FileIndexing.secondaryOnly(TableConfig.DEFAULT_INDEX_DIRECTORY));
        if (columns.leadingIsConstant()) {
            // Every row has the constant: the file's range of the table's leading key is one value.
            this.minKey = meta.rowCount() == 0 ? null : columns.leadingConstant();
            this.maxKey = minKey;
        } else if (index != null) {
            // Row groups in any order: the file's range is the smallest min and the largest max.
            Object min = null;
            Object max = null;
            for (int i = 0; i < rg.size(); i++) {
                min = min == null || rg.type().compare(rg.min(i), min) < 0 ? rg.min(i) : min;
                max = max == null || rg.type().compare(rg.max(i), max) > 0 ? rg.max(i) : max;
            }
            this.minKey = min;
            this.maxKey = max;
        } else {
            this.minKey = rg.size() == 0 ? null : rg.min(0);
            this.maxKey = rg.size() == 0 ? null : rg.max(rg.size() - 1);
        }
    }

    /** Refuses at open a readable column whose pages use a codec we cannot decompress. */
    private void checkCodecs(String column, int leaf) {
        for (int r = 0; r < meta.rowGroups().size(); r++) {
            CompressionCodecName codec = meta.footerRowGroup(r).columns()[leaf].codec();
            if (!Decompression.supports(codec)) {
                throw new LookupFileException(
                        "File "
                                + file()
                                + ": column '"
                                + column
                                + "' is compressed with "
                                + codec
                                + ", which parquet-lookup cannot read. Rewrite the file with"
                                + " 'prepare' (LZ4_RAW, ZSTD, SNAPPY, GZIP or UNCOMPRESSED)"
                                + LookupFileException.PLAIN_FILES_ONLY
                                + ".");
            }
        }
    }

    FileMetadata metadata() {
        return meta;
    }

    /** The table's columns in this file (names, constants, the table's key over the file). */
    FileColumns columns() {
        return columns;
    }

    /** Serves this file's values as the table's column types (see {@link TableSchema}). */
    void serveAs(List<ColumnSchema> tableColumns) {
        this.conversions = TableSchema.conversions(columns.view(), tableColumns);
    }

    FileId file() {
        return meta.file();
    }

    PageLoader loader() {
        return loader;
    }

    @Override
    public InFlightReads reads() {
        SortedFile twin = indexedTwin;
        return twin != null ? twin.reads() : loader.reads();
    }

    @Override
    public List<FileRange> readAhead(List<LoadedPage> missing, List<String> columns) {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            return twin.readAhead(missing, columns);
        }
        // An indexed file's key pages do not bound its rows' value pages: no read-ahead.
        return index != null ? List.of() : loader.readAhead(missing, leaves(columns));
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

    /** The leaves of {@code columns} the file stores, for read-ahead. */
    int[] leaves(List<String> columns) {
        int[] result = new int[columns.size()];
        int n = 0;
        for (String column : columns) {
            if (!this.columns.constants().containsKey(column)) {
                result[n++] = leaf(column);
            }
        }
        return n == result.length ? result : java.util.Arrays.copyOf(result, n);
    }

    /**
     * Adds the spans of rows whose first {@code key.length} sort-key columns equal {@code key}
     * (comparable forms, see {@link KeyType}).
     */
    void findRows(Object[] key, List<RowSpan> out, LookupContext ctx) throws IOException {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            twin.findRows(key, out, ctx);
            return;
        }
        int before = out.size();
        Object[] stored = columns.storedKey(key);
        if (stored == null) {
            return; // a constant of the file differs from the key: nothing read
        }
        if (stored.length == 0) {
            // The key fixes only constants of the file: every row matches.
            for (int r = 0; r < meta.rowGroups().size(); r++) {
                long rows = meta.footerRowGroup(r).rowCount();
                if (rows > 0) {
                    out.add(new RowSpan(r, 0, rows));
                }
            }
        } else if (index != null) {
            indexedRows(index.index(), leadCoded, stored, out);
        } else {
            try {
                locator.findRows(stored, out, ctx);
            } catch (LookupFileException.Unsorted e) {
                if (indexing == null || !indexing.indexUnsorted()) {
                    throw e;
                }
                out.subList(before, out.size()).clear();
                if (ctx.returnsThread()) {
                    // An asynchronous lookup may be replaying on a client's event loop: it
                    // neither reads the metadata again nor builds the index there, it waits for
                    // both and replays (then DimensionTable.lookup finds the file indexed).
                    CompletableFuture<Void> ready = twinReady(e);
                    if (!ready.isDone() && ctx.awaits(ready)) {
                        throw PagesPending.INSTANCE;
                    }
                    if (ready.isCompletedExceptionally()) {
                        throw twinFailed(ready);
                    }
                }
                indexedTwin(e).findRows(key, out, ctx);
                return;
            }
        }
        // Deleted rows leave the spans before any value is read (the one place rows are chosen).
        deleted.removeFrom(out, before, meta.rowGroups());
        if (index != null && stored.length > 0) {
            keepMatching(leadKey, leadCoded, stored, out, before, ctx);
        }
    }

    /**
     * Starts the index builds of the secondary key {@code columns} in the background.
     *
     * @throws LookupFileException if a column cannot be a key in this file
     */
    void prepareSecondary(List<String> columns) {
        if (meta.rowCount() > 0) {
            secondary.prepare(columns);
        }
    }

    /**
     * Adds the spans of rows whose columns {@code columns} (a secondary key: table columns, not a
     * prefix of the sort key) equal {@code key} (engine values, none null), through the file's
     * index on those columns; waits for the index (or builds it on this thread) the first time.
     * Deleted rows are left out.
     */
    void findSecondaryRows(List<String> columns, Object[] key, List<RowSpan> out, LookupContext ctx)
            throws IOException {
        if (meta.rowCount() == 0) {
            return;
        }
        SecondaryKeys.Key secondaryKey = secondary.key(columns);
        IndexedKey indexed = secondaryKey.indexed(); // its index codes all of its columns
        Object[] stored = secondaryKey.storedKey(key);
        if (stored == null) {
            return; // a constant of the file differs, or no stored value can equal the key
        }
        int before = out.size();
        if (stored.length == 0) {
            // The key fixes only constants of the file: every row matches.
            for (int r = 0; r < meta.rowGroups().size(); r++) {
                long rows = meta.footerRowGroup(r).rowCount();
                if (rows > 0) {
                    out.add(new RowSpan(r, 0, rows));
                }
            }
        } else {
            indexedRows(secondaryKey.handle().index(), indexed.types(), stored, out);
        }
        deleted.removeFrom(out, before, meta.rowGroups());
        if (stored.length > 0) {
            keepMatching(indexed, indexed.types(), stored, out, before, ctx);
        }
    }

    /**
     * The twin opened and its index built off the caller's thread, for asynchronous lookups that
     * find this file unsorted ({@link #TWIN_OPENS}); one attempt shared by the lookups that find it
     * meanwhile, a failed one forgotten so that a later lookup tries again.
     */
    private synchronized CompletableFuture<Void> twinReady(LookupFileException.Unsorted found) {
        CompletableFuture<Void> ready = twinReady;
        if (ready == null) {
            ready =
                    CompletableFuture.supplyAsync(
                                    () -> {
                                        try {
                                            return indexedTwin(found);
                                        } catch (IOException e) {
                                            throw new CompletionException(e);
                                        }
                                    },
                                    TWIN_OPENS)
                            .thenCompose(
                                    twin -> {
                                        CompletableFuture<Void> building = twin.indexDemand();
                                        return building == null
                                                ? CompletableFuture.<Void>completedFuture(null)
                                                : building;
                                    });
            twinReady = ready;
        }
        return ready;
    }

    /** The failure of a failed {@link #twinReady}, which is forgotten. */
    private synchronized IOException twinFailed(CompletableFuture<Void> ready) {
        if (twinReady == ready) {
            twinReady = null;
        }
        Throwable cause = AsyncLookup.unwrap(AsyncLookup.failure(ready));
        return cause instanceof IOException io
                ? io
                : new IOException(
                        "Could not serve " + file() + " through a key index: " + cause, cause);
    }

    /**
     * The twin serving this file through a key index, opened once (the first lookup to need it).
     */
    private synchronized SortedFile indexedTwin(LookupFileException.Unsorted found)
            throws IOException {
        SortedFile twin = indexedTwin;
        if (twin == null) {
            LOG.info(
                    "File {} is not sorted by its key (found at a lookup: {}); serving it through a"
                            + " key index",
                    file(),
                    found.getMessage());
            FileMetadata reread = indexing.reopen();
            twin =
                    new SortedFile(
                            reread,
                            source,
                            pageCache,
                            chunkCache,
                            deleted,
                            columns,
                            indexing,
                            true);
            twin.conversions = conversions;
            indexedTwin = twin;
        }
        return twin;
    }

    /**
     * Adds the rows {@code keys} names for the code of {@code stored}'s first {@code coded.size()}
     * columns ({@code coded}: their types), as spans.
     */
    private void indexedRows(
            KeyIndex keys, List<KeyType> coded, Object[] stored, List<RowSpan> out) {
        long[] rows = keys.rows(KeyCodes.code(coded, stored));
        int r = 0;
        for (int i = 0; i < rows.length; i++) {
            long row = rows[i];
            while (r + 1 < firstRows.length && firstRows[r + 1] <= row) {
                r++;
            }
            if (row < firstRows[r] || row >= meta.rowCount()) {
                throw indexMismatch("names row " + row + ", outside the file");
            }
            long local = row - firstRows[r];
            int last = out.size() - 1;
            if (last >= 0 && out.get(last).rowGroup() == r && out.get(last).to() == local) {
                out.set(last, new RowSpan(r, out.get(last).from(), local + 1));
            } else {
                out.add(new RowSpan(r, local, local + 1));
            }
        }
    }

    /**
     * Reads the key columns of the rows in {@code out} from {@code before} on and keeps only those
     * whose key equals {@code stored}: other keys with the same code (a hash) and rows differing in
     * later key columns leave; a row whose coded key columns do not have its entry's code (or hold
     * a NULL, which is never indexed) means the index does not match the file, an error. {@code
     * coded}: the types of the key's first {@code key.coded()} columns, built once per key.
     */
    private void keepMatching(
            IndexedKey key,
            List<KeyType> coded,
            Object[] stored,
            List<RowSpan> out,
            int before,
            LookupContext ctx)
            throws IOException {
        int total = 0;
        for (int i = before; i < out.size(); i++) {
            total += (int) (out.get(i).to() - out.get(i).from());
        }
        if (total == 0) {
            return;
        }
        List<RowSpan> spans = new ArrayList<>(out.subList(before, out.size()));
        Object[][] keys = new Object[total][stored.length];
        List<PageLoader.PageRequest> requests = new ArrayList<>();
        for (int k = 0; k < stored.length; k++) {
            for (RowSpan span : spans) {
                requests.add(
                        new PageLoader.PageRequest(
                                ctx.rowGroup(meta, loader.source(), span.rowGroup()),
                                key.leaves()[k],
                                span.from(),
                                span.to()));
            }
        }
        List<List<LoadedPage>> pages = loader.loadPages(requests, ctx);
        int request = 0;
        for (int k = 0; k < stored.length; k++) {
            ColumnTypes.ValueReader reader = KeyCodes.comparableReader(key.types().get(k));
            int row = 0;
            for (RowSpan span : spans) {
                List<LoadedPage> keyPages = pages.get(request++);
                for (LoadedPage page : keyPages) {
                    row = readPage(page, key.leaves()[k], span, reader, k, keys, row, ctx);
                }
                loader.keep(keyPages, ctx); // read again when the key column is projected
            }
        }
        long code = KeyCodes.code(coded, stored);
        out.subList(before, out.size()).clear();
        int row = 0;
        for (RowSpan span : spans) {
            long runStart = -1;
            for (long r = span.from(); r < span.to(); r++) {
                Object[] found = keys[row++];
                int nullPart = firstNull(found, key.coded());
                if (nullPart >= 0 || KeyCodes.code(coded, found) != code) {
                    int shown = nullPart >= 0 ? nullPart : 0;
                    throw indexMismatch(
                            "names row "
                                    + r
                                    + " of row group "
                                    + span.rowGroup()
                                    + " for key "
                                    + key.types().get(shown).format(stored[shown])
                                    + ", which holds "
                                    + (found[shown] == null
                                            ? "NULL"
                                            : key.types().get(shown).format(found[shown])));
                }
                boolean match = true;
                for (int k = 0; k < stored.length && match; k++) {
                    match =
                            found[k] != null
                                    && key.types().get(k).compare(found[k], stored[k]) == 0;
                }
                if (match && runStart < 0) {
                    runStart = r;
                } else if (!match && runStart >= 0) {
                    out.add(new RowSpan(span.rowGroup(), runStart, r));
                    runStart = -1;
                }
            }
            if (runStart >= 0) {
                out.add(new RowSpan(span.rowGroup(), runStart, span.to()));
            }
        }
    }

    /** The first of the first {@code n} parts of {@code key} that is null, or -1. */
    private static int firstNull(Object[] key, int n) {
        for (int i = 0; i < n; i++) {
            if (key[i] == null) {
                return i;
            }
        }
        return -1;
    }

    private LookupFileException indexMismatch(String what) {
        return new LookupFileException(
                "File "
                        + file()
                        + ": its key index "
                        + what
                        + ". The file changed in place after it was indexed, or the index is"
                        + " damaged: deleting the index file rebuilds it. Replace plain Parquet"
                        + " files atomically, never in place (a new version gets a new index); a"
                        + " Delta or Iceberg table's writers never change a data file in place.");
    }

    /**
     * Reads {@code columns} of the rows of {@code spans}, appending one {@code Object[]} per row
     * (values in {@link ValueType}'s representation, in column order) to {@code out}.
     */
    void readRows(List<RowSpan> spans, List<String> columns, LookupContext ctx, List<Object[]> out)
            throws IOException {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            twin.readRows(spans, columns, ctx, out);
            return;
        }
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
        List<PageLoader.PageRequest> requests = new ArrayList<>();
        Map<String, Object> constants = this.columns.constants();
        for (int c = 0; c < columns.size(); c++) {
            if (!constants.isEmpty() && constants.containsKey(columns.get(c))) {
                continue;
            }
            NestedColumn nestedColumn = nested.isEmpty() ? null : nested.get(columns.get(c));
            if (nestedColumn != null) {
                nestedColumn.addRequests(spans, meta, loader, ctx, requests);
                continue;
            }
            int leaf = leaf(columns.get(c));
            for (RowSpan span : spans) {
                requests.add(
                        new PageLoader.PageRequest(
                                ctx.rowGroup(meta, loader.source(), span.rowGroup()),
                                leaf,
                                span.from(),
                                span.to()));
            }
        }
        List<List<LoadedPage>> pages = loader.loadPages(requests, ctx);
        int request = 0;
        boolean pending = false;
        for (int c = 0; c < columns.size(); c++) {
            if (!constants.isEmpty() && constants.containsKey(columns.get(c))) {
                Object value = constants.get(columns.get(c));
                for (Object[] r : rows) {
                    r[c] = value;
                }
                continue;
            }
            NestedColumn nestedColumn = nested.isEmpty() ? null : nested.get(columns.get(c));
            if (nestedColumn != null) {
                pending |=
                        nestedColumn.read(
                                pages, request, spans, c, rows, loader, errors, meta, ctx);
                request += nestedColumn.leaves().length * spans.size();
                continue;
            }
            ColumnTypes.ValueReader reader = readers.get(columns.get(c));
            int leaf = leaf(columns.get(c));
            int row = 0;
            boolean columnPending = false;
            for (RowSpan span : spans) {
                for (LoadedPage page : pages.get(request++)) {
                    try {
                        if (columnPending) {
                            // Only ask for this page's dictionary too, in the same wave.
                            loader.dictionaryFor(page, leaf, ctx);
                        } else {
                            row = readPage(page, leaf, span, reader, c, rows, row, ctx);
                        }
                    } catch (PagesPending p) {
                        // A dictionary still to come: the lookup replays when it is here.
                        pending = true;
                        columnPending = true;
                    }
                }
            }
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
        if (!conversions.isEmpty()) {
            widen(columns, rows);
        }
        for (Object[] r : rows) {
            out.add(r);
        }
    }

    /** Converts the values of narrower columns to the table's types (Integer to Long, ...). */
    private void widen(List<String> columns, Object[][] rows) {
        for (int c = 0; c < columns.size(); c++) {
            ValueType to = conversions.get(columns.get(c));
            if (to != null) {
                for (Object[] row : rows) {
                    row[c] = Widening.widen(row[c], to);
                }
            }
        }
    }

    /** Reads the rows of {@code span} that {@code page} holds into column {@code c}. */
    private int readPage(
            LoadedPage page,
            int leaf,
            RowSpan span,
            ColumnTypes.ValueReader reader,
            int c,
            Object[][] rows,
            int row,
            LookupContext ctx) {
        try {
            PageCursor cursor =
                    new PageCursor(page.page, leaves[leaf], loader.dictionaryFor(page, leaf, ctx));
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
            return row;
        } catch (IOException | RuntimeException e) {
            RowGroupInfo rg;
            try {
                rg = ctx.rowGroup(meta, loader.source(), page.rowGroup);
            } catch (IOException | RuntimeException unreadable) {
                rg = meta.footerRowGroup(page.rowGroup);
            }
            throw errors.pageError(rg, leaf, page.pageNumber, e);
        }
    }

    /** Every row of every row group, {@code columns} projected, in file order. */
    void scan(List<String> columns, RowConsumer consumer) throws IOException {
        for (int r = 0; r < meta.rowGroups().size(); r++) {
            RowGroupInfo rg = meta.footerRowGroup(r);
            if (rg.rowCount() == 0) {
                continue;
            }
            List<Object[]> rows = new ArrayList<>((int) rg.rowCount());
            List<RowSpan> spans = new ArrayList<>();
            spans.add(new RowSpan(rg.ordinal(), 0, rg.rowCount()));
            deleted.removeFrom(spans, 0, meta.rowGroups());
            LookupContext ctx = new LookupContext();
            try {
                readRows(spans, columns, ctx, rows);
            } finally {
                ctx.releaseScratch();
            }
            for (Object[] row : rows) {
                consumer.accept(row);
            }
        }
    }

    /**
     * Whether a row of this file may have the sort-key prefix {@code key}, by what is in the heap:
     * false when a constant of the file differs; when the file is served through a built key index,
     * that index's question is added to {@code probe} as {@code bit} (its answer may still turn the
     * file away). Reads nothing and waits for nothing: a file searched by its order, or whose index
     * is not built yet, may hold it.
     */
    boolean mayHold(Object[] key, IndexProbe probe, int bit) {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            return twin.mayHold(key, probe, bit);
        }
        KeyIndex built = index == null ? null : index.ready();
        if (built == null) {
            return true;
        }
        return ask(probe, bit, built, leadCoded, columns.storedKey(key));
    }

    /**
     * {@link #mayHold} for the secondary key {@code columns} (starting its index build, as a lookup
     * would): false when no row of this file can match by its constants or its row count; when the
     * key's index is built, its question is added to {@code probe} as {@code bit}.
     *
     * @throws LookupFileException if a column cannot be a key in this file
     */
    boolean mayHoldSecondary(List<String> columns, Object[] key, IndexProbe probe, int bit) {
        if (meta.rowCount() == 0) {
            return false;
        }
        SecondaryKeys.Key secondaryKey = secondary.key(columns);
        KeyIndexes.Handle handle = secondaryKey.handle();
        KeyIndex built = handle == null ? null : handle.ready();
        if (built == null) {
            return true;
        }
        return ask(probe, bit, built, secondaryKey.indexed().types(), secondaryKey.storedKey(key));
    }

    /**
     * Asks {@code probe} whether {@code built} may hold the code of {@code stored} (the stored key
     * columns' values, {@code coded} their types), unless nothing is stored (every row matches);
     * false when {@code stored} is null (a constant of the file differs: no row matches).
     */
    private static boolean ask(
            IndexProbe probe,
            int bit,
            KeyIndex built,
            List<KeyType> coded,
            @Nullable Object[] stored) {
        if (stored == null) {
            return false;
        }
        if (stored.length > 0) {
            probe.ask(bit, built, KeyCodes.code(coded, stored));
        }
        return true;
    }

    /**
     * The unfinished build of the index a lookup by the sort key reads (this file's, or its twin's
     * once it switched), started now if no builder took it up; null when there is none or it is
     * done ({@link KeyIndexes.Handle#demand}).
     */
    @Nullable
    CompletableFuture<Void> indexDemand() {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            return twin.indexDemand();
        }
        return index == null ? null : index.demand();
    }

    /**
     * The unfinished build of this file's index on the secondary key {@code columns} (acquired, and
     * its build started, if this is the first lookup to need it); null when done or when every key
     * column is a constant of the file.
     *
     * @throws LookupFileException if a column cannot be a key in this file
     */
    @Nullable
    CompletableFuture<Void> secondaryDemand(List<String> columns) {
        if (meta.rowCount() == 0) {
            return null;
        }
        KeyIndexes.Handle handle = secondary.key(columns).handle();
        return handle == null ? null : handle.demand();
    }

    /**
     * The build of this file's sort-key index, without starting or waiting for it; null when the
     * file was opened sorted (a twin switched to later is not counted).
     */
    @Nullable
    CompletableFuture<KeyIndex> indexBuilt() {
        return index == null ? null : index.built();
    }

    /**
     * The built sort-key index this file's lookups search (its twin's once switched), when a key's
     * code in it is the code of the table's key ({@link KeyCodes#code} of {@link #leadCoded} over
     * the comparable key: the file stores every key column); null otherwise or before it is built.
     */
    @Nullable
    KeyIndex routedIndex() {
        SortedFile twin = indexedTwin;
        if (twin != null) {
            return twin.routedIndex();
        }
        return index == null || !columns.storesEveryKeyColumn() ? null : index.ready();
    }

    /** The types a code of this file's sort-key index is made of (its leading key column's). */
    List<KeyType> leadCoded() {
        return leadCoded;
    }

    /** Whether this file is served through a key index (opened unsorted or switched). */
    boolean indexed() {
        return index != null || indexedTwin != null;
    }

    @Override
    public void close() throws IOException {
        secondary.close();
        SortedFile twin = indexedTwin;
        if (twin != null) {
            twin.index.close(); // the twin shares this file's source
        }
        if (index != null) {
            index.close();
        }
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
}
