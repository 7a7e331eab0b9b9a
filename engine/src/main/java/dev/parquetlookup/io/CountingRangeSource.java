package dev.parquetlookup.io;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Decorator that counts bytes and read requests into a {@link ReadStatistics}. */
public final class CountingRangeSource implements RangeSource {

    private final RangeSource delegate;
    private final ReadStatistics statistics;

    public CountingRangeSource(RangeSource delegate, ReadStatistics statistics) {
        this.delegate = delegate;
        this.statistics = statistics;
    }

    @Override
    public FileId file() {
        return delegate.file();
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        delegate.readFully(position, buffer, offset, length);
        statistics.record(length, 1);
    }

    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        T result = delegate.readWith(position, length, reader);
        statistics.record(length, 1);
        return result;
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        byte[][] result = delegate.readAll(ranges);
        long total = 0;
        for (FileRange range : ranges) {
            total += range.length();
        }
        statistics.record(total, ranges.size());
        return result;
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        return delegate.readAllAsync(ranges)
                .thenApply(
                        result -> {
                            long total = 0;
                            for (FileRange range : ranges) {
                                total += range.length();
                            }
                            statistics.record(total, ranges.size());
                            return result;
                        });
    }

    @Override
    public byte[] readHeld(FileRange range) {
        byte[] bytes = delegate.readHeld(range);
        if (bytes != null) {
            statistics.record(range.length(), 1);
        }
        return bytes;
    }

    @Override
    public boolean readsInline() {
        return delegate.readsInline();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
