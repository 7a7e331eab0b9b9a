package dev.parquetlookup.testing;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store whose sources behave like an object store's: {@code readAllAsync} returns at once and
 * completes later on another thread (one request per range), or, when {@link #hold()} is on, only
 * when the test calls {@link #release()}. Counts requests and the most in flight at once.
 */
public final class AsyncFileStore extends ForwardingFileStore {

    private final ExecutorService io =
            Executors.newFixedThreadPool(
                    4,
                    r -> {
                        Thread t = new Thread(r, "async-file-store");
                        t.setDaemon(true);
                        return t;
                    });
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final List<Runnable> held = new ArrayList<>();
    // Ranges of each held request, beside it.
    private final List<Integer> heldRanges = new ArrayList<>();
    private boolean hold;

    public AsyncFileStore(FileStore delegate) {
        super(delegate);
    }

    /** Requests (ranges) read asynchronously so far. */
    public long requests() {
        return requests.get();
    }

    /** Bytes of the ranges read asynchronously so far. */
    public long bytes() {
        return bytes.get();
    }

    /** The most requests in flight at once so far. */
    public int peakInFlight() {
        return peak.get();
    }

    /** Requests started and not yet answered. */
    public int inFlight() {
        return inFlight.get();
    }

    /** From now on, requests are answered only by {@link #release()}. */
    public synchronized void hold() {
        hold = true;
    }

    /** Answers every held request and stops holding. */
    public void release() {
        List<Runnable> answers;
        synchronized (this) {
            hold = false;
            answers = new ArrayList<>(held);
            held.clear();
            heldRanges.clear();
        }
        answers.forEach(io::execute);
    }

    /**
     * Answers the held requests wave by wave in the calling thread, still holding the requests
     * their answers lead to, until none is held; returns the requests (ranges) of each wave. An
     * asynchronous lookup replays in the thread that answers its wave's last request, so the next
     * wave is held in full when an answer returns: the count is deterministic.
     *
     * <p>Example: a cold hit whose key and value pages come in one wave gives {@code [2]}.
     */
    public List<Integer> answerWaves() {
        List<Integer> waves = new ArrayList<>();
        while (true) {
            List<Runnable> answers;
            synchronized (this) {
                if (held.isEmpty()) {
                    return waves;
                }
                answers = new ArrayList<>(held);
                waves.add(heldRanges.stream().mapToInt(Integer::intValue).sum());
                held.clear();
                heldRanges.clear();
            }
            answers.forEach(Runnable::run);
        }
    }

    /** Requests waiting for {@link #release()}. */
    public synchronized int held() {
        return held.size();
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        RangeSource source = super.open(file);
        return new RangeSource() {
            @Override
            public FileId file() {
                return source.file();
            }

            @Override
            public void readFully(long position, byte[] buffer, int offset, int length)
                    throws IOException {
                source.readFully(position, buffer, offset, length);
            }

            @Override
            public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
                int now = inFlight.addAndGet(ranges.size());
                peak.accumulateAndGet(now, Math::max);
                requests.addAndGet(ranges.size());
                for (FileRange range : ranges) {
                    bytes.addAndGet(range.length());
                }
                CompletableFuture<byte[][]> result = new CompletableFuture<>();
                Runnable answer =
                        () -> {
                            inFlight.addAndGet(-ranges.size());
                            try {
                                result.complete(source.readAll(ranges));
                            } catch (IOException | RuntimeException e) {
                                result.completeExceptionally(e);
                            }
                        };
                synchronized (AsyncFileStore.this) {
                    if (hold) {
                        held.add(answer);
                        heldRanges.add(ranges.size());
                        return result;
                    }
                }
                io.execute(answer);
                return result;
            }

            @Override
            public void close() throws IOException {
                source.close();
            }
        };
    }

    @Override
    public void close() throws IOException {
        io.shutdown();
        try {
            io.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        super.close();
    }
}
