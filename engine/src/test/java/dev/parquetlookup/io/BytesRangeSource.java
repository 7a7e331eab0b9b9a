package dev.parquetlookup.io;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/** An in-memory {@link RangeSource} over a byte array, for tests of decorators. */
final class BytesRangeSource implements RangeSource {

    private final FileId file;
    private final byte[] bytes;
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    BytesRangeSource(String path, byte[] bytes) {
        this.file = new FileId(path, bytes.length, 1L);
        this.bytes = bytes;
    }

    static BytesRangeSource counting(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) i;
        }
        return new BytesRangeSource("mem:/test/part-0.parquet", bytes);
    }

    @Override
    public FileId file() {
        return file;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        reads.incrementAndGet();
        System.arraycopy(bytes, (int) position, buffer, offset, length);
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }
}
