package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The bytes of one column chunk during a page walk: fetched whole beforehand (remote files, one
 * ranged read per chunk) or read piecewise from the source (local files: a small window per page
 * header, grown when the header is longer). Remembers the bytes the last header was parsed from, so
 * a key page read with its header is not read again to be decoded. Counts the bytes it reads. Not
 * thread-safe: one per chunk walk.
 *
 * <p>Example: a local chunk of 1,000 pages costs 1,000 reads of {@value #FIRST_WINDOW} bytes; the
 * same chunk fetched whole costs none here.
 */
final class ChunkBytes {

    /** Bytes read at first for a page header (grown 16x while the header does not fit). */
    static final int FIRST_WINDOW = 256;

    /** Bytes at {@code offset} of {@code bytes}. */
    record Slice(byte[] bytes, int offset) {}

    private final RangeSource source;
    private final ChunkToWalk chunk;
    @Nullable private final byte[] whole;
    private long bytesRead;

    // The bytes the last header was parsed from (see header()).
    @Nullable private Slice lastSlice;
    private long lastSlicePos = -1;
    private int lastSliceLength;

    /**
     * @param whole the chunk's bytes fetched beforehand, or null to read piecewise from {@code
     *     source}
     */
    ChunkBytes(RangeSource source, ChunkToWalk chunk, @Nullable byte[] whole) {
        this.source = source;
        this.chunk = chunk;
        this.whole = whole;
    }

    FileId file() {
        return source.file();
    }

    long start() {
        return chunk.start();
    }

    long end() {
        return chunk.end();
    }

    /** Bytes this walk read from the source (a chunk fetched whole counts where it was fetched). */
    long bytesRead() {
        return bytesRead;
    }

    /** {@code length} bytes at {@code pos}: a view of the whole chunk, or a read. */
    Slice read(long pos, int length) throws IOException {
        if (whole != null) {
            return new Slice(whole, (int) (pos - chunk.start()));
        }
        byte[] b = source.read(new FileRange(pos, length));
        bytesRead += length;
        return new Slice(b, 0);
    }

    /** The bytes of the page at {@code pos}, reusing those its header was parsed from. */
    Slice page(long pos, int length) throws IOException {
        return lastSlicePos == pos && lastSliceLength >= length ? lastSlice : read(pos, length);
    }

    /**
     * Parses the page header at {@code pos}, reading {@code hint} bytes first (more if the header
     * is longer).
     *
     * @throws LookupFileException if no header can be read there (naming file, column, row group
     *     and offset)
     */
    PageHeaderScan header(long pos, int hint) throws IOException {
        long remaining = chunk.end() - pos;
        int limit = (int) Math.min(remaining, Integer.MAX_VALUE - 64);
        int window = whole != null ? limit : Math.min(limit, Math.max(hint, FIRST_WINDOW));
        while (true) {
            Slice slice = read(pos, window);
            lastSlice = slice;
            lastSlicePos = pos;
            lastSliceLength = window;
            try {
                return PageHeaderScan.parse(slice.bytes, slice.offset, window);
            } catch (IOException | RuntimeException e) {
                if (window >= limit) {
                    throw PageIndexBuilder.damaged(
                            source.file(),
                            chunk,
                            pos,
                            "its page header cannot be read (" + e.getMessage() + ")",
                            e);
                }
                // A long header (large statistics): read more of it.
                window = (int) Math.min(limit, window * 16L);
            }
        }
    }
}
