package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.SortKeyResolver;

import org.apache.parquet.schema.MessageType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Opens the files of a {@link DimensionTable}, many at once: each file's metadata from the shared
 * metadata cache or its footer (one ranged read of the tail), its page index bound to be read row
 * group by row group on first use, its deleted rows attached. All or nothing: when one file fails
 * (or the opening thread is interrupted), the files already opened are closed and the first failure
 * is thrown with the others suppressed.
 */
final class FileOpener {

    private static final Logger LOG = LoggerFactory.getLogger(FileOpener.class);

    private FileOpener() {}

    /**
     * Files opened at once on threads by {@link DimensionTable#open}, and the most files opened
     * that way: opening is one GET per file (the footer's tail), so up to 64 files cost one round
     * trip. A table of more files reads its tails asynchronously ({@link TailFirstOpener}): no
     * thread per file waiting, about 160 us of client CPU per GET instead of S3A's synchronous 360
     * us; that path starts the asynchronous client, which a planner opening a small table should
     * not.
     */
    static final int PARALLELISM = 64;

    /**
     * The data files at the table's path (for a table format, the version's listing).
     *
     * @throws LookupFileException if the path does not exist or holds no data file
     */
    static List<FileId> list(TableConfig config, FileStore store) throws IOException {
        List<FileId> ids;
        try {
            ids = store.list(config.path());
        } catch (FileNotFoundException e) {
            throw new LookupFileException(
                    "Path " + config.path() + " does not exist. Check the table's 'path'.", e);
        }
        if (ids.isEmpty()) {
            throw new LookupFileException(
                    "Path "
                            + config.path()
                            + " holds no Parquet files (hidden and '_' files are"
                            + " skipped). Check the table's 'path'.");
        }
        return ids;
    }

    /**
     * Opens every file, up to {@link #PARALLELISM} at a time on threads, or (more files) through
     * {@link TailFirstOpener}: on an object store each open is one or two GETs of tens of
     * milliseconds, and the first lookup waits for all of them. Returns the files in {@code ids}'
     * order; on a failure every file opened is closed and the failure of the first failing file (in
     * {@code ids}' order) is thrown, the others suppressed in it.
     */
    static List<SortedFile> openAll(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            List<FileId> ids,
            Map<FileId, DeletedRows> deletedRows,
            Map<FileId, ColumnBinding> bindings)
            throws IOException {
        Context context = new Context(config, store, statistics, deletedRows, bindings);
        if (ids.size() == 1) {
            return List.of(context.open(ids.get(0)));
        }
        if (ids.size() > PARALLELISM) {
            return TailFirstOpener.openAll(context, ids);
        }
        int threads = Math.min(PARALLELISM, ids.size());
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        threads, DaemonThreads.perTable("parquet-lookup-open"));
        SortedFile[] files = new SortedFile[ids.size()];
        Throwable[] failures = new Throwable[ids.size()];
        try {
            for (int i = 0; i < ids.size(); i++) {
                int index = i;
                pool.execute(
                        () -> {
                            try {
                                files[index] = context.open(ids.get(index));
                            } catch (Throwable t) {
                                failures[index] = t;
                            }
                        });
            }
        } finally {
            // Every task runs to its end, so each opened file is seen below and closed on failure.
            pool.shutdown();
        }
        boolean interrupted = awaitAll(pool);
        Throwable failure = firstFailure(failures);
        if (failure == null && interrupted) {
            failure = new InterruptedIOException("interrupted while opening " + config.path());
        }
        if (failure != null) {
            throw closeAll(files, failure);
        }
        return List.of(files);
    }

    /** Waits for every open to end; an interrupt stops the others. Returns whether interrupted. */
    private static boolean awaitAll(ExecutorService pool) {
        boolean interrupted = false;
        while (true) {
            try {
                if (pool.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                // Cancelled: stop the opens (they fail fast when interrupted), then clean up.
                interrupted = true;
                pool.shutdownNow();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return interrupted;
    }

    /** The first failure with the others suppressed, or null. */
    static Throwable firstFailure(Throwable[] failures) {
        Throwable failure = null;
        for (Throwable t : failures) {
            if (t == null) {
                continue;
            }
            if (failure == null) {
                failure = t;
            } else {
                failure.addSuppressed(t);
            }
        }
        return failure;
    }

    /** Closes the files that did open and returns {@code failure} as something to throw. */
    static IOException closeAll(SortedFile[] files, Throwable failure) {
        for (SortedFile f : files) {
            if (f != null) {
                try {
                    f.close();
                } catch (IOException e) {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure instanceof IOException io) {
            return io;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IOException(failure);
    }

    /** What opening one file of a table needs besides its id. */
    record Context(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Map<FileId, DeletedRows> deletedRows,
            Map<FileId, ColumnBinding> bindings) {

        /**
         * The file's source, its reads counted: its local form once that is ready (a file whose
         * pages are far larger than a lookup needs; its metadata is then the form's, cached under
         * the form's own id), the file itself until then.
         */
        RangeSource source(FileId id) throws IOException {
            FileId read =
                    config.localForms() == null
                            ? id
                            : config.localForms().servedFile(id, store, config.sortKey());
            return new CountingRangeSource(store.open(read), statistics);
        }

        /** Whether the metadata of {@code id} is cached: opening it reads nothing. */
        boolean cached(FileId id) {
            return config.metadataCache()
                            .getIfPresent(
                                    id,
                                    binding(id).cacheKey(config.sortKey()),
                                    config.synthesizePageIndex())
                    != null;
        }

        private ColumnBinding binding(FileId id) {
            return bindings.getOrDefault(id, ColumnBinding.BY_NAME);
        }

        /** Opens {@code id} through a new source. */
        SortedFile open(FileId id) throws IOException {
            RangeSource source = source(id);
            return open(id, source, source);
        }

        /**
         * Opens {@code id} over {@code source}, its footer read from {@code footerSource} (the
         * source itself, or one holding the tail already read); closes {@code source} on failure.
         */
        SortedFile open(FileId id, RangeSource source, RangeSource footerSource)
                throws IOException {
            try {
                ColumnBinding binding = binding(id);
                List<String> tableKey = config.sortKey();
                // The key in this file's names (a column-mapped Delta file's col-<uuid>), with the
                // table's names for a refusal's message.
                Function<MessageType, SortKeyResolver.KeyNames> storedKey =
                        schema -> binding.keyNames(id, schema, tableKey);
                boolean indexUnsorted = config.unsortedFiles() == UnsortedFiles.INDEX;
                FileIndexing indexing =
                        new FileIndexing(
                                config.indexDirectoryOrDefault(),
                                () ->
                                        indexedMetadata(id, binding, footerSource)
                                                .bind(source, config.metadataCache()),
                                indexUnsorted);
                // The file is verified sorted by the table's key in its own names, without the
                // columns that are constants of the file; one found unsorted before is indexed.
                // Metadata is cached under the id of what is read: the file, or its local form.
                FileMetadata meta =
                        !indexUnsorted
                                ? null
                                : config.metadataCache()
                                        .getIfPresent(
                                                source.file(),
                                                indexedCacheKey(binding),
                                                config.synthesizePageIndex());
                boolean unsorted = meta != null;
                if (meta == null) {
                    try {
                        meta =
                                config.metadataCache()
                                        .get(
                                                source.file(),
                                                binding.cacheKey(tableKey),
                                                config.synthesizePageIndex(),
                                                () ->
                                                        MetadataReader.read(
                                                                footerSource,
                                                                storedKey,
                                                                pageIndexOptions(config)));
                    } catch (LookupFileException.Unsorted e) {
                        if (!indexUnsorted) {
                            throw e;
                        }
                        LOG.info(
                                "File {} is not sorted by its key ({}); serving it through a key"
                                        + " index",
                                id,
                                e.getMessage());
                        meta = indexedMetadata(id, binding, footerSource);
                        unsorted = true;
                    }
                }
                FileColumns columns =
                        FileColumns.of(meta, binding.resolve(id, meta.schema()), tableKey);
                // The cached metadata is shared; this file reads its lazy page index through its
                // source.
                return new SortedFile(
                        meta.bind(source, config.metadataCache()),
                        source,
                        config.pageCache(),
                        config.metadataCache(),
                        deletedRows.getOrDefault(id, DeletedRows.NONE),
                        columns,
                        indexing,
                        unsorted);
            } catch (IOException | RuntimeException e) {
                source.close();
                throw e;
            }
        }

        /**
         * The metadata of a file served through a key index: read without order checks, cached
         * apart from verified metadata.
         */
        private FileMetadata indexedMetadata(
                FileId id, ColumnBinding binding, RangeSource footerSource) throws IOException {
            List<String> tableKey = config.sortKey();
            return config.metadataCache()
                    .get(
                            footerSource.file(),
                            indexedCacheKey(binding),
                            config.synthesizePageIndex(),
                            () ->
                                    MetadataReader.readForIndex(
                                            footerSource,
                                            schema ->
                                                    FileColumns.storedKey(
                                                            id,
                                                            binding.resolve(id, schema),
                                                            tableKey),
                                            pageIndexOptions(config)));
        }

        /** The metadata cache's key of a file's metadata read for a key index. */
        private List<String> indexedCacheKey(ColumnBinding binding) {
            List<String> key = new ArrayList<>(binding.cacheKey(config.sortKey()));
            key.add(INDEXED_MARKER);
            return key;
        }
    }

    /** Marks cached metadata read without order checks (a name no column has). */
    private static final String INDEXED_MARKER = "\u0000key-index";

    /**
     * The page index a file is read with: its own, or one synthesized when it has none (unless
     * turned off), both row group by row group on first use.
     */
    static PageIndexOptions pageIndexOptions(TableConfig config) {
        // A file's own page index is read row group by row group on first use: opening reads
        // footers only (docs/objectstore-internals.md).
        return (config.synthesizePageIndex()
                        ? PageIndexOptions.synthesized(KeyPageBounds.INSTANCE)
                        : PageIndexOptions.OWN)
                .lazily();
    }
}
