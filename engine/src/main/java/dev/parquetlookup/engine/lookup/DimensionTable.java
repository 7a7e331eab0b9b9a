package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.IndexProbe;
import dev.parquetlookup.engine.index.KeyIndex;
import dev.parquetlookup.engine.index.TableFilter;
import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.engine.read.PagesPending;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.ValueType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An immutable snapshot of a set of sorted Parquet files that answers point lookups: "every row
 * whose sort key (or a leading prefix of it) equals K".
 *
 * <p>Thread-safe: any number of threads may call {@link #lookup} at once; no lock is held while
 * reading. Example:
 *
 * <pre>{@code
 * try (DimensionTable table = DimensionTable.open(TableConfig.builder("/data/customers").build())) {
 *     LookupPlan plan = table.plan(List.of("id"), List.of("name", "country"));
 *     List<Object[]> rows = table.lookup(plan, new Object[] {42L});
 * }
 * }</pre>
 */
public final class DimensionTable implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(DimensionTable.class);

    /** Files opened at once by {@link #open}: see {@link FileOpener#PARALLELISM}. */
    static final int OPEN_PARALLELISM = FileOpener.PARALLELISM;

    private final TableConfig config;
    private final FileStore store;
    private final ReadStatistics statistics;
    private final TableColumns schema;

    /** Files with keys, ordered by their smallest leading key. */
    private final SortedFile[] files;

    /** {@code maxUpTo[i]}: the largest leading key among files 0..i, for overlapping files. */
    private final Object[] maxUpTo;

    private final List<SortedFile> allFiles;

    /**
     * The filter of the sort-key indexes of {@link #files} by position, once every file opened
     * unsorted has its index built (null before, when fewer than two files are, and when a build
     * failed: {@link #turnedAway} then asks each file's own filter); shared with the other tables
     * of the same indexes ({@link TableFilter#shared}), released when this table closes.
     */
    private final AtomicReference<TableFilter> routing = new AtomicReference<>();

    /**
     * The last build of {@link #routing}, done once it is built or will not be: the first (once
     * every file opened unsorted is indexed), or a later one asked by a lookup that met a built
     * index the filter does not cover (a file found unsorted at a lookup, such as one whose rows
     * are shuffled inside its only row group). Not done: a build is waiting or running.
     */
    private final AtomicReference<CompletableFuture<Void>> routingBuild;

    /** Built sort-key indexes the last build of {@link #routing} found: a later one needs more. */
    private volatile int routedAtLastBuild;

    /** How often at most a lookup counts the built indexes for {@link #rebuildRouting}. */
    private static final long ROUTING_CHECK_NANOS = 100_000_000L;

    /** When a lookup may next count the built indexes for {@link #rebuildRouting} (nanoTime). */
    private volatile long nextRoutingCheck = System.nanoTime();

    private volatile boolean closed;

    private DimensionTable(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            TableColumns schema,
            List<SortedFile> allFiles) {
        this.config = config;
        this.store = store;
        this.statistics = statistics;
        this.schema = schema;
        this.allFiles = allFiles;
        List<SortedFile> withKeys = new ArrayList<>();
        for (SortedFile f : allFiles) {
            if (f.minKey() != null) {
                withKeys.add(f);
            }
        }
        KeyType lead = schema.keyTypes().get(0);
        withKeys.sort((a, b) -> lead.compare(a.minKey(), b.minKey()));
        this.files = withKeys.toArray(new SortedFile[0]);
        this.maxUpTo = new Object[files.length];
        for (int i = 0; i < files.length; i++) {
            Object max = files[i].maxKey();
            maxUpTo[i] = i == 0 || lead.compare(max, maxUpTo[i - 1]) > 0 ? max : maxUpTo[i - 1];
        }
        this.routingBuild = new AtomicReference<>(buildRoutingWhenIndexed());
    }

    /**
     * Builds {@link #routing} on {@link TableFilter#BUILDER} once the sort-key index of every file
     * opened unsorted is built (by warm-up or by lookups: this starts no build), if two or more
     * are.
     */
    private CompletableFuture<Void> buildRoutingWhenIndexed() {
        List<CompletableFuture<KeyIndex>> builds = new ArrayList<>();
        for (SortedFile file : files) {
            CompletableFuture<KeyIndex> built = file.indexBuilt();
            if (built != null) {
                builds.add(built);
            }
        }
        if (builds.size() < 2) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.allOf(builds.toArray(new CompletableFuture<?>[0]))
                .thenRunAsync(this::buildRouting, TableFilter.BUILDER);
    }

    /**
     * Builds {@link #routing} again, in the background, when more sort-key indexes are built than
     * the last build found and no build is waiting or running: called by a lookup that met a built
     * index the filter does not cover.
     */
    private void rebuildRouting() {
        long now = System.nanoTime();
        CompletableFuture<Void> last = routingBuild.get();
        if (closed || !last.isDone() || now - nextRoutingCheck < 0) {
            return;
        }
        nextRoutingCheck = now + ROUTING_CHECK_NANOS; // a file the filter cannot cover: rarely
        int built = 0;
        for (SortedFile file : files) {
            built += file.routedIndex() != null ? 1 : 0;
        }
        CompletableFuture<Void> next = new CompletableFuture<>();
        if (built < 2 || built <= routedAtLastBuild || !routingBuild.compareAndSet(last, next)) {
            return;
        }
        CompletableFuture.runAsync(this::buildRouting, TableFilter.BUILDER)
                .whenComplete((v, t) -> next.complete(null));
    }

    /** Builds {@link #routing} over the files whose index is built and coded alike. */
    private void buildRouting() {
        if (closed) {
            return;
        }
        long start = System.nanoTime();
        KeyIndex[] indexes = new KeyIndex[files.length];
        List<KeyType> types = null;
        int covered = 0;
        int built = 0;
        long rows = 0;
        for (int i = 0; i < files.length; i++) {
            KeyIndex index = files[i].routedIndex();
            built += index != null ? 1 : 0;
            if (index == null
                    || (types != null && !TableFilter.codedAlike(types, files[i].leadCoded()))) {
                continue;
            }
            types = files[i].leadCoded();
            indexes[i] = index;
            covered++;
            rows += index.entries();
        }
        routedAtLastBuild = built;
        if (covered < 2) {
            return;
        }
        TableFilter filter = TableFilter.shared(types, indexes);
        TableFilter replaced = routing.getAndSet(filter); // builds run one at a time (BUILDER)
        if (replaced != null) {
            replaced.release();
        }
        if (closed) {
            releaseRouting(); // closed meanwhile: close may have found no filter to release
            return;
        }
        LOG.info(
                "Table filter of {}: {} of {} files, {} rows, {} bytes of heap, built in {} ms",
                config.path(),
                covered,
                files.length,
                rows,
                filter.bytes(),
                (System.nanoTime() - start) / 1_000_000);
    }

    /** Lets go of {@link #routing} once (by whichever of close and the build comes last). */
    private void releaseRouting() {
        TableFilter filter = routing.getAndSet(null);
        if (filter != null) {
            filter.release();
        }
    }

    /** The table filter once built (for tests): see {@link #routing}. */
    @Nullable
    TableFilter routing() {
        return routing.get();
    }

    /** The last build of {@link #routing} (for tests): see {@link #routingBuild}. */
    CompletableFuture<Void> routingBuilt() {
        return routingBuild.get();
    }

    /** How many of the files the table filter answers for (for tests); 0 without one. */
    int routedFiles() {
        TableFilter filter = routing.get();
        int n = 0;
        for (int i = 0; filter != null && i < files.length; i++) {
            n += filter.covers(i, files[i].routedIndex()) ? 1 : 0;
        }
        return n;
    }

    /**
     * Lists the files at the configured path, reads (or takes from the metadata cache) their
     * footers and page indexes, and checks that they are sorted by the sort key.
     *
     * @throws LookupFileException if a file is not usable for lookups; the message says why
     * @throws IOException if the path cannot be listed or read
     */
    public static DimensionTable open(TableConfig config) throws IOException {
        return open(config, HadoopFileStore.create(config.hadoopOptions(), config.mapLocalFiles()));
    }

    /** Like {@link #open(TableConfig)} over a given store, which the table closes. */
    public static DimensionTable open(TableConfig config, FileStore store) throws IOException {
        return open(config, store, new ReadStatistics());
    }

    /**
     * Like {@link #open(TableConfig, FileStore)}, counting every read into {@code statistics} (a
     * refreshing table's snapshots count into one).
     */
    public static DimensionTable open(
            TableConfig config, FileStore store, ReadStatistics statistics) throws IOException {
        return open(config, store, statistics, Map.of());
    }

    /**
     * Like {@link #open(TableConfig, FileStore, ReadStatistics)} for a table version that deleted
     * rows of its files without rewriting them: the rows in {@code deletedRows} (by file; files
     * absent have none) are never returned by lookups or scans.
     */
    public static DimensionTable open(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Map<FileId, DeletedRows> deletedRows)
            throws IOException {
        return open(config, store, statistics, deletedRows, Map.of());
    }

    /**
     * Like {@link #open(TableConfig, FileStore, ReadStatistics, Map)} for a table version whose
     * files supply its columns as {@code bindings} says (by file; files absent are read {@link
     * ColumnBinding#BY_NAME}): columns found by field id or physical name, absent ones read as
     * NULL, partition values as constants.
     */
    public static DimensionTable open(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Map<FileId, DeletedRows> deletedRows,
            Map<FileId, ColumnBinding> bindings)
            throws IOException {
        List<SortedFile> opened = new ArrayList<>();
        // Local forms the files ask for are checked after the open, from the footers it cached.
        LocalForms.Hold localForms =
                config.localForms() == null
                        ? null
                        : config.localForms().opening(config.metadataCache());
        try {
            try {
                List<FileId> ids = FileOpener.list(config, store);
                opened.addAll(
                        FileOpener.openAll(config, store, statistics, ids, deletedRows, bindings));
            } finally {
                if (localForms != null) {
                    localForms.close();
                }
            }
            TableColumns schema = TableColumns.of(config.path(), opened);
            int indexed = 0;
            for (SortedFile f : opened) {
                indexed += f.indexed() ? 1 : 0;
            }
            LOG.info(
                    "Opened {} file(s) at {} sorted by {} ({} not sorted: served through key"
                            + " indexes)",
                    opened.size(),
                    config.path(),
                    schema.sortKey(),
                    indexed);
            return new DimensionTable(config, store, statistics, schema, List.copyOf(opened));
        } catch (IOException | RuntimeException e) {
            for (SortedFile f : opened) {
                try {
                    f.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            store.close();
            throw e;
        }
    }

    /** The configured path. */
    public String path() {
        return config.path();
    }

    /** Top-level columns of the files, in file order. */
    public List<ColumnSchema> columns() {
        return schema.columns();
    }

    /** The sort key the files are verified to be sorted by. */
    public List<String> sortKey() {
        return schema.sortKey();
    }

    /** The files of this snapshot, ordered by their key range. */
    public List<FileId> files() {
        List<FileId> ids = new ArrayList<>();
        for (SortedFile f : files) {
            ids.add(f.file());
        }
        for (SortedFile f : allFiles) {
            if (f.minKey() == null) {
                ids.add(f.file());
            }
        }
        return ids;
    }

    /** Leading-key pages checked sorted in full so far, over all files (tests, diagnostics). */
    int verifiedKeyPages() {
        int n = 0;
        for (SortedFile f : allFiles) {
            n += f.loader().verifiedKeyPages();
        }
        return n;
    }

    /** Metadata of each file, for tools that explain the layout. */
    public List<FileMetadata> fileMetadata() {
        List<FileMetadata> result = new ArrayList<>();
        for (SortedFile f : allFiles) {
            result.add(f.metadata());
        }
        return result;
    }

    /**
     * Lower bounds of the leading sort-key column, one per page (per row group for files without a
     * page index), in ascending order per file and in the engine's value representation: a free
     * sample of the key distribution from metadata already in memory, e.g. for range partitioning.
     * String bounds may be truncated prefixes of real keys. Sends no request: a remote row group
     * whose page index is not loaded yet is sampled from its footer statistics ({@link
     * KeySamples}).
     */
    public List<Object> leadingKeySamples() {
        return KeySamples.of(
                files, schema.keyTypes().get(0), schema.column(schema.sortKey().get(0)).type());
    }

    /**
     * Prepares lookups on {@code keyColumns} returning {@code projectedColumns}. A key that is a
     * leading prefix of the sort key (in sort-key order) is searched by the files' order; any other
     * set of columns is a secondary key ({@link LookupPlan#secondary()}), searched through a key
     * index per file on those columns, whose builds this call starts in the background (a lookup
     * into a file waits only for that file's index; see {@link #lookup}).
     *
     * @throws LookupFileException if a key column is missing or of a type a key cannot have, or a
     *     projected column is missing or nested
     */
    public LookupPlan plan(List<String> keyColumns, List<String> projectedColumns) {
        LookupPlan plan = schema.plan(keyColumns, projectedColumns);
        prepare(plan);
        return plan;
    }

    /**
     * Starts the key index builds a secondary-key plan (made on this table or an earlier snapshot
     * of it) needs in this snapshot's files, in the background; nothing for a sort-key plan. A
     * refreshed snapshot's files that were already indexed (same file version) reuse their index.
     *
     * @throws LookupFileException if a key column cannot be a key in one of the files
     */
    public void prepare(LookupPlan plan) {
        if (plan.secondary()) {
            for (SortedFile f : allFiles) {
                f.prepareSecondary(plan.keyColumns());
            }
        }
    }

    /**
     * Every row whose key columns equal {@code key} (values in the plan's key order; see {@link
     * ValueType} for their representation), in file order, as arrays of the projected values. A
     * null key component matches nothing. Returns an empty list on a miss.
     */
    public List<Object[]> lookup(LookupPlan plan, Object[] key) throws IOException {
        Object[] comparable = comparableKey(plan, key);
        return comparable == null ? List.of() : lookup(plan, comparable, new LookupContext());
    }

    /**
     * The key in the form lookups search: comparable for a sort-key plan; for a secondary key the
     * values as they are (each file converts them to its columns' types). Null: no row can match (a
     * null part).
     */
    @Nullable
    private Object[] comparableKey(LookupPlan plan, Object[] key) {
        if (!plan.secondary()) {
            return schema.comparableKey(plan, key);
        }
        if (key.length != plan.keyColumns().size()) {
            throw new IllegalArgumentException(
                    "Lookup on "
                            + plan.keyColumns()
                            + " needs "
                            + plan.keyColumns().size()
                            + " key value(s), got "
                            + key.length
                            + ": pass one value per key column, in that order.");
        }
        for (Object part : key) {
            if (part == null) {
                return null;
            }
        }
        return key;
    }

    /**
     * Like {@link #lookup(LookupPlan, Object[])} without holding a thread while requests are out:
     * pages of local or cached files are read in the calling thread and the future is complete on
     * return; pages of remote files are requested (at most {@code limiter}'s bound in flight, one
     * request per page shared by concurrent lookups, the key page and the value pages its rows need
     * in one wave) and the lookup continues in the thread that completes them.
     */
    public CompletableFuture<List<Object[]>> lookupAsync(
            LookupPlan plan, Object[] key, RequestLimiter limiter) {
        Object[] comparable;
        try {
            comparable = comparableKey(plan, key);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (comparable == null) {
            return CompletableFuture.completedFuture(List.of());
        }
        return new AsyncLookup(config.path(), ctx -> lookup(plan, comparable, ctx), plan, limiter)
                .run();
    }

    /** The lookup of a comparable key, reading pages through {@code ctx}. */
    private List<Object[]> lookup(LookupPlan plan, Object[] comparable, LookupContext ctx)
            throws IOException {
        if (plan.secondary()) {
            return lookupSecondary(plan, comparable, ctx);
        }
        KeyType lead = schema.keyTypes().get(0);
        Object k0 = comparable[0];
        // First file whose running maximum reaches the key, then every file starting at or below
        // it.
        int lo = 0;
        int hi = files.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (lead.compare(maxUpTo[mid], k0) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // The files turned away by their filters, asked 64 at a time from `chunk`.
        int chunk = lo;
        long turnedAway = turnedAway(chunk, comparable);
        List<Object[]> result = null;
        List<SortedFile.RowSpan> spans = new ArrayList<>(2);
        boolean pending = false;
        for (int i = lo; i < files.length && lead.compare(files[i].minKey(), k0) <= 0; i++) {
            if (i - chunk == 64) {
                chunk = i;
                turnedAway = turnedAway(chunk, comparable);
            }
            SortedFile file = files[i];
            if (lead.compare(file.maxKey(), k0) < 0 || (turnedAway & (1L << (i - chunk))) != 0) {
                continue;
            }
            if (file.indexed() && ctx.returnsThread() && awaits(ctx, file.indexDemand())) {
                pending = true;
                continue;
            }
            spans.clear();
            ctx.nextFile(file);
            try {
                file.findRows(comparable, spans, ctx);
                if (!spans.isEmpty()) {
                    if (result == null) {
                        result = new ArrayList<>();
                    }
                    file.readRows(spans, plan.projectedColumns(), ctx, result);
                }
            } catch (PagesPending p) {
                // An asynchronous lookup asks for the pages of every file in the same wave.
                pending = true;
            } finally {
                ctx.releaseScratch(); // the rows are copied out: the pages are no longer read
            }
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
        return result == null ? List.of() : result;
    }

    /**
     * The files from {@code lo} on (at most 64) that no row with the sort-key prefix {@code
     * comparable} can come from by what is in the heap ({@link SortedFile#mayHold}), as bits from
     * {@code lo}; none (and nothing allocated) when fewer than two of the files that may hold the
     * key are served through a key index, as in a table of sorted files. Asked of all of them
     * before any is searched: in a table of unsorted files every file spans the key range and is
     * asked for every key, and its filter's block is a likely cache miss; in a loop of their own
     * the files' misses overlap, where each file's search in between would make them queue. Once
     * the {@link #routing} filter is built, the files it covers are asked in one bucket of it.
     */
    private long turnedAway(int lo, Object[] comparable) {
        KeyType lead = schema.keyTypes().get(0);
        Object k0 = comparable[0];
        int end = lo;
        int indexed = 0;
        while (end < files.length && end - lo < 64 && lead.compare(files[end].minKey(), k0) <= 0) {
            indexed += files[end].indexed() ? 1 : 0;
            end++;
        }
        if (indexed < 2) {
            return 0; // one index's filter is read by its own search: nothing to overlap
        }
        TableFilter filter = routing.get();
        long away = 0;
        long routed = 0;
        boolean uncovered = false;
        IndexProbe probe = null;
        for (int i = lo; i < end; i++) {
            SortedFile file = files[i];
            if (!file.indexed()) {
                continue;
            }
            KeyIndex index = file.routedIndex();
            if (filter != null && filter.covers(i, index)) {
                routed |= 1L << (i - lo); // asked of the table filter below, in one bucket
            } else {
                uncovered |= index != null; // built, but not in the filter (yet)
                if (probe == null) {
                    probe = new IndexProbe(end - lo); // a file may switch to a twin meanwhile
                }
                if (!file.mayHold(comparable, probe, i - lo)) {
                    away |= 1L << (i - lo);
                }
            }
        }
        if (routed != 0) {
            away |= filter.absent(filter.code(comparable), lo, routed);
        }
        if (uncovered) {
            rebuildRouting();
        }
        return probe == null ? away : away | probe.absent();
    }

    /**
     * The lookup of a secondary key: every file (its key range says nothing about these columns)
     * through its index on the key's columns.
     */
    private List<Object[]> lookupSecondary(LookupPlan plan, Object[] key, LookupContext ctx)
            throws IOException {
        long turnedAway = 0;
        List<Object[]> result = null;
        List<SortedFile.RowSpan> spans = new ArrayList<>(2);
        boolean pending = false;
        for (int i = 0; i < allFiles.size(); i++) {
            if (i % 64 == 0) {
                turnedAway = secondaryTurnedAway(plan, key, i); // 64 files at a time
            }
            SortedFile file = allFiles.get(i);
            if ((turnedAway & (1L << (i % 64))) != 0) {
                continue;
            }
            // An asynchronous lookup starts the build of this key's index (unless planning or a
            // builder did) and waits for it without its thread; a synchronous one builds or waits
            // in findSecondaryRows.
            if (ctx.returnsThread() && awaits(ctx, file.secondaryDemand(plan.keyColumns()))) {
                pending = true;
                continue;
            }
            spans.clear();
            ctx.nextFile(file);
            try {
                file.findSecondaryRows(plan.keyColumns(), key, spans, ctx);
                if (!spans.isEmpty()) {
                    if (result == null) {
                        result = new ArrayList<>();
                    }
                    file.readRows(spans, plan.projectedColumns(), ctx, result);
                }
            } catch (PagesPending p) {
                pending = true; // every file's pages in the same wave
            } finally {
                ctx.releaseScratch();
            }
        }
        if (pending) {
            throw PagesPending.INSTANCE;
        }
        return result == null ? List.of() : result;
    }

    /**
     * {@link #turnedAway} for a secondary key: the files from {@code from} on (at most 64) whose
     * built index on the key's columns, or whose constants, turn {@code key} away, asked all at
     * once, as bits from {@code from}; none in a table of one file.
     */
    private long secondaryTurnedAway(LookupPlan plan, Object[] key, int from) {
        if (allFiles.size() < 2) {
            return 0;
        }
        int n = Math.min(64, allFiles.size() - from);
        long away = 0;
        IndexProbe probe = new IndexProbe(n);
        for (int i = 0; i < n; i++) {
            if (!allFiles.get(from + i).mayHoldSecondary(plan.keyColumns(), key, probe, i)) {
                away |= 1L << i;
            }
        }
        return away | probe.absent();
    }

    /**
     * Whether {@code ctx} (an asynchronous lookup) waits, without its thread, for {@code building}:
     * the unfinished build of the key index it needs in a file (null: none).
     */
    private static boolean awaits(LookupContext ctx, @Nullable CompletableFuture<Void> building) {
        return building != null && ctx.awaits(building);
    }

    /**
     * Every row of every file (rows with null keys included), file by file in path order, each in
     * file order, projected like {@code plan}'s results.
     */
    public void scan(LookupPlan plan, RowConsumer consumer) throws IOException {
        for (SortedFile file : allFiles) {
            file.scan(plan.projectedColumns(), consumer);
        }
    }

    /** Bytes and read requests of data (and metadata) reads made by this table. */
    public ReadStatistics readStatistics() {
        return statistics;
    }

    /** The configuration this table was opened with. */
    public TableConfig config() {
        return config;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        releaseRouting();
        IOException failure = null;
        for (SortedFile f : allFiles) {
            try {
                f.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        try {
            store.close();
        } catch (IOException e) {
            failure = failure == null ? e : failure;
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "DimensionTable{"
                + config.path()
                + ", "
                + allFiles.size()
                + " files, sort key "
                + schema.sortKey()
                + "}";
    }
}
