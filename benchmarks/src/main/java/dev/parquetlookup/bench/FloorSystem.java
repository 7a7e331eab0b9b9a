package dev.parquetlookup.bench;

import dev.parquetlookup.engine.codec.PrefixDecompressor;
import dev.parquetlookup.engine.page.PagePrefix;

import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;

import io.airlift.compress.Decompressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdDecompressor;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The physical floor of a point read: for a key, only the positioned reads of the exact key page
 * and value page (byte ranges from the file's OffsetIndex, read once at open together with every
 * page header) plus their block decompression. No search (the seed's keys are dense, so the row of
 * key k is k - 1 and its page follows by division), no decoding, no answer.
 *
 * <p>The file is memory-mapped, as the engine maps local files: a page is a slice of the mapping
 * (no system call, no copy), decompressed by aircompressor's block decompressor for the column's
 * codec into a per-thread direct buffer; an uncompressed page is copied there once.
 *
 * <p>The partial variant ({@code floor-partial}) decompresses the key page whole (a search that
 * checks the page's order needs all of it) but the value page only up to the end of the key's row,
 * as a lookup that stops early can: the row's end is {@code (row in page + 1) x bytes per row},
 * exact for the seed's fixed-width values. LZ4_RAW, SNAPPY and uncompressed pages stop there (the
 * engine's {@link PrefixDecompressor}, into a per-thread array) when the prefix holds at most
 * {@link PagePrefix#maxPrefixShare} of the page's rows, the engine's own rule (beyond it the
 * library's whole-page decoder is faster); other codecs cannot stop and are decompressed whole as
 * in the plain floor.
 *
 * <p>The engine now decompresses a key page it has verified sorted only until the first key above
 * the searched one (and whole when the page's bounds put the key beyond that share), so on the
 * protocol layout it does <em>less</em> key-page work than {@code floor-partial}: {@code
 * floor-partial} is no longer a floor for the engine's work, only for a lookup that decodes its key
 * page whole. The prefix variant ({@code floor-prefix}) is the floor for the engine's path: as
 * {@code floor-partial}, and the key page decompressed only up to the end of the row after the
 * key's (a search must see the first key above it; the floor knows the row, the engine finds it in
 * 1 KiB steps), under the same share rule.
 */
final class FloorSystem implements LookupSystem {

    /** One column's pages, in file order, with what a read and a decompression need. */
    private record Pages(
            CompressionCodecName codec,
            long[] offset,
            int[] size,
            int[] bodyStart,
            int[] uncompressed,
            int rowsPerPage,
            long rowsPerRowGroup,
            int[] firstPageOfRowGroup) {

        int pageOf(long row) {
            int rg = (int) (row / rowsPerRowGroup);
            return firstPageOfRowGroup[rg] + (int) ((row - rg * rowsPerRowGroup) / rowsPerPage);
        }
    }

    /** Mappings of {@link #SEGMENT} bytes each, overlapping by the largest page. */
    private static final long SEGMENT = 1L << 30;

    private final FileChannel channel;
    private final MappedByteBuffer[] segments;
    private final long rows;
    private final Pages keyPages;
    private final Pages valuePages;
    private final int maxPage;
    private final int maxUncompressed;
    private final LongAdder bytes = new LongAdder();
    private final LongAdder reads = new LongAdder();
    private final boolean partial;
    private final boolean keyPrefix;
    private final long rowsPerRowGroup;
    private final int rowsPerPage;

    FloorSystem(Path path, SeedLayout layout) throws IOException {
        this(path, layout, false);
    }

    /** With {@code partial}, value pages are decompressed only up to the key's row. */
    FloorSystem(Path path, SeedLayout layout, boolean partial) throws IOException {
        this(path, layout, partial, false);
    }

    /**
     * With {@code keyPrefix} too, key pages are decompressed only up to the row after the key's
     * ({@code floor-prefix}).
     */
    FloorSystem(Path path, SeedLayout layout, boolean partial, boolean keyPrefix)
            throws IOException {
        this.partial = partial;
        this.keyPrefix = keyPrefix;
        this.rowsPerRowGroup = layout.rowsPerRowGroup();
        this.rowsPerPage = layout.rowsPerPage();
        this.channel = FileChannel.open(path, StandardOpenOption.READ);
        this.rows = layout.rows();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(path))) {
            this.keyPages = pages(reader, "k", layout);
            this.valuePages = pages(reader, "v", layout);
        }
        int mp = 0;
        int mu = 0;
        for (Pages p : List.of(keyPages, valuePages)) {
            for (int i = 0; i < p.size.length; i++) {
                mp = Math.max(mp, p.size[i]);
                mu = Math.max(mu, p.uncompressed[i]);
            }
        }
        this.maxPage = mp;
        this.maxUncompressed = mu;
        long size = channel.size();
        int count = (int) ((size + SEGMENT - 1) / SEGMENT);
        this.segments = new MappedByteBuffer[Math.max(1, count)];
        for (int i = 0; i < segments.length; i++) {
            long start = i * SEGMENT;
            // Overlap by the largest page, so every page lies wholly in the segment it starts in.
            segments[i] =
                    channel.map(
                            FileChannel.MapMode.READ_ONLY,
                            start,
                            Math.min(SEGMENT + maxPage, size - start));
        }
    }

    private Pages pages(ParquetFileReader reader, String column, SeedLayout layout)
            throws IOException {
        List<BlockMetaData> blocks = reader.getRowGroups();
        int total = 0;
        OffsetIndex[] indexes = new OffsetIndex[blocks.size()];
        CompressionCodecName codec = null;
        for (int b = 0; b < blocks.size(); b++) {
            BlockMetaData block = blocks.get(b);
            ColumnChunkMetaData chunk = chunk(block, column);
            if (chunk.hasDictionaryPage()) {
                throw new IllegalArgumentException(
                        "the floor covers dictionary-free layouts only; column "
                                + column
                                + " has a dictionary page");
            }
            codec = chunk.getCodec();
            indexes[b] = reader.readOffsetIndex(chunk);
            if (indexes[b] == null) {
                throw new IllegalArgumentException(
                        "the floor needs an OffsetIndex; column " + column + " has none");
            }
            if (b < blocks.size() - 1 && block.getRowCount() != layout.rowsPerRowGroup()) {
                throw new IllegalStateException(
                        "row group "
                                + b
                                + " has "
                                + block.getRowCount()
                                + " rows, expected "
                                + layout.rowsPerRowGroup());
            }
            total += indexes[b].getPageCount();
        }
        long[] offset = new long[total];
        int[] size = new int[total];
        int[] bodyStart = new int[total];
        int[] uncompressed = new int[total];
        int[] firstPage = new int[blocks.size()];
        int p = 0;
        for (int b = 0; b < blocks.size(); b++) {
            firstPage[b] = p;
            OffsetIndex oi = indexes[b];
            for (int i = 0; i < oi.getPageCount(); i++, p++) {
                if (oi.getFirstRowIndex(i) != (long) i * layout.rowsPerPage()) {
                    throw new IllegalStateException(
                            "page "
                                    + i
                                    + " of row group "
                                    + b
                                    + " starts at row "
                                    + oi.getFirstRowIndex(i)
                                    + ", expected "
                                    + (long) i * layout.rowsPerPage());
                }
                offset[p] = oi.getOffset(i);
                size[p] = oi.getCompressedPageSize(i);
                byte[] head = new byte[Math.min(size[p], 512)];
                readFully(ByteBuffer.wrap(head), offset[p]);
                PageHeader header = parseHeader(head, offset[p], size[p]);
                int headerLength = size[p] - header.getCompressed_page_size();
                int levels = 0;
                if (header.getType() == PageType.DATA_PAGE_V2) {
                    DataPageHeaderV2 v2 = header.getData_page_header_v2();
                    levels =
                            v2.getRepetition_levels_byte_length()
                                    + v2.getDefinition_levels_byte_length();
                }
                bodyStart[p] = headerLength + levels;
                uncompressed[p] = header.getUncompressed_page_size() - levels;
            }
        }
        return new Pages(
                codec,
                offset,
                size,
                bodyStart,
                uncompressed,
                layout.rowsPerPage(),
                layout.rowsPerRowGroup(),
                firstPage);
    }

    private PageHeader parseHeader(byte[] head, long offset, int size) throws IOException {
        try {
            return Util.readPageHeader(new ByteArrayInputStream(head));
        } catch (IOException e) {
            byte[] whole = new byte[size];
            readFully(ByteBuffer.wrap(whole), offset);
            return Util.readPageHeader(new ByteArrayInputStream(whole));
        }
    }

    private static ColumnChunkMetaData chunk(BlockMetaData block, String column) {
        for (ColumnChunkMetaData c : block.getColumns()) {
            if (c.getPath().toDotString().equals(column)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no column " + column);
    }

    private void readFully(ByteBuffer buf, long position) throws IOException {
        long pos = position;
        while (buf.hasRemaining()) {
            int n = channel.read(buf, pos);
            if (n < 0) {
                throw new EOFException("end of file at " + pos);
            }
            pos += n;
        }
    }

    @Override
    public String name() {
        return keyPrefix ? "floor-prefix" : partial ? "floor-partial" : "floor";
    }

    @Override
    public String config() {
        if (keyPrefix) {
            return "as floor-partial, and the key page decompressed only up to the end of the row"
                    + " after the key's (the first key above it), same rule";
        }
        if (partial) {
            return "as floor, but the value page decompressed only up to the end of the key's row"
                    + " (LZ4_RAW, SNAPPY, uncompressed stop early; the key page whole)";
        }
        return "memory-mapped slices of the exact key page and value page (OffsetIndex ranges and"
                + " page headers read once at open) + aircompressor block decompression of both into"
                + " direct buffers (uncompressed pages copied once); no search, no decoding, no"
                + " answer (not fingerprinted)";
    }

    @Override
    public boolean answers() {
        return false;
    }

    @Override
    public Session session() {
        ByteBuffer out = ByteBuffer.allocateDirect(Math.max(1, maxUncompressed));
        Decompressor lz4 = new Lz4Decompressor();
        Decompressor snappy = new SnappyDecompressor();
        Decompressor zstd = new ZstdDecompressor();
        byte[] prefix = new byte[Math.max(1, maxUncompressed)];
        return k -> {
            if (k < 1 || k > rows) {
                return null;
            }
            long row = k - 1;
            for (Pages pages : new Pages[] {keyPages, valuePages}) {
                int p = pages.pageOf(row);
                long offset = pages.offset[p];
                MappedByteBuffer segment = segments[(int) (offset / SEGMENT)];
                ByteBuffer in =
                        segment.slice(
                                (int) (offset % SEGMENT) + pages.bodyStart[p],
                                pages.size[p] - pages.bodyStart[p]);
                bytes.add(pages.size[p]);
                reads.increment();
                // A search sees the key's row and the next (the first key above it).
                int extra = pages == keyPages ? 1 : 0;
                if ((pages == valuePages ? partial : keyPrefix)
                        && stopsEarly(pages.codec)
                        && rowShare(row, extra) <= PagePrefix.maxPrefixShare(pages.codec)) {
                    PrefixDecompressor d =
                            PrefixDecompressor.start(
                                    pages.codec,
                                    in,
                                    0,
                                    in.limit(),
                                    prefix,
                                    0,
                                    pages.uncompressed[p]);
                    d.ensure(rowEnd(row, extra, pages.uncompressed[p]));
                    d.release();
                    continue;
                }
                out.clear().limit(pages.uncompressed[p]);
                switch (pages.codec) {
                    case UNCOMPRESSED -> out.put(in);
                    case LZ4_RAW -> lz4.decompress(in, out);
                    case SNAPPY -> snappy.decompress(in, out);
                    case ZSTD -> zstd.decompress(in, out);
                    default ->
                            throw new IllegalArgumentException(
                                    "the floor has no block decompressor for " + pages.codec);
                }
            }
            return null;
        };
    }

    private static boolean stopsEarly(CompressionCodecName codec) {
        return codec == CompressionCodecName.LZ4_RAW
                || codec == CompressionCodecName.SNAPPY
                || codec == CompressionCodecName.UNCOMPRESSED;
    }

    /** The share of its page's rows a prefix up to {@code extra} rows after the key's holds. */
    private double rowShare(long row, int extra) {
        long rowGroupStart = row / rowsPerRowGroup * rowsPerRowGroup;
        long rowGroupRows = Math.min(rowsPerRowGroup, rows - rowGroupStart);
        long inRowGroup = row - rowGroupStart;
        long pageStart = inRowGroup / rowsPerPage * rowsPerPage;
        long pageRows = Math.min(rowsPerPage, rowGroupRows - pageStart);
        return (double) Math.min(pageRows, inRowGroup - pageStart + 1 + extra) / pageRows;
    }

    /**
     * Where the row {@code extra} rows after the key's ends in its decompressed page (fixed-width
     * values), at most the page's end.
     */
    private int rowEnd(long row, int extra, int pageBytes) {
        long rowGroupStart = row / rowsPerRowGroup * rowsPerRowGroup;
        long rowGroupRows = Math.min(rowsPerRowGroup, rows - rowGroupStart);
        long inRowGroup = row - rowGroupStart;
        long pageStart = inRowGroup / rowsPerPage * rowsPerPage;
        long pageRows = Math.min(rowsPerPage, rowGroupRows - pageStart);
        long rowInPage = inRowGroup - pageStart;
        return (int) (Math.min(pageRows, rowInPage + 1 + extra) * pageBytes / pageRows);
    }

    @Override
    public long bytesRead() {
        return bytes.sum();
    }

    @Override
    public long readRequests() {
        return reads.sum();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
