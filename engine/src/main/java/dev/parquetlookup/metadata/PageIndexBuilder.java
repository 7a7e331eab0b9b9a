package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

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
 * sort-key column also each page's smallest and largest key, as a ColumnIndex would, from the page
 * header's statistics where the writer wrote them, else by decoding the page ({@link
 * PageBoundsDecoder}, dictionary pages handled). The result is the same arrays a file's own index
 * gives, so the lookup path does not know the difference.
 *
 * <p>Reads: for local files only header bytes (a small positioned read per page, grown when a
 * header is longer), plus the whole page for key pages without statistics. For remote files every
 * walked chunk of a row group is fetched whole in one batch of ranged reads, since a request per
 * page header would cost a round trip each.
 *
 * <p>Every header is checked against the chunk: a damaged header, a page running past its chunk or
 * page row counts that do not add up to the row group's are errors naming the file, column, row
 * group and offset, never a wrong index. Not thread-safe: one builder per metadata read.
 */
final class PageIndexBuilder {

    private static final int FIRST_WINDOW = 256;

    private final RangeSource source;
    private final FileId file;
    private final PageBoundsDecoder decoder;
    private final boolean wholeChunks;
    private final Map<Long, byte[]> prefetched = new HashMap<>();

    // The bytes the last header was parsed from (see header()).
    private Slice lastSlice;
    private long lastSlicePos = -1;
    private int lastSliceLength;

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
        this.file = source.file();
        this.decoder = decoder;
        this.wholeChunks = !isLocal(file.path());
    }

    /** Local paths: a plain path or a {@code file:} URI. Everything else is read as remote. */
    static boolean isLocal(String path) {
        return path.startsWith("file:") || !path.contains(":/");
    }

    /**
     * For remote files, fetches the chunks about to be walked in one batch (a no-op for local
     * files). Replaces what an earlier call fetched.
     */
    void prefetch(List<ColumnChunkMetaData> chunksToWalk) throws IOException {
        prefetched.clear();
        if (!wholeChunks || chunksToWalk.isEmpty()) {
            return;
        }
        List<FileRange> ranges = new ArrayList<>();
        for (ColumnChunkMetaData chunk : chunksToWalk) {
            if (chunk.getTotalSize() <= Integer.MAX_VALUE - 64) {
                ranges.add(new FileRange(chunk.getStartingPos(), (int) chunk.getTotalSize()));
            }
        }
        long start = System.nanoTime();
        byte[][] bytes = source.readAll(ranges);
        for (int i = 0; i < bytes.length; i++) {
            prefetched.put(ranges.get(i).offset(), bytes[i]);
            bytesRead += bytes[i].length;
        }
        nanos += System.nanoTime() - start;
    }

    /** What the walks so far cost. */
    PageIndexOrigin origin() {
        return new PageIndexOrigin(
                PageIndexOrigin.Kind.SYNTHESIZED, chunks, pages, bytesRead, nanos);
    }

    /**
     * Walks one column chunk (of a flat column).
     *
     * @param rowGroup the row group's ordinal, for messages
     * @param rowCount rows of the row group; the pages must add up to it
     * @param keyType the key type when this is a sort-key column (bounds wanted), else null
     */
    Chunk walk(
            int rowGroup,
            ColumnDescriptor column,
            ColumnChunkMetaData chunk,
            long rowCount,
            @Nullable KeyType keyType)
            throws IOException {
        long started = System.nanoTime();
        ChunkBytes bytes = new ChunkBytes(chunk, prefetched.get(chunk.getStartingPos()));
        CompressionCodecName codec = chunk.getCodec();
        String name = String.join(".", column.getPath());
        int capacity = 16;
        long[] offsets = new long[capacity];
        int[] sizes = new int[capacity];
        long[] firstRows = new long[capacity];
        List<Object> mins = keyType == null ? null : new ArrayList<>();
        List<Object> maxs = keyType == null ? null : new ArrayList<>();
        KeyPages key =
                new KeyPages(
                        keyType,
                        keyType == null ? UNKNOWN : chunkBounds(chunk, keyType, rowCount),
                        column,
                        codec,
                        rowGroup,
                        name);
        int n = 0;
        long row = 0;
        long pos = bytes.start;
        while (pos < bytes.end) {
            // Key pages without header statistics are read whole: ask for about one page at once.
            int hint = key.decodedLast ? sizes[n - 1] + FIRST_WINDOW : FIRST_WINDOW;
            PageHeaderScan header = header(bytes, pos, hint, rowGroup, name);
            long total = (long) header.headerLength + header.compressedSize;
            if (pos + total > bytes.end || total > Integer.MAX_VALUE) {
                throw damaged(
                        rowGroup,
                        name,
                        pos,
                        "its page of "
                                + total
                                + " bytes runs past the end of the column chunk at "
                                + bytes.end,
                        null);
            }
            if (header.type == PageHeaderScan.DICTIONARY_PAGE
                    && key.dictionaryOffset < 0
                    && n == 0) {
                key.dictionaryOffset = pos;
                key.dictionaryLength = (int) total;
            } else if (header.isData()) {
                int rows = header.rowCount();
                if (rows < 0) {
                    throw damaged(rowGroup, name, pos, "it gives " + rows + " rows", null);
                }
                if (n == capacity) {
                    capacity *= 2;
                    offsets = Arrays.copyOf(offsets, capacity);
                    sizes = Arrays.copyOf(sizes, capacity);
                    firstRows = Arrays.copyOf(firstRows, capacity);
                }
                offsets[n] = pos;
                sizes[n] = (int) total;
                firstRows[n] = row;
                n++;
                row += rows;
                if (keyType != null) {
                    boolean onlyPage = n == 1 && pos + total >= bytes.end;
                    Object[] b = key.bounds(header, bytes, pos, (int) total, onlyPage);
                    mins.add(b == null ? null : b[0]);
                    maxs.add(b == null ? null : b[1]);
                }
            }
            pos += total;
        }
        if (row != rowCount) {
            throw damaged(
                    rowGroup,
                    name,
                    bytes.start,
                    "its data pages hold " + row + " rows but the row group has " + rowCount,
                    null);
        }
        chunks++;
        pages += n;
        nanos += System.nanoTime() - started;
        PageLocations locations =
                new PageLocations(
                        Arrays.copyOf(offsets, n),
                        Arrays.copyOf(sizes, n),
                        Arrays.copyOf(firstRows, n));
        KeyRanges bounds = keyType == null ? null : KeyRanges.of(keyType, mins, maxs);
        return new Chunk(locations, bounds, key.dictionaryOffset, n == 0 ? -1 : offsets[0]);
    }

    private static final Object[] UNKNOWN = new Object[0];

    /** Bounds of the pages of one key column chunk, and its dictionary, during a walk. */
    private final class KeyPages {
        private final KeyType type;
        private final Object[] chunkBounds;
        private final ColumnDescriptor column;
        private final CompressionCodecName codec;
        private final int rowGroup;
        private final String name;
        long dictionaryOffset = -1;
        int dictionaryLength;
        private Object dictionary;

        /** Whether the last data page was decoded (then the next is read with its header). */
        boolean decodedLast;

        KeyPages(
                @Nullable KeyType type,
                Object[] chunkBounds,
                ColumnDescriptor column,
                CompressionCodecName codec,
                int rowGroup,
                String name) {
            this.type = type;
            this.chunkBounds = chunkBounds;
            this.column = column;
            this.codec = codec;
            this.rowGroup = rowGroup;
            this.name = name;
        }

        /**
         * Bounds of the data page at {@code pos}: from its header's statistics, else (the chunk's
         * only page) from the chunk's statistics, else decoded.
         */
        @Nullable
        Object[] bounds(
                PageHeaderScan header, ChunkBytes bytes, long pos, int total, boolean onlyPage)
                throws IOException {
            Object[] bounds = statisticsBounds(header, type);
            if (bounds == UNKNOWN && onlyPage) {
                // DuckDB writes one page per chunk: the footer's chunk statistics are its bounds.
                bounds = chunkBounds;
            }
            decodedLast = bounds == UNKNOWN;
            if (bounds != UNKNOWN) {
                return bounds;
            }
            if (dictionary == null && dictionaryOffset >= 0) {
                dictionary =
                        decodeDictionary(
                                bytes,
                                dictionaryOffset,
                                dictionaryLength,
                                column,
                                codec,
                                rowGroup,
                                name);
            }
            return decodeBounds(bytes, pos, total, dictionary, column, type, codec, rowGroup, name);
        }
    }

    /**
     * Page bounds from header statistics: {@code {min, max}}, {@code null} for a page of nulls
     * only, or {@link #UNKNOWN} when the header cannot tell. The deprecated {@code min}/{@code max}
     * fields are in signed order, right only for integer keys.
     */
    @Nullable
    private static Object[] statisticsBounds(PageHeaderScan header, KeyType type) {
        if (header.minValue != null && header.maxValue != null) {
            return new Object[] {
                type.decodeBound(header.minValue), type.decodeBound(header.maxValue)
            };
        }
        if (type.kind() == KeyType.Kind.LONG
                && header.legacyMin != null
                && header.legacyMax != null) {
            return new Object[] {
                type.decodeBound(header.legacyMin), type.decodeBound(header.legacyMax)
            };
        }
        if (header.nullCount >= 0 && header.nullCount >= header.valueCount) {
            return null;
        }
        return UNKNOWN;
    }

    /**
     * Bounds of a chunk's key column from the footer's chunk statistics: {@code {min, max}}, null
     * when the chunk holds only nulls, {@link #UNKNOWN} without usable statistics.
     */
    @Nullable
    private static Object[] chunkBounds(ColumnChunkMetaData chunk, KeyType type, long rowCount) {
        org.apache.parquet.column.statistics.Statistics<?> stats = chunk.getStatistics();
        if (stats == null || stats.isEmpty()) {
            return UNKNOWN;
        }
        if (stats.hasNonNullValue()) {
            try {
                return new Object[] {
                    type.decodeBound(stats.getMinBytes()), type.decodeBound(stats.getMaxBytes())
                };
            } catch (RuntimeException e) {
                return UNKNOWN;
            }
        }
        return stats.getNumNulls() == rowCount ? null : UNKNOWN;
    }

    /**
     * Parses the page header at {@code pos}, reading {@code hint} bytes first (more if the header
     * is longer). The bytes read stay in {@link #lastSlice} for a caller that wants the page.
     */
    private PageHeaderScan header(ChunkBytes bytes, long pos, int hint, int rowGroup, String column)
            throws IOException {
        long remaining = bytes.end - pos;
        int limit = (int) Math.min(remaining, Integer.MAX_VALUE - 64);
        int window = bytes.whole != null ? limit : Math.min(limit, Math.max(hint, FIRST_WINDOW));
        while (true) {
            Slice slice = bytes.read(pos, window);
            lastSlice = slice;
            lastSlicePos = pos;
            lastSliceLength = window;
            try {
                return PageHeaderScan.parse(slice.bytes, slice.offset, window);
            } catch (IOException | RuntimeException e) {
                if (window >= limit) {
                    throw damaged(
                            rowGroup,
                            column,
                            pos,
                            "its page header cannot be read (" + e.getMessage() + ")",
                            e);
                }
                // A long header (large statistics): read more of it.
                window = (int) Math.min(limit, window * 16L);
            }
        }
    }

    private Object decodeDictionary(
            ChunkBytes bytes,
            long offset,
            int length,
            ColumnDescriptor column,
            CompressionCodecName codec,
            int rowGroup,
            String name)
            throws IOException {
        Slice slice = bytes.read(offset, length);
        try {
            return decoder.dictionary(slice.bytes, slice.offset, length, column, codec);
        } catch (IOException | RuntimeException e) {
            throw damaged(
                    rowGroup,
                    name,
                    offset,
                    "its dictionary page cannot be decoded (" + e.getMessage() + ")",
                    e);
        }
    }

    @Nullable
    private Object[] decodeBounds(
            ChunkBytes bytes,
            long offset,
            int length,
            @Nullable Object dictionary,
            ColumnDescriptor column,
            KeyType type,
            CompressionCodecName codec,
            int rowGroup,
            String name)
            throws IOException {
        Slice slice =
                lastSlicePos == offset && lastSliceLength >= length
                        ? lastSlice
                        : bytes.read(offset, length);
        try {
            return decoder.bounds(
                    slice.bytes, slice.offset, length, dictionary, column, type, codec);
        } catch (LookupFileException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw damaged(
                    rowGroup,
                    name,
                    offset,
                    "its data page cannot be decoded (" + e.getMessage() + ")",
                    e);
        }
    }

    private LookupFileException damaged(
            int rowGroup, String column, long offset, String why, @Nullable Throwable cause) {
        return new LookupFileException(
                "File "
                        + file
                        + " is corrupt: building its page index, the page at offset "
                        + offset
                        + " of column '"
                        + column
                        + "' in row group "
                        + rowGroup
                        + " is damaged: "
                        + why
                        + ". Rewrite the file (for example with 'prepare'), or turn page-index"
                        + " synthesis off to read it as before.",
                cause);
    }

    private record Slice(byte[] bytes, int offset) {}

    /** The bytes of one chunk: fetched whole (remote) or read piecewise (local). */
    private final class ChunkBytes {
        final long start;
        final long end;
        @Nullable final byte[] whole;

        ChunkBytes(ColumnChunkMetaData chunk, @Nullable byte[] whole) {
            this.start = chunk.getStartingPos();
            this.end = start + chunk.getTotalSize();
            this.whole = whole;
        }

        Slice read(long pos, int length) throws IOException {
            if (whole != null) {
                return new Slice(whole, (int) (pos - start));
            }
            byte[] b = source.read(new FileRange(pos, length));
            bytesRead += length;
            return new Slice(b, 0);
        }
    }
}
