package dev.parquetlookup.io;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

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
        long total = 0;
        for (FileRange range : ranges) {
            total += range.length();
        }
        statistics.record(total, ranges.size());
        return result;
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        return super.readAllAsync(ranges)
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
        byte[] bytes = super.readHeld(range);
        if (bytes != null) {
            statistics.record(range.length(), 1);
        }
        return bytes;
    }
}
