package dev.parquetlookup.bench;

import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A parquet-java {@link InputFile} over our {@link RangeSource}, so a {@code CountingRangeSource}
 * below it sees the requests parquet-java makes. Reads of {@link #SMALL_READ} bytes or more (page
 * data, footers) are one positioned read each. parquet-java decodes page indexes with thrift
 * straight from the stream, a few bytes per call; those small reads are served from a read-ahead
 * buffer, as any buffered Hadoop stream would (S3A reads at least 64 KiB, a local buffered stream a
 * few KiB), so one request fetches many small structures. The stream keeps only its own position
 * and buffer; the source is shared.
 */
final class RangeSourceInputFile implements InputFile {

    static final int SMALL_READ = 1024;

    private final RangeSource source;
    private final int readAhead;

    /** {@code readAhead}: bytes fetched by a read of fewer than {@link #SMALL_READ} bytes. */
    RangeSourceInputFile(RangeSource source, int readAhead) {
        this.source = source;
        this.readAhead = readAhead;
    }

    @Override
    public long getLength() {
        return source.file().length();
    }

    @Override
    public SeekableInputStream newStream() {
        return new ReadAheadStream();
    }

    /** Positioned reads of the source; reads under {@code SMALL_READ} go through a buffer. */
    private final class ReadAheadStream extends SeekableInputStream {
        private long pos;
        private final byte[] buffer = new byte[readAhead];
        private long bufferStart;
        private int bufferLength;

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) {
            pos = newPos;
        }

        @Override
        public void readFully(byte[] b) throws IOException {
            readFully(b, 0, b.length);
        }

        @Override
        public void readFully(byte[] b, int off, int len) throws IOException {
            if (pos + len > getLength()) {
                throw new EOFException(
                        "read of "
                                + len
                                + " bytes at "
                                + pos
                                + " past the end of "
                                + source.file());
            }
            if (len >= SMALL_READ) {
                source.readFully(pos, b, off, len);
            } else {
                if (pos < bufferStart || pos + len > bufferStart + bufferLength) {
                    bufferStart = pos;
                    bufferLength = (int) Math.min(readAhead, getLength() - pos);
                    source.readFully(bufferStart, buffer, 0, bufferLength);
                }
                System.arraycopy(buffer, (int) (pos - bufferStart), b, off, len);
            }
            pos += len;
        }

        @Override
        public int read(ByteBuffer buf) throws IOException {
            int n = (int) Math.min(buf.remaining(), getLength() - pos);
            if (n <= 0) {
                return buf.hasRemaining() ? -1 : 0;
            }
            readInto(buf, n);
            return n;
        }

        @Override
        public void readFully(ByteBuffer buf) throws IOException {
            int n = buf.remaining();
            if (pos + n > getLength()) {
                throw new EOFException(
                        "read of " + n + " bytes at " + pos + " past the end of " + source.file());
            }
            readInto(buf, n);
        }

        private void readInto(ByteBuffer buf, int n) throws IOException {
            if (buf.hasArray()) {
                readFully(buf.array(), buf.arrayOffset() + buf.position(), n);
                buf.position(buf.position() + n);
            } else {
                byte[] tmp = new byte[n];
                readFully(tmp, 0, n);
                buf.put(tmp);
            }
        }

        @Override
        public int read() throws IOException {
            if (pos >= getLength()) {
                return -1;
            }
            byte[] one = new byte[1];
            readFully(one, 0, 1);
            return one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = (int) Math.min(len, getLength() - pos);
            if (n <= 0) {
                return len == 0 ? 0 : -1;
            }
            readFully(b, off, n);
            return n;
        }
    }
}
