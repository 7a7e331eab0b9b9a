package dev.parquetlookup.io;

import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A parquet-java {@link InputFile} over a {@link RangeSource}, so that parquet-java's own reader
 * (footer, page indexes, pages) can read through the I/O boundary, for tools that need the whole
 * picture of a file rather than point reads. Streams buffer {@value #BUFFER} bytes ahead because
 * parquet-java decodes Thrift structures a few bytes at a time.
 *
 * <p>Example: {@code ParquetFileReader.open(new RangeSourceInputFile(source),
 * ParquetReadOptions.builder().build())}. The source is not closed with the streams.
 */
public final class RangeSourceInputFile implements InputFile {

    static final int BUFFER = 64 << 10;

    private final RangeSource source;

    public RangeSourceInputFile(RangeSource source) {
        this.source = source;
    }

    @Override
    public long getLength() {
        return source.file().length();
    }

    @Override
    public SeekableInputStream newStream() {
        return new Stream();
    }

    @Override
    public String toString() {
        return source.file().path();
    }

    private final class Stream extends SeekableInputStream {
        private final long length = source.file().length();
        private long pos;
        private byte[] buffer = new byte[0];
        private long bufferStart;

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) throws IOException {
            if (newPos < 0 || newPos > length) {
                throw new EOFException(
                        "seek to " + newPos + " outside " + source.file() + " (" + length + ")");
            }
            pos = newPos;
        }

        /** Bytes available in the buffer at {@code pos}, refilling it if empty. */
        private int fill() throws IOException {
            long offset = pos - bufferStart;
            if (offset >= 0 && offset < buffer.length) {
                return (int) (buffer.length - offset);
            }
            if (pos >= length) {
                return 0;
            }
            int n = (int) Math.min(BUFFER, length - pos);
            byte[] fresh = new byte[n];
            source.readFully(pos, fresh, 0, n);
            buffer = fresh;
            bufferStart = pos;
            return n;
        }

        @Override
        public int read() throws IOException {
            if (fill() == 0) {
                return -1;
            }
            return buffer[(int) (pos++ - bufferStart)] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos >= length) {
                return -1;
            }
            if (len >= BUFFER) {
                // Large reads (whole pages, column chunks) go straight to the source.
                int n = (int) Math.min(len, length - pos);
                source.readFully(pos, b, off, n);
                pos += n;
                return n;
            }
            int n = Math.min(len, fill());
            System.arraycopy(buffer, (int) (pos - bufferStart), b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void readFully(byte[] bytes) throws IOException {
            readFully(bytes, 0, bytes.length);
        }

        @Override
        public void readFully(byte[] bytes, int start, int len) throws IOException {
            int done = 0;
            while (done < len) {
                int n = read(bytes, start + done, len - done);
                if (n < 0) {
                    throw new EOFException("reached the end of " + source.file() + " at " + pos);
                }
                done += n;
            }
        }

        @Override
        public int read(ByteBuffer buf) throws IOException {
            int len = buf.remaining();
            if (len == 0) {
                return 0;
            }
            byte[] tmp = new byte[len];
            int n = read(tmp, 0, len);
            if (n > 0) {
                buf.put(tmp, 0, n);
            }
            return n;
        }

        @Override
        public void readFully(ByteBuffer buf) throws IOException {
            byte[] tmp = new byte[buf.remaining()];
            readFully(tmp);
            buf.put(tmp);
        }
    }
}
