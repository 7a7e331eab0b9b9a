package dev.parquetlookup.writer;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * Edits the Parquet footer as parquet-java writes it, for what parquet-java 1.18 cannot write: the
 * row groups' {@code sorting_columns}, and files without a page index.
 *
 * <p>Before the writer is closed, {@link #beginTail()} makes the stream hold back what follows (the
 * last row group, the page indexes and the footer; on the order of one row group). When the stream
 * is closed the footer is decoded, edited and written out. Offsets in the footer all point before
 * it, so they stay valid. Without a page index the index bytes are dropped too when they sit right
 * before the footer, as parquet-java lays them out.
 */
final class FooterRewritingOutputFile implements OutputFile {

    private final OutputFile delegate;
    private final List<SortingColumn> sortingColumns;
    private final boolean pageIndex;
    private TailStream stream;

    FooterRewritingOutputFile(
            OutputFile delegate, List<SortingColumn> sortingColumns, boolean pageIndex) {
        this.delegate = delegate;
        this.sortingColumns = List.copyOf(sortingColumns);
        this.pageIndex = pageIndex;
    }

    /** From now on, hold back the bytes written so that the footer can be edited. */
    void beginTail() {
        if (stream != null) {
            stream.tail = new ByteArrayOutputStream();
        }
    }

    /** After an error: throw away whatever is still written, the file is deleted anyway. */
    void discard() {
        if (stream != null) {
            stream.discard = true;
        }
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) throws IOException {
        stream = new TailStream(delegate.create(blockSizeHint));
        return stream;
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) throws IOException {
        stream = new TailStream(delegate.createOrOverwrite(blockSizeHint));
        return stream;
    }

    @Override
    public boolean supportsBlockSize() {
        return delegate.supportsBlockSize();
    }

    @Override
    public long defaultBlockSize() {
        return delegate.defaultBlockSize();
    }

    @Override
    public String getPath() {
        return delegate.getPath();
    }

    private final class TailStream extends PositionOutputStream {
        private final PositionOutputStream out;
        private ByteArrayOutputStream tail;
        private boolean discard;
        private boolean closed;

        TailStream(PositionOutputStream out) {
            this.out = out;
        }

        @Override
        public long getPos() throws IOException {
            return out.getPos() + (tail == null ? 0 : tail.size());
        }

        /** Where bytes go: nowhere after {@link #discard}, held back after {@link #beginTail}. */
        private OutputStream target() {
            return discard ? OutputStream.nullOutputStream() : tail != null ? tail : out;
        }

        @Override
        public void write(int b) throws IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target().write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (!discard) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (!discard && tail != null) {
                    writeEditedTail(out.getPos(), tail.toByteArray());
                }
            } finally {
                out.close();
            }
        }

        private void writeEditedTail(long tailStart, byte[] bytes) throws IOException {
            int n = bytes.length;
            if (!ParquetTail.endsWithMagic(bytes, n)) {
                throw new IOException(
                        "internal error: the end of " + getPath() + " is not a Parquet footer");
            }
            int footerStart = ParquetTail.footerStart(bytes, n);
            if (footerStart < 0) {
                throw new IOException(
                        "internal error: the footer of " + getPath() + " was not held back");
            }
            FileMetaData footer = ParquetTail.read(bytes, footerStart, n);
            if (!sortingColumns.isEmpty()) {
                for (RowGroup rowGroup : footer.getRow_groups()) {
                    rowGroup.setSorting_columns(sortingColumns);
                }
            }
            int keep = footerStart;
            long[] index = pageIndex ? null : ParquetTail.dropPageIndex(footer);
            // The indexes sit between the last column chunk and the footer: cut them out.
            if (index != null && index[0] >= tailStart && index[1] == tailStart + footerStart) {
                keep = (int) (index[0] - tailStart);
            }
            out.write(bytes, 0, keep);
            ParquetTail.write(footer, out);
        }
    }
}
