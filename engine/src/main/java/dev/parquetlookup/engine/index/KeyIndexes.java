package dev.parquetlookup.engine.index;

import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.parquet.column.ColumnDescriptor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The key indexes of one JVM (a TaskManager): one per (file version, key columns), shared by every
 * table and slot that serves the file, reference counted, built once (single flight: every lookup
 * waiting for a file's index waits for the same build). A build starts in the background when a
 * table asks for the index ({@link #acquire}); a lookup that needs it before a builder thread took
 * it up builds it on its own thread (it would wait anyway), or, asynchronous, starts it on a thread
 * of its own and returns its thread until it is done ({@link #demand}), so the first lookup into a
 * file never queues behind the other files' builds. An index file already on disk for the same file
 * version is checked (CRC32C, header) and reused; a damaged or foreign one is rebuilt. Index files
 * stay when their tables close (the next table on the same files, a restart, reuses them); those of
 * files a refresh dropped are deleted ({@link #discard}) once no table of the JVM holds them.
 *
 * <p>Example:
 *
 * <pre>{@code
 * try (KeyIndexes.Handle h = KeyIndexes.shared().acquire(request)) {
 *     long[] rows = h.index().rows(KeyCodes.code(types, key));
 * }
 * }</pre>
 */
public final class KeyIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(KeyIndexes.class);

    private static final KeyIndexes SHARED = new KeyIndexes(KeyIndexBuilder.CHUNK);

    /** The JVM's indexes (the one documented shared instance). */
    public static KeyIndexes shared() {
        return SHARED;
    }

    /** What one index is built from and kept as. */
    public record Request(
            FileId file,
            List<String> keyColumns,
            List<KeyType> keyTypes,
            List<ColumnDescriptor> keyLeaves,
            long rowCount,
            Path directory,
            RangeSource source) {

        IndexHeader header() {
            return IndexHeader.of(
                    file,
                    keyColumns,
                    keyLeaves.stream().map(d -> d.getPrimitiveType().toString()).toList(),
                    rowCount);
        }
    }

    /** Counters of this JVM's indexes since it started. */
    public record Statistics(
            long filesIndexed,
            long indexesReused,
            long damagedRebuilt,
            long indexBytes,
            long buildNanos) {}

    private record Key(FileId file, List<String> keyColumns) {}

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /**
     * The index files this JVM built or reused (checked), by index: the only ones {@link #discard}
     * deletes. A reused one may have been built by another process sharing the directory; deleting
     * it while that process maps it is harmless (the mapping stays readable).
     */
    private final ConcurrentHashMap<Key, Path> onDisk = new ConcurrentHashMap<>();

    private final int chunk;
    private final ExecutorService builders;

    /** Builds a lookup asked for before a background builder took them up ({@link #demand}). */
    private final ExecutorService onDemand;

    /** Attempts not done: {@link #demand} looks no further while there are none. */
    private final AtomicInteger unfinished = new AtomicInteger();

    private final LongAdder built = new LongAdder();
    private final LongAdder reused = new LongAdder();
    private final LongAdder damaged = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder nanos = new LongAdder();

    /** Indexes sorting {@code chunk} entries in memory at once (tests: small, to spill). */
    KeyIndexes(int chunk) {
        this.chunk = chunk;
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        // JVM-wide: not the context class loader of the job that happened to start a thread (Flink
        // closes it when that job ends, and Hadoop's Configuration, read by a build, loads through
        // it).
        this.builders =
                Executors.newFixedThreadPool(
                        threads, DaemonThreads.jvmWide("parquet-lookup-index"));
        int demanded = Math.max(1, Runtime.getRuntime().availableProcessors());
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(
                        demanded,
                        demanded,
                        30,
                        TimeUnit.SECONDS,
                        new LinkedBlockingQueue<>(),
                        DaemonThreads.jvmWide("parquet-lookup-index-demand"));
        pool.allowCoreThreadTimeOut(true);
        this.onDemand = pool;
    }

    /** The counters so far. */
    public Statistics statistics() {
        return new Statistics(built.sum(), reused.sum(), damaged.sum(), bytes.sum(), nanos.sum());
    }

    /** One index: its current build attempt and the tables holding it. */
    private final class Entry {
        int refs; // guarded by the map's compute
        volatile Request request;
        volatile Attempt attempt;
    }

    /**
     * One build (or load) of an index through one table's source: run by whichever thread claims it
     * first.
     */
    private final class Attempt implements Runnable {
        final Request request;
        final AtomicBoolean claimed = new AtomicBoolean();
        final CompletableFuture<KeyIndex> result = new CompletableFuture<>();

        Attempt(Request request) {
            this.request = request;
            unfinished.incrementAndGet();
            result.whenComplete((index, failure) -> unfinished.decrementAndGet());
        }

        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                result.complete(loadOrBuild(request));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }
    }

    /**
     * Holds the index of {@code request}'s file and key, starting its build in the background
     * unless it is held, built or building already. Close the handle when the file is closed.
     */
    public Handle acquire(Request request) {
        Key key = new Key(request.file(), request.keyColumns());
        Attempt[] start = new Attempt[1];
        Entry entry =
                entries.compute(
                        key,
                        (k, e) -> {
                            if (e == null) {
                                e = new Entry();
                            }
                            e.refs++;
                            synchronized (e) {
                                e.request = request; // the newest table's source builds a retry
                                Attempt a = e.attempt;
                                if (a == null || a.result.isCompletedExceptionally()) {
                                    e.attempt = start[0] = new Attempt(request);
                                }
                            }
                            return e;
                        });
        if (start[0] != null) {
            builders.execute(start[0]);
        }
        return new Handle(key, entry);
    }

    /**
     * The unfinished builds of {@code file}'s indexes, for a lookup that returns its thread instead
     * of building or waiting in it (an asynchronous one): builds no background builder took up yet
     * start now on threads of their own, ahead of the other files' background builds (single
     * flight: whoever claims a build first runs it). Returns a future done when they all are
     * (failed or not: the lookup's replay then reads the failure), or null when none is unfinished.
     */
    @Nullable
    public CompletableFuture<Void> demand(FileId file) {
        if (unfinished.get() == 0) {
            return null;
        }
        List<CompletableFuture<KeyIndex>> waits = new ArrayList<>(1);
        for (Map.Entry<Key, Entry> e : entries.entrySet()) {
            if (!e.getKey().file().equals(file)) {
                continue;
            }
            Attempt a = e.getValue().attempt;
            if (a == null || a.result.isDone()) {
                continue;
            }
            if (!a.claimed.get()) {
                onDemand.execute(a);
            }
            waits.add(a.result);
        }
        if (waits.isEmpty()) {
            return null;
        }
        return CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0]))
                .handle((ignored, failure) -> null);
    }

    /**
     * Deletes the index files of {@code files} (any key columns) that this JVM built or reused and
     * no table holds now: a refresh dropped those files from a table, and nothing else of this JVM
     * serves them. An index a table still holds (another slot's table on an older version) stays;
     * its own refresh discards it later. Returns how many were deleted.
     */
    public int discard(Set<FileId> files) {
        int deleted = 0;
        if (files.isEmpty()) {
            return deleted;
        }
        for (Key key : onDisk.keySet()) {
            if (!files.contains(key.file())) {
                continue;
            }
            Path[] gone = new Path[1];
            // Under the key's lock, so that an acquire of the same index waits and then builds it
            // anew rather than open the file being deleted.
            entries.compute(
                    key,
                    (k, e) -> {
                        if (e == null) {
                            Path p = onDisk.remove(k);
                            try {
                                if (p != null && Files.deleteIfExists(p)) {
                                    gone[0] = p;
                                }
                            } catch (IOException failure) {
                                LOG.warn(
                                        "Cannot delete the key index {}: {}",
                                        p,
                                        failure.toString());
                            }
                        }
                        return e;
                    });
            if (gone[0] != null) {
                deleted++;
                LOG.info(
                        "Deleted the key index of {} by {} at {}: the file left the table",
                        key.file(),
                        key.keyColumns(),
                        gone[0]);
            }
        }
        return deleted;
    }

    private void release(Key key, Entry entry) {
        entries.computeIfPresent(key, (k, e) -> e != entry || --e.refs > 0 ? e : null);
    }

    /** A table's hold on one index. */
    public final class Handle implements Closeable {
        private final Key key;
        private final Entry entry;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Handle(Key key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        /**
         * The index, built on this thread if no builder has started it, else waited for.
         *
         * @throws IOException if it cannot be built (the file cannot be read)
         */
        public KeyIndex index() throws IOException {
            Attempt attempt = entry.attempt;
            attempt.run(); // no-op when a builder has claimed it
            awaitQuietly(attempt.result); // a builder thread may still be running it
            if (attempt.result.isCompletedExceptionally() && entry.request != attempt.request) {
                // Built through a table closed since (a refresh): once more through the newest.
                synchronized (entry) {
                    if (entry.attempt == attempt) {
                        entry.attempt = new Attempt(entry.request);
                    }
                    attempt = entry.attempt;
                }
                attempt.run();
            }
            CompletableFuture<KeyIndex> result = attempt.result;
            try {
                return result.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(
                        "interrupted waiting for the key index of " + key.file());
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException io) {
                    throw new IOException(
                            "Cannot build the key index of " + key.file() + ": " + io.getMessage(),
                            io);
                }
                if (cause instanceof LookupFileException lfe) {
                    throw lfe;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw new LookupFileException(
                        "Cannot build the key index of " + key.file() + ": " + cause, cause);
            }
        }

        /** Waits until {@code result} is done, its failure left to the caller to read. */
        private void awaitQuietly(CompletableFuture<KeyIndex> result) throws IOException {
            try {
                result.handle((index, failure) -> null).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(
                        "interrupted waiting for the key index of " + key.file());
            } catch (ExecutionException e) {
                throw new AssertionError("handle() completes normally", e);
            }
        }

        /** The index when it is ready, without waiting or building; null before. */
        public KeyIndex ready() {
            CompletableFuture<KeyIndex> result = entry.attempt.result;
            return result.isDone() && !result.isCompletedExceptionally() ? result.join() : null;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                release(key, entry);
            }
        }
    }

    /** Where the index of {@code header} lives in {@code directory}. */
    static Path location(Path directory, IndexHeader header) throws IOException {
        String name = Path.of(header.path().replace(':', '_')).getFileName().toString();
        name = name.replaceAll("[^A-Za-z0-9._-]", "_");
        if (name.length() > 60) {
            name = name.substring(0, 60);
        }
        return directory.resolve(
                name + "-" + Long.toHexString(KeyCodes.hash(header.encode())) + ".pli");
    }

    private KeyIndex loadOrBuild(Request request) throws IOException {
        IndexHeader header = request.header();
        Files.createDirectories(request.directory());
        Path target = location(request.directory(), header);
        if (Files.exists(target)) {
            try {
                KeyIndex index = KeyIndex.open(target, header);
                onDisk.put(new Key(request.file(), request.keyColumns()), target);
                reused.increment();
                LOG.info(
                        "Reusing the key index of {} by {} ({} entries, {} bytes) at {}",
                        request.file(),
                        request.keyColumns(),
                        index.entries(),
                        index.bytes(),
                        target);
                return index;
            } catch (KeyIndex.Damaged e) {
                damaged.increment();
                LOG.warn("{}; rebuilding it", e.getMessage());
                Files.deleteIfExists(target);
            }
        }
        long start = System.nanoTime();
        long entriesBuilt =
                KeyIndexBuilder.build(
                        new KeyIndexBuilder.Input(
                                request.source(), header, request.keyLeaves(), request.keyTypes()),
                        target,
                        chunk);
        KeyIndex index = KeyIndex.open(target, header);
        onDisk.put(new Key(request.file(), request.keyColumns()), target);
        long spent = System.nanoTime() - start;
        built.increment();
        bytes.add(index.bytes());
        nanos.add(spent);
        LOG.info(
                "Indexed {} by {}: the file is not sorted by its key; {} rows, {} keys, {} bytes"
                        + " ({} per row), built in {} ms at {}",
                request.file(),
                request.keyColumns(),
                request.rowCount(),
                entriesBuilt,
                index.bytes(),
                request.rowCount() == 0 ? 0 : index.bytes() / request.rowCount(),
                spent / 1_000_000,
                target);
        return index;
    }
}
