package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/** Decorator that counts bytes and read requests into a {@link ReadStatistics}. */
public final class CountingRangeSource extends ForwardingRangeSource {

    private final ReadStatistics statistics;

    public CountingRangeSource(RangeSource delegate, ReadStatistics statistics) {
        super(delegate);
        this.statistics = statistics;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        super.readFully(position, buffer, offset, length);
        statistics.record(length, 1);
    }

    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        T result = super.readWith(position, length, reader);
        statistics.record(length, 1);
        return result;
    }

    @Override
    public byte[] read(FileRange range) throws IOException {
        byte[] bytes = super.read(range);
        statistics.record(range.length(), 1);
        return bytes;
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        byte[][] result = super.readAll(ranges);
        record(ranges);
        return result;
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        return super.readAllAsync(ranges)
                .thenApply(
                        result -> {
                            record(ranges);
                            return result;
                        });
    }

    private void record(List<FileRange> ranges) {
        long total = 0;
        for (FileRange range : ranges) {
            total += range.length();
        }
        statistics.record(total, ranges.size());
    }

    @Override
    public byte[] readHeld(FileRange range) {
        byte[] bytes = super.readHeld(range);
        if (bytes != null) {
            statistics.record(range.length(), 1);
        }
        return bytes;
    }

    /**
     * Counters of bytes and read requests, shared by every {@link CountingRangeSource} that reports
     * to it. Thread-safe and cheap on the hot path (striped adders).
     */
    public static final class ReadStatistics {

        private final LongAdder bytes = new LongAdder();
        private final LongAdder requests = new LongAdder();

        void record(long byteCount, int requestCount) {
            bytes.add(byteCount);
            requests.add(requestCount);
        }

        /** Bytes read so far. */
        public long bytesRead() {
            return bytes.sum();
        }

        /** Read requests so far: one per positioned read, one per range of a vectored read. */
        public long readRequests() {
            return requests.sum();
        }

        @Override
        public String toString() {
            return "ReadStatistics{bytes=" + bytesRead() + ", requests=" + readRequests() + '}';
        }
    }
}
