package dev.parquetlookup.io;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of bytes and read requests, shared by every {@link CountingRangeSource} that reports to
 * it. Thread-safe and cheap on the hot path (striped adders).
 */
public final class ReadStatistics {

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
