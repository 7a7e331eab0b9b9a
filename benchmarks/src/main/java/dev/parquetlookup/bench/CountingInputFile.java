package dev.parquetlookup.bench;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;

/**
 * Wraps a parquet-java {@link InputFile} (e.g. {@code LocalInputFile}) and counts the bytes and
 * read calls its streams make, so parquet-java's bytes per lookup can be reported next to ours.
 * Counting adds two striped-counter updates per read call, nothing else.
 */
final class CountingInputFile implements InputFile {

    private final InputFile delegate;
    final LongAdder bytes = new LongAdder();
    final LongAdder reads = new LongAdder();

    CountingInputFile(InputFile delegate) {
        this.delegate = delegate;
    }

    @Override
    public long getLength() throws IOException {
        return delegate.getLength();
    }

    @Override
    public SeekableInputStream newStream() throws IOException {
        SeekableInputStream in = delegate.newStream();
        return new SeekableInputStream() {
            @Override
            public long getPos() throws IOException {
                return in.getPos();
            }

            @Override
            public void seek(long newPos) throws IOException {
                in.seek(newPos);
            }

            @Override
            public void readFully(byte[] b) throws IOException {
                in.readFully(b);
                count(b.length);
            }

            @Override
            public void readFully(byte[] b, int off, int len) throws IOException {
                in.readFully(b, off, len);
                count(len);
            }

            @Override
            public int read(ByteBuffer buf) throws IOException {
                int n = in.read(buf);
                if (n > 0) {
                    count(n);
                }
                return n;
            }

            @Override
            public void readFully(ByteBuffer buf) throws IOException {
                int n = buf.remaining();
                in.readFully(buf);
                count(n);
            }

            @Override
            public int read() throws IOException {
                int b = in.read();
                if (b >= 0) {
                    count(1);
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = in.read(b, off, len);
                if (n > 0) {
                    count(n);
                }
                return n;
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    private void count(long n) {
        bytes.add(n);
        reads.increment();
    }
}
