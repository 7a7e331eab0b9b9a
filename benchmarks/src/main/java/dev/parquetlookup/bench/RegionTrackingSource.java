package dev.parquetlookup.bench;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decorator that classifies each read by the file region it falls in (column-chunk data, page
 * index, footer) and counts reads that fetch a whole column chunk. The totals come from the {@code
 * CountingRangeSource} around it; this adds the split.
 */
final class RegionTrackingSource implements RangeSource {

    private final RangeSource delegate;
    private final long[] chunkStart;
    private final long[] chunkEnd;
    private final long dataEnd;
    final LongAdder dataBytes = new LongAdder();
    final LongAdder dataRequests = new LongAdder();
    final LongAdder fullChunkReads = new LongAdder();

    /** {@code chunkStart}/{@code chunkEnd}: every column chunk's byte range. */
    RegionTrackingSource(RangeSource delegate, long[] chunkStart, long[] chunkEnd) {
        this.delegate = delegate;
        this.chunkStart = chunkStart;
        this.chunkEnd = chunkEnd;
        long end = 0;
        for (long e : chunkEnd) {
            end = Math.max(end, e);
        }
        this.dataEnd = end;
    }

    @Override
    public FileId file() {
        return delegate.file();
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        delegate.readFully(position, buffer, offset, length);
        long end = position + length;
        if (position < dataEnd) {
            dataBytes.add(Math.min(end, dataEnd) - position);
            dataRequests.increment();
            for (int i = 0; i < chunkStart.length; i++) {
                if (chunkStart[i] >= position && chunkEnd[i] <= end) {
                    fullChunkReads.increment();
                }
            }
        }
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
