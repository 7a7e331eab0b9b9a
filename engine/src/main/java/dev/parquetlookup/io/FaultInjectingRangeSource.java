package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Test decorator that fails chosen reads, deterministically, and never alters the bytes of a read
 * it lets through. Reads are numbered from 1 in the order they reach the {@link Plan} (a {@code
 * readFully} or a whole {@code readAll} is one call); a plan may be shared by the sources of
 * several files.
 *
 * <pre>{@code
 * FaultInjectingRangeSource.Plan plan = FaultInjectingRangeSource.plan()
 *         .failCall(2, () -> new SocketException("Connection reset"))
 *         .failCalls(5, 7, () -> new SocketTimeoutException("Read timed out"));
 * RangeSource source = new FaultInjectingRangeSource(real, plan);
 * }</pre>
 */
public final class FaultInjectingRangeSource extends ForwardingRangeSource {

    private final Plan plan;

    public FaultInjectingRangeSource(RangeSource delegate, Plan plan) {
        super(delegate);
        this.plan = plan;
    }

    /** A new, empty plan: nothing fails until told to. */
    public static Plan plan() {
        return new Plan();
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        plan.next(file(), position, length);
        super.readFully(position, buffer, offset, length);
    }

    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        plan.next(file(), position, length);
        return super.readWith(position, length, reader);
    }

    @Override
    public byte[] read(FileRange range) throws IOException {
        plan.next(file(), range.offset(), range.length());
        return super.read(range);
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        FileRange first = ranges.isEmpty() ? new FileRange(0, 0) : ranges.get(0);
        plan.next(file(), first.offset(), first.length());
        return super.readAll(ranges);
    }

    /**
     * Like {@link #readAll}: a failing call gives a failed future; a call the plan {@linkplain
     * Plan#hangCalls hangs} gives a future that never completes (a request that never answers).
     */
    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        FileRange first = ranges.isEmpty() ? new FileRange(0, 0) : ranges.get(0);
        try {
            if (plan.nextHangs(file(), first.offset(), first.length())) {
                return new CompletableFuture<>();
            }
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        return super.readAllAsync(ranges);
    }

    /** Which calls fail and how. Thread-safe; rules may be added while reads run. */
    public static final class Plan {
        private final AtomicLong calls = new AtomicLong();
        private final AtomicLong injected = new AtomicLong();
        private final List<Rule> rules = new ArrayList<>();
        private volatile Supplier<IOException> failAll;
        private final List<long[]> hangs = new ArrayList<>();

        private Plan() {}

        /** Call number {@code n} (from 1) fails with {@code failure}. */
        public Plan failCall(long n, Supplier<IOException> failure) {
            return failCalls(n, n, failure);
        }

        /** Calls {@code from} to {@code to} (inclusive, from 1) fail with {@code failure}. */
        public synchronized Plan failCalls(long from, long to, Supplier<IOException> failure) {
            if (from < 1 || to < from) {
                throw new IllegalArgumentException("bad call window " + from + ".." + to);
            }
            rules.add(new Rule(from, to, failure));
            return this;
        }

        /**
         * Every call fails with {@code failure} until {@link #heal()} (an outage of unknown length,
         * ended by the test).
         */
        public Plan failAll(Supplier<IOException> failure) {
            failAll = failure;
            return this;
        }

        /**
         * Asynchronous calls {@code from} to {@code to} (inclusive, from 1) never answer: their
         * futures never complete (synchronous calls in that window are let through).
         */
        public synchronized Plan hangCalls(long from, long to) {
            if (from < 1 || to < from) {
                throw new IllegalArgumentException("bad call window " + from + ".." + to);
            }
            hangs.add(new long[] {from, to});
            return this;
        }

        /** Ends a {@link #failAll} outage. */
        public Plan heal() {
            failAll = null;
            return this;
        }

        /** Calls seen so far, failed or not. */
        public long calls() {
            return calls.get();
        }

        /** Failures injected so far. */
        public long injected() {
            return injected.get();
        }

        /** Counts a call like {@link #next}; true when it must hang. */
        boolean nextHangs(FileId file, long position, int length) throws IOException {
            long n = calls.incrementAndGet();
            synchronized (this) {
                for (long[] window : hangs) {
                    if (n >= window[0] && n <= window[1]) {
                        injected.incrementAndGet();
                        return true;
                    }
                }
            }
            check(n, file, position, length);
            return false;
        }

        void next(FileId file, long position, int length) throws IOException {
            check(calls.incrementAndGet(), file, position, length);
        }

        private void check(long n, FileId file, long position, int length) throws IOException {
            Supplier<IOException> failure = failAll;
            if (failure == null) {
                synchronized (this) {
                    for (Rule rule : rules) {
                        if (n >= rule.from && n <= rule.to) {
                            failure = rule.failure;
                            break;
                        }
                    }
                }
            }
            if (failure != null) {
                injected.incrementAndGet();
                IOException e = failure.get();
                e.addSuppressed(
                        new IOException(
                                "injected failure of call "
                                        + n
                                        + " ("
                                        + length
                                        + " bytes at "
                                        + position
                                        + " of "
                                        + file.path()
                                        + ")"));
                throw e;
            }
        }

        private record Rule(long from, long to, Supplier<IOException> failure) {}
    }
}
