package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.CopyingRangeSource;
import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Owns opening a table of many files ({@link FileOpener#openAll} above {@link
 * FileOpener#PARALLELISM} files) with each file's footer tail read asynchronously: the tail's GET
 * is sent through the source's {@link RangeSource#readAllAsync} (on {@code s3a://}, the S3 store's
 * client, which lookups use too; file systems read through their streams, their bounded pool of
 * blocking reads), and only the decoding runs on a few threads. No thread waits for a GET: 1,000
 * files on S3 cost {@code 1,000 / IN_FLIGHT} round trips of latency plus the CPU of 1,000 GETs and
 * footer decodes (about the same CPU as opening on threads, measured with the {@code
 * objectstore-open} case; what changes is that up to {@code IN_FLIGHT} GETs are out at once).
 *
 * <p>One GET per file: the last {@link #TAIL_BYTES} (the whole file when smaller), the length taken
 * from the listing; a second, blocking read only when the footer is larger than that tail. Files
 * whose metadata is cached, and sources that read inline (local files), read nothing ahead and open
 * as {@link FileOpener} opens them. All or nothing as there: every file opened is closed when one
 * fails, and the first failing file (in the listing's order) is thrown with the others suppressed;
 * after a failure or an interrupt no further file is started.
 */
final class TailFirstOpener {

    /**
     * Tail GETs out at once. 128 x 64 KiB = 8 MiB of tails in memory at most; 1,000 files at 20 ms
     * are 8 round trips (0.16 s); 128 requests at 20-30 ms are 4,000-6,000 GETs/s, S3's rate per
     * prefix (5,500), and a quarter of S3A's default connection pool ({@code
     * fs.s3a.connection.maximum} = 500), which the light client shares with the lookups of tables
     * already open (a refresh).
     */
    static final int IN_FLIGHT = 128;

    /** The first read of a footer: {@code FooterReader}'s, so that it finds its tail here. */
    static final int TAIL_BYTES = 64 * 1024;

    private final FileOpener.Context context;
    private final List<FileId> ids;
    private final SortedFile[] files;
    private final Throwable[] failures;
    private final CountDownLatch ended;
    private final AtomicInteger next = new AtomicInteger();
    private final ExecutorService decoders;

    /** Set by an interrupt: files not started yet are skipped. */
    private volatile boolean stopped;

    /**
     * The lowest index of a file that failed: files after it not started yet are skipped, files
     * before it are all opened, so the failure thrown is always the first in the listing's order.
     */
    private final AtomicInteger firstFailed = new AtomicInteger(Integer.MAX_VALUE);

    private TailFirstOpener(FileOpener.Context context, List<FileId> ids) {
        this.context = context;
        this.ids = ids;
        this.files = new SortedFile[ids.size()];
        this.failures = new Throwable[ids.size()];
        this.ended = new CountDownLatch(ids.size());
        this.decoders = decoders();
    }

    /**
     * Threads that open sources and decode footers: CPU work, so about the cores (at least 4: a
     * footer larger than its tail, or a store that opens with a request, blocks one of them).
     */
    private static ExecutorService decoders() {
        int threads = Math.max(4, Math.min(16, Runtime.getRuntime().availableProcessors()));
        return new ThreadPoolExecutor(
                threads,
                threads,
                1,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                DaemonThreads.perTable("parquet-lookup-open"));
    }

    /** Opens {@code ids} (see the class comment); the files in {@code ids}' order. */
    static List<SortedFile> openAll(FileOpener.Context context, List<FileId> ids)
            throws IOException {
        return new TailFirstOpener(context, ids).run();
    }

    private List<SortedFile> run() throws IOException {
        boolean interrupted = false;
        try {
            for (int i = 0; i < Math.min(IN_FLIGHT, ids.size()); i++) {
                startNext();
            }
            while (true) {
                try {
                    ended.await();
                    break;
                } catch (InterruptedException e) {
                    // Cancelled: start nothing more; the tails out end within a request timeout.
                    interrupted = true;
                    stopped = true;
                }
            }
        } finally {
            decoders.shutdown();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable failure = FileOpener.firstFailure(failures);
        if (failure == null && interrupted) {
            failure =
                    new InterruptedIOException(
                            "interrupted while opening " + context.config().path());
        }
        if (failure != null) {
            throw FileOpener.closeAll(files, failure);
        }
        return List.of(files);
    }

    /** Starts the next file not started yet, if any: each file that ends starts one more. */
    private void startNext() {
        int index = next.getAndIncrement();
        if (index < ids.size()) {
            decode(() -> start(index));
        }
    }

    /** Runs {@code task} on a decoder thread, or here when the pool is gone. */
    private void decode(Runnable task) {
        try {
            decoders.execute(task);
        } catch (RuntimeException rejected) {
            task.run();
        }
    }

    /** Opens file {@code index}'s source and sends its tail's GET, or opens it at once. */
    private void start(int index) {
        if (stopped || index > firstFailed.get()) {
            end(index);
            return;
        }
        FileId id = ids.get(index);
        RangeSource source = null;
        try {
            source = context.source(id);
            if (source.readsInline() || context.cached(id) || id.length() == 0) {
                RangeSource handedOver = source;
                source = null; // closed by context.open on failure
                files[index] = context.open(id, handedOver, handedOver);
                end(index);
                return;
            }
            long tailStart = Math.max(0, id.length() - TAIL_BYTES);
            FileRange tail = new FileRange(tailStart, (int) (id.length() - tailStart));
            RangeSource opened = source;
            source.readAllAsync(List.of(tail))
                    .whenComplete(
                            (bytes, failure) ->
                                    decode(() -> finish(index, opened, tail, bytes, failure)));
        } catch (Throwable t) {
            failures[index] = t;
            if (source != null) {
                closeQuietly(source, t);
            }
            end(index);
        }
    }

    /** Decodes file {@code index}'s footer from its tail and opens it. */
    private void finish(
            int index, RangeSource source, FileRange tail, byte[][] bytes, Throwable failure) {
        try {
            if (failure != null) {
                failures[index] = AsyncLookup.unwrap(failure);
                closeQuietly(source, failures[index]);
            } else if (stopped || index > firstFailed.get()) {
                closeQuietly(source, null);
            } else {
                TailRangeSource footer = new TailRangeSource(source, tail.offset(), bytes[0]);
                try {
                    files[index] = context.open(ids.get(index), source, footer);
                } finally {
                    // The cached metadata may keep the source it was read from: not the tail.
                    footer.release();
                }
            }
        } catch (Throwable t) {
            failures[index] = t;
        } finally {
            end(index);
        }
    }

    private void end(int index) {
        if (failures[index] != null) {
            firstFailed.accumulateAndGet(index, Math::min);
        }
        ended.countDown();
        startNext();
    }

    private static void closeQuietly(RangeSource source, Throwable failure) {
        try {
            source.close();
        } catch (IOException | RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * Owns serving a file's footer from its tail already read: reads inside the tail are copies,
     * others go to the file's source (a footer larger than the tail, the head's magic bytes).
     * Closing it closes nothing: the file's source outlives it.
     */
    static final class TailRangeSource extends CopyingRangeSource {
        private final long tailStart;
        private volatile byte[] tail;

        TailRangeSource(RangeSource source, long tailStart, byte[] tail) {
            super(source);
            this.tailStart = tailStart;
            this.tail = tail;
        }

        @Override
        public void readFully(long position, byte[] buffer, int offset, int length)
                throws IOException {
            byte[] tail = this.tail;
            if (tail != null
                    && position >= tailStart
                    && position + length <= tailStart + tail.length) {
                System.arraycopy(tail, (int) (position - tailStart), buffer, offset, length);
            } else {
                super.readFully(position, buffer, offset, length);
            }
        }

        /** Drops the tail: later reads go to the file's source. */
        void release() {
            tail = null;
        }

        @Override
        public void close() {}
    }
}
