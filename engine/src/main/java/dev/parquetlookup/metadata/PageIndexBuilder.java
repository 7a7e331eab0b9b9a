package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a page index for column chunks that have none (DuckDB and pyarrow write none by default):
 * walks the chunk's page headers (header, then skip {@code compressed_page_size}) and records each
 * data page's offset, size (header included) and first row, exactly as an OffsetIndex would; for a
 * sort-key column also each page's smallest and largest key, as a ColumnIndex would ({@link
 * KeyPageWalk}: header statistics, chunk statistics, or the page decoded). The result is the same
 * arrays a file's own index gives, so the lookup path does not know the difference.
 *
 * <p>Reads ({@link ChunkBytes}): for local files only header bytes (a small positioned read per
 * page, grown when a header is longer), plus the whole page for key pages without statistics. For
 * remote files every walked chunk of a row group is fetched whole in one batch of ranged reads
 * ({@link #prefetch}), since a request per page header would cost a round trip each.
 *
 * <p>Every header is checked against the chunk: a damaged header, a page running past its chunk or
 * page row counts that do not add up to the row group's are errors naming the file, column, row
 * group and offset, never a wrong index. Not thread-safe: one builder per metadata read, or per row
 * group built on first use ({@link LazySynthesis}).
 */
final class PageIndexBuilder {

    private final RangeSource source;
    private final PageBoundsDecoder decoder;
    private final boolean wholeChunks;
    private final Map<Long, byte[]> prefetched = new HashMap<>();

    private int chunks;
    private long pages;
    private long bytesRead;
    private long nanos;

    /**
     * One walked column chunk.
     *
     * @param pages where its data pages lie
     * @param keyBounds page bounds when the chunk is of a sort-key column, else null
     * @param dictionaryOffset offset of its dictionary page, or -1
     * @param firstDataPageOffset offset of its first data page, or -1 when it has none
     */
    record Chunk(
            PageLocations pages,
            @Nullable KeyRanges keyBounds,
            long dictionaryOffset,
            long firstDataPageOffset) {}

    PageIndexBuilder(RangeSource source, PageBoundsDecoder decoder) {
        this.source = source;
        this.decoder = decoder;
        this.wholeChunks = !isLocal(source.file().path());
    }

    /** Local paths: a plain path or a {@code file:} URI. Everything else is read as remote. */
    static boolean isLocal(String path) {
        return path.startsWith("file:") || !path.contains(":/");
    }

    /**
     * The ranges to fetch whole for a walk of {@code chunksToWalk} (chunks too large for one array
     * are left to be read piecewise).
     */
    static List<FileRange> wholeChunkRanges(List<ChunkToWalk> chunksToWalk) {
        List<FileRange> ranges = new ArrayList<>(chunksToWalk.size());
        for (ChunkToWalk chunk : chunksToWalk) {
            if (chunk.size() <= Integer.MAX_VALUE - 64) {
                ranges.add(new FileRange(chunk.start(), (int) chunk.size()));
            }
        }
        return ranges;
    }

    /**
     * For remote files, fetches the chunks about to be walked in one batch (a no-op for local
     * files). Replaces what an earlier call fetched.
     */
    void prefetch(List<ChunkToWalk> chunksToWalk) throws IOException {
        prefetched.clear();
        if (!wholeChunks || chunksToWalk.isEmpty()) {
            return;
        }
        List<FileRange> ranges = wholeChunkRanges(chunksToWalk);
        long start = System.nanoTime();
        byte[][] bytes = source.readAll(ranges);
        nanos += System.nanoTime() - start;
        prefetched(ranges, bytes);
    }

    /**
     * Takes the bytes of {@code ranges} (whole chunks, see {@link #wholeChunkRanges}) as fetched.
     */
    void prefetched(List<FileRange> ranges, byte[][] bytes) {
        prefetched.clear();
        for (int i = 0; i < bytes.length; i++) {
            prefetched.put(ranges.get(i).offset(), bytes[i]);
            bytesRead += bytes[i].length;
        }
    }

    /** What the walks so far cost. */
    PageIndexOrigin origin() {
        return new PageIndexOrigin(
                PageIndexOrigin.Kind.SYNTHESIZED, chunks, pages, bytesRead, nanos);
    }

    /** Walks one column chunk (of a flat column): its data pages, and their key bounds. */
    Chunk walk(ChunkToWalk chunk) throws IOException {
        long started = System.nanoTime();
        ChunkBytes bytes = new ChunkBytes(source, chunk, prefetched.get(chunk.start()));
        KeyPageWalk key = chunk.keyType() == null ? null : new KeyPageWalk(chunk, bytes, decoder);
        PageList list = new PageList();
        long dictionaryOffset = -1;
        long pos = chunk.start();
        while (pos < chunk.end()) {
            // Key pages without header statistics are read whole: ask for about one page at once.
            int hint =
                    key != null && key.decodedLast()
                            ? list.lastSize() + ChunkBytes.FIRST_WINDOW
                            : ChunkBytes.FIRST_WINDOW;
            PageHeaderScan header = bytes.header(pos, hint);
            int total = pageBytes(chunk, header, pos);
            if (header.type == PageHeaderScan.DICTIONARY_PAGE
                    && dictionaryOffset < 0
                    && list.size() == 0) {
                dictionaryOffset = pos;
                if (key != null) {
                    key.dictionaryPage(pos, total);
                }
            } else if (header.isData()) {
                int rows = header.rowCount();
                if (rows < 0) {
                    throw damaged(source.file(), chunk, pos, "it gives " + rows + " rows", null);
                }
                list.add(pos, total, rows);
                if (key != null) {
                    key.dataPage(
                            header, pos, total, list.size() == 1 && pos + total >= chunk.end());
                }
            }
            pos += total;
        }
        if (list.rows() != chunk.rowCount()) {
            throw damaged(
                    source.file(),
                    chunk,
                    chunk.start(),
                    "its data pages hold "
                            + list.rows()
                            + " rows but the row group has "
                            + chunk.rowCount(),
                    null);
        }
        chunks++;
        pages += list.size();
        bytesRead += bytes.bytesRead();
        nanos += System.nanoTime() - started;
        return new Chunk(
                list.locations(),
                key == null ? null : key.ranges(),
                dictionaryOffset,
                list.firstOffset());
    }

    /** Bytes of the page at {@code pos}, header included, checked to lie inside its chunk. */
    private int pageBytes(ChunkToWalk chunk, PageHeaderScan header, long pos) {
        long total = (long) header.headerLength + header.compressedSize;
        if (pos + total > chunk.end() || total > Integer.MAX_VALUE) {
            throw damaged(
                    source.file(),
                    chunk,
                    pos,
                    "its page of "
                            + total
                            + " bytes runs past the end of the column chunk at "
                            + chunk.end(),
                    null);
        }
        return (int) total;
    }

    /** The error for a damaged page: names file, column, row group and offset, and the way out. */
    static LookupFileException damaged(
            FileId file, ChunkToWalk chunk, long offset, String why, @Nullable Throwable cause) {
        return new LookupFileException(
                "File "
                        + file
                        + " is corrupt: building its page index, the page at offset "
                        + offset
                        + " of column '"
                        + chunk.name()
                        + "' in row group "
                        + chunk.rowGroup()
                        + " is damaged: "
                        + why
                        + ". Turn page-index synthesis off to read it as before, or rewrite the"
                        + " file (for example with 'prepare')"
                        + LookupFileException.PLAIN_FILES_ONLY
                        + ".",
                cause);
    }

    /** The data pages found so far in one chunk, as growing primitive arrays. */
    private static final class PageList {
        private long[] offsets = new long[16];
        private int[] sizes = new int[16];
        private long[] firstRows = new long[16];
        private int n;
        private long rows;

        void add(long offset, int size, int pageRows) {
            if (n == offsets.length) {
                offsets = Arrays.copyOf(offsets, n * 2);
                sizes = Arrays.copyOf(sizes, n * 2);
                firstRows = Arrays.copyOf(firstRows, n * 2);
            }
            offsets[n] = offset;
            sizes[n] = size;
            firstRows[n] = rows;
            n++;
            rows += pageRows;
        }

        int size() {
            return n;
        }

        long rows() {
            return rows;
        }

        int lastSize() {
            return sizes[n - 1];
        }

        long firstOffset() {
            return n == 0 ? -1 : offsets[0];
        }

        PageLocations locations() {
            return new PageLocations(
                    Arrays.copyOf(offsets, n),
                    Arrays.copyOf(sizes, n),
                    Arrays.copyOf(firstRows, n));
        }
    }
}
