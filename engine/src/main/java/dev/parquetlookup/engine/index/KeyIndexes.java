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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The key indexes of one JVM (a TaskManager): one per (file version, key columns), shared by every
 * table and slot that serves the file, reference counted, built once (single flight: every lookup
 * waiting for a file's index waits for the same build). A build starts in the background when a
 * table asks for the index ({@link #acquire}); a lookup that needs it before a builder thread took
 * it up builds it on its own thread (it would wait anyway), or, asynchronous, starts it on a thread
 * of its own and returns its thread until it is done ({@link Handle#demand}), so the first lookup
 * into a file never queues behind the other files' builds. One large file's build is spread over
 * helper threads ({@code KeyIndexBuilder.Parallel}, {@link #BUILD_THREADS_PROPERTY}). An index file
 * already on disk for the same file version is checked (CRC32C, header) and reused; a damaged or
 * foreign one is rebuilt.
 *
 * <p>Index files stay when their tables close (the next table on the same files, a restart, reuses
 * them). Those of files a refresh dropped are deleted ({@link #discard}): at once when no table of
 * the JVM holds them, else when the last one lets go, and a build still running for such a file is
 * deleted when it ends (one not started yet is not run). What no table of any process has used for
 * {@link IndexFiles#RETENTION} is swept ({@link #tidy}): the leftovers of crashed processes, of
 * tables closed for good, of files replaced while no job ran. A file another live process maps is
 * never deleted ({@link IndexFiles}: shared file locks).
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

    /**
     * The system property that sets how many threads at most build one file's index (default: the
     * cores, at most 4; 1 builds each index on one thread), for measurements and tuning.
     */
    public static final String BUILD_THREADS_PROPERTY = "parquet-lookup.index.build-threads";

    private static final KeyIndexes SHARED =
            new KeyIndexes(KeyIndexBuilder.CHUNK, defaultParallel());

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

    /** An index file this JVM let go of, and when (what {@link IndexFiles#tryDelete} checks). */
    private record Released(Path path, long usedUntil) {}

    /** The indexes held by a table or still building. */
    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /**
     * The index files this JVM built or reused (checked) and no longer holds, by index: what {@link
     * #discard} deletes at once.
     */
    private final ConcurrentHashMap<Key, Released> onDisk = new ConcurrentHashMap<>();

    private final IndexFiles files;
    private final int chunk;
    private final KeyIndexBuilder.Parallel parallel;
    private final Executor builders;

    /**
     * Builds a lookup asked for before a background builder took them up ({@link Handle#demand}).
     */
    private final Executor onDemand;

    private final LongAdder built = new LongAdder();
    private final LongAdder reused = new LongAdder();
    private final LongAdder damaged = new LongAdder();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder nanos = new LongAdder();

    /**
     * Indexes sorting {@code chunk} entries in memory at once (tests: small, to spill), each built
     * in ranges as {@code parallel} allows.
     */
    KeyIndexes(int chunk, KeyIndexBuilder.Parallel parallel) {
        this(chunk, parallel, defaultBuilders(), defaultOnDemand(), System::currentTimeMillis);
    }

    /**
     * Indexes built and swept on {@code builders}, demanded ones on {@code onDemand} (tests: run by
     * hand), each on one thread, with file times from {@code nowMillis}.
     */
    KeyIndexes(int chunk, Executor builders, Executor onDemand, LongSupplier nowMillis) {
        this(chunk, KeyIndexBuilder.Parallel.SERIAL, builders, onDemand, nowMillis);
    }

    private KeyIndexes(
            int chunk,
            KeyIndexBuilder.Parallel parallel,
            Executor builders,
            Executor onDemand,
            LongSupplier nowMillis) {
        this.chunk = chunk;
        this.parallel = parallel;
        this.builders = builders;
        this.onDemand = onDemand;
        this.files = new IndexFiles(nowMillis);
    }

    private static Executor defaultBuilders() {
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        // JVM-wide: not the context class loader of the job that happened to start a thread (Flink
        // closes it when that job ends, and Hadoop's Configuration, read by a build, loads through
        // it).
        return Executors.newFixedThreadPool(threads, DaemonThreads.jvmWide("parquet-lookup-index"));
    }

    /**
     * One file's index built by up to {@link #BUILD_THREADS_PROPERTY} threads: the one that builds
     * it (a builder, a demanded build's thread, a waiting lookup's) and helpers of a JVM-wide pool
     * shared by every build, whose threads end when idle. A build whose ranges find no idle helper
     * reads them on its own thread: the pool bounds the threads, never blocks a build.
     */
    private static KeyIndexBuilder.Parallel defaultParallel() {
        int cores = Runtime.getRuntime().availableProcessors();
        int threads = Math.max(1, Integer.getInteger(BUILD_THREADS_PROPERTY, Math.min(cores, 4)));
        if (threads == 1) {
            return KeyIndexBuilder.Parallel.SERIAL;
        }
        Executor helpers =
                DaemonThreads.idleEndingPool(
                        threads - 1, DaemonThreads.jvmWide("parquet-lookup-index-range"));
        return new KeyIndexBuilder.Parallel(threads, KeyIndexBuilder.MIN_ROWS_PER_RANGE, helpers);
    }

    private static Executor defaultOnDemand() {
        int demanded = Math.max(1, Runtime.getRuntime().availableProcessors());
        return DaemonThreads.idleEndingPool(
                demanded, DaemonThreads.jvmWide("parquet-lookup-index-demand"));
    }

    /** The counters so far. */
    public Statistics statistics() {
        return new Statistics(built.sum(), reused.sum(), damaged.sum(), bytes.sum(), nanos.sum());
    }

    /**
     * One index: its current build attempt and the tables holding it. It lives while a table holds
     * it or its attempt is unfinished, so that a build outliving its tables is still the one build
     * of the index, and is deleted when it ends if its file was discarded meanwhile.
     */
    private final class Entry {
        final Key key;
        int refs; // guarded by the map's compute
        boolean discarded; // guarded by the map's compute: delete the file when the entry retires
        volatile Request request;
        volatile Attempt attempt;

        Entry(Key key) {
            this.key = key;
        }
    }

    /**
     * One build (or load) of an index through one table's source: run by whichever thread claims it
     * first.
     */
    private final class Attempt implements Runnable {
        final Entry entry;
        final Request request;
        final AtomicBoolean claimed = new AtomicBoolean();
        final CompletableFuture<KeyIndex> result = new CompletableFuture<>();

        /** The index file mapped, locked against other processes' deletion; set when it is. */
        volatile IndexFiles.Hold hold;

        volatile boolean cancelled;

        Attempt(Entry entry, Request request) {
            this.entry = entry;
            this.request = request;
            result.whenComplete(
                    (index, failure) -> {
                        ended(this);
                    });
        }

        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                result.complete(loadOrBuild(this));
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        }

        /** Ends an attempt nobody started (its file was discarded): it will never run. */
        void cancel() {
            cancelled = true;
            result.completeExceptionally(
                    new CancellationException(
                            "the key index of " + request.file() + " was discarded"));
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
                                e = new Entry(k);
                            }
                            e.refs++;
                            e.discarded = false; // a table serves the file again
                            synchronized (e) {
                                e.request = request; // the newest table's source builds a retry
                                Attempt a = e.attempt;
                                if (a == null || a.result.isCompletedExceptionally()) {
                                    e.attempt = start[0] = new Attempt(e, request);
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
     * Deletes the index files of {@code files} (any key columns) that this JVM built or reused: a
     * refresh dropped those files from a table. An index no table of the JVM holds goes at once;
     * one a table still holds (another slot's table on an older version) goes when the last one
     * lets go of it, unless a table takes it up again meanwhile; one still building goes when its
     * build ends, and a build not started yet is not run. Returns how many were deleted at once.
     */
    public int discard(Set<FileId> files) {
        if (files.isEmpty()) {
            return 0;
        }
        Set<Key> keys = new HashSet<>();
        for (Key key : entries.keySet()) {
            if (files.contains(key.file())) {
                keys.add(key);
            }
        }
        for (Key key : onDisk.keySet()) {
            if (files.contains(key.file())) {
                keys.add(key);
            }
        }
        int deleted = 0;
        for (Key key : keys) {
            boolean[] gone = {false};
            Attempt[] cancel = {null};
            // Under the key's lock, so that an acquire of the same index waits and then builds it
            // anew rather than open the file being deleted.
            entries.compute(
                    key,
                    (k, e) -> {
                        if (e == null) {
                            Released r = onDisk.remove(k);
                            gone[0] = r != null && delete(k, r);
                            return null;
                        }
                        e.discarded = true;
                        Attempt a = e.attempt;
                        if (e.refs == 0 && a != null && a.claimed.compareAndSet(false, true)) {
                            cancel[0] = a; // ended outside the lock: its end retires the entry
                        }
                        return e;
                    });
            if (cancel[0] != null) {
                cancel[0].cancel();
            }
            deleted += gone[0] ? 1 : 0;
        }
        return deleted;
    }

    /**
     * Sweeps {@code directory} in the background, at most once an hour: deletes the index files no
     * process has used for {@link IndexFiles#RETENTION} (a day) and holds now. Tables call it when
     * they open and refresh.
     */
    public void tidy(Path directory) {
        if (files.sweepDue(directory)) {
            builders.execute(() -> sweep(directory));
        }
    }

    /** Sweeps {@code directory} now; returns the index files deleted. */
    List<Path> sweep(Path directory) {
        List<Path> deleted = files.sweep(directory.toAbsolutePath().normalize());
        if (!deleted.isEmpty()) {
            onDisk.values().removeIf(r -> deleted.contains(r.path()));
        }
        return deleted;
    }

    private void release(Key key, Entry entry) {
        entries.computeIfPresent(
                key, (k, e) -> e != entry || --e.refs > 0 ? e : retireIfDone(k, e));
    }

    /** After {@code attempt} ended: retires its entry if no table holds it. */
    private void ended(Attempt attempt) {
        Entry entry = attempt.entry;
        entries.computeIfPresent(
                entry.key,
                (k, e) ->
                        e != entry || e.refs > 0 || e.attempt != attempt ? e : retireIfDone(k, e));
    }

    /**
     * Under the key's lock, an entry no table holds: gone once its attempt ended, its file let go
     * of (and deleted if it was discarded). Returns null then, else the entry.
     */
    @Nullable
    private Entry retireIfDone(Key key, Entry e) {
        Attempt a = e.attempt;
        if (a != null && !a.result.isDone()) {
            return e; // its end retires it
        }
        IndexFiles.Hold hold = a == null ? null : a.hold;
        if (hold != null) {
            a.hold = null;
            onDisk.put(key, new Released(hold.path, hold.release()));
        }
        if (e.discarded) {
            Released r = onDisk.remove(key);
            if (r != null) {
                delete(key, r);
            }
        }
        return null;
    }

    /** Deletes the index file {@code r} unless some process uses it (see {@link IndexFiles}). */
    private boolean delete(Key key, Released r) {
        if (!files.tryDelete(r.path(), r.usedUntil())) {
            return false;
        }
        LOG.info(
                "Deleted the key index of {} by {} at {}: the file left the table",
                key.file(),
                key.keyColumns(),
                r.path());
        return true;
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
            CompletableFuture<KeyIndex> built = attempt.result;
            if (built.isDone() && !built.isCompletedExceptionally()) {
                // Every lookup after the build: no claim (a CAS on a line every slot's lookups
                // share) and no future allocated to wait on, once per file per lookup.
                return built.getNow(null);
            }
            attempt.run(); // no-op when a builder has claimed it
            awaitQuietly(attempt.result); // a builder thread may still be running it
            if (attempt.result.isCompletedExceptionally()
                    && (entry.request != attempt.request || attempt.cancelled)) {
                // Built through a table closed since (a refresh), or not built because its file was
                // discarded just before this table took it: once more through the newest.
                synchronized (entry) {
                    if (entry.attempt == attempt) {
                        entry.attempt = new Attempt(entry, entry.request);
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

        /**
         * This index's unfinished build, for a lookup that returns its thread instead of building
         * or waiting in it (an asynchronous one): a build no background builder took up yet starts
         * now on a thread of its own, ahead of the other files' background builds (single flight:
         * whoever claims it first runs it). Returns a future done when the build is (failed or not:
         * the lookup's replay then reads the failure), or null when it is done already.
         */
        @Nullable
        public CompletableFuture<Void> demand() {
            Attempt attempt = entry.attempt;
            if (attempt == null || attempt.result.isDone()) {
                return null;
            }
            if (!attempt.claimed.get()) {
                onDemand.execute(attempt);
            }
            return attempt.result.handle((ignored, failure) -> null);
        }

        /**
         * The current build's result, without starting or waiting for it: done with the index when
         * it is built, failed when this build failed (a later lookup may build it again).
         */
        public CompletableFuture<KeyIndex> built() {
            return entry.attempt.result;
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

    private KeyIndex loadOrBuild(Attempt attempt) throws IOException {
        Request request = attempt.request;
        IndexHeader header = request.header();
        Files.createDirectories(request.directory());
        Path target = location(request.directory(), header);
        IndexFiles.Hold found = files.take(target);
        if (found != null) {
            try {
                KeyIndex index = open(attempt, found, header, true);
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
        KeyIndexBuilder.Built made =
                KeyIndexBuilder.build(
                        new KeyIndexBuilder.Input(
                                request.source(), header, request.keyLeaves(), request.keyTypes()),
                        target,
                        chunk,
                        parallel);
        IndexFiles.Hold fresh = files.take(target);
        if (fresh == null) {
            throw new IOException("The key index " + target + " was deleted as it was built");
        }
        // Its checksum was computed from the bytes just written: checked once, not again.
        KeyIndex index = open(attempt, fresh, header, false);
        long spent = System.nanoTime() - start;
        built.increment();
        bytes.add(index.bytes());
        nanos.add(spent);
        LOG.info(
                "Indexed {} by {}: the file is not sorted by its key; {} rows, {} keys, {} bytes"
                        + " ({} per row), built in {} ms ({} ms reading it in {} ranges, {} ms"
                        + " merging and writing) at {}",
                request.file(),
                request.keyColumns(),
                request.rowCount(),
                made.entries(),
                index.bytes(),
                request.rowCount() == 0 ? 0 : index.bytes() / request.rowCount(),
                spent / 1_000_000,
                made.readNanos() / 1_000_000,
                made.ranges(),
                made.writeNanos() / 1_000_000,
                target);
        return index;
    }

    /** Maps the file {@code hold} holds, then locks it again (the mapping dropped the lock). */
    private static KeyIndex open(
            Attempt attempt, IndexFiles.Hold hold, IndexHeader header, boolean verifyChecksum)
            throws IOException {
        KeyIndex index;
        try {
            index = KeyIndex.open(hold.path, header, verifyChecksum);
        } catch (IOException | RuntimeException e) {
            hold.release();
            throw e;
        }
        hold.relock();
        attempt.hold = hold;
        return index;
    }
}
