package dev.parquetlookup.io.fake;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.AsyncRangeReaderFactory;

import org.apache.hadoop.fs.FileSystem;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The test-only store {@code fake://} in the seam: its one line in {@code
 * META-INF/services/dev.parquetlookup.io.AsyncRangeReaderFactory} (test resources) is all the
 * engine needs to read its files through {@link FakeRangeReader}.
 */
public final class FakeRangeReaderFactory implements AsyncRangeReaderFactory {

    /** Ranges read by every fake reader (tests run one at a time in this JVM's fork). */
    static final AtomicLong RANGES_READ = new AtomicLong();

    /** Readers built. */
    static final AtomicLong READERS = new AtomicLong();

    @Override
    public String scheme() {
        return "fake";
    }

    @Override
    public String unsupported(FileSystem fs) {
        return null;
    }

    @Override
    public AsyncRangeReader create(FileSystem fs) {
        READERS.incrementAndGet();
        return new FakeRangeReader(RANGES_READ);
    }
}
