package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;

import javax.annotation.Nullable;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A file's own page index: the OffsetIndex of every column chunk and the ColumnIndex of the
 * sort-key columns, decoded into arrays.
 *
 * <p>Writers lay out the tail as {@code [data][all ColumnIndexes][all OffsetIndexes][footer]}, so
 * all the references a lookup needs form one region, fetched with one read (none when the footer's
 * tail read already covered it). Every reference and decoded value is checked against the file: a
 * damaged index is an error naming the file and column. Its {@link #decodeOffsetIndex} is the one
 * OffsetIndex decoder, also for {@code inspect}'s report on a file the engine refused.
 */
public final class PageIndexReader {

    private final FileId file;
    private final long length;
    @Nullable private final byte[] region;
    private final long regionStart;

    private PageIndexReader(FileId file, long length, @Nullable byte[] region, long regionStart) {
        this.file = file;
        this.length = length;
        this.region = region;
        this.regionStart = regionStart;
    }

    /** Reads the index region of {@code footer}'s file (nothing when it has no page index). */
    static PageIndexReader read(RangeSource source, FooterReader.Footer footer, int[] keyLeaves)
            throws IOException {
        FileId file = footer.file();
        long length = file.length();
        FileRange range = indexRegion(footer.metadata().getBlocks(), keyLeaves, length);
        if (range == null) {
            return new PageIndexReader(file, length, null, 0);
        }
        if (footer.inTail(range)) {
            return new PageIndexReader(file, length, footer.tail(), footer.tailStart());
        }
        return new PageIndexReader(file, length, source.read(range), range.offset());
    }

    /** The chunk's own OffsetIndex, or null when it has none. */
    @Nullable
    PageLocations offsetIndex(ColumnChunkMetaData chunk) {
        IndexReference ref = chunk.getOffsetIndexReference();
        if (ref == null || region == null) {
            return null;
        }
        return offsetIndex(
                file,
                length,
                region,
                regionStart,
                ref.getOffset(),
                ref.getLength(),
                String.valueOf(chunk.getPath()));
    }

    /**
     * Decodes and checks the OffsetIndex at {@code [offset, offset + indexLength)} of the file,
     * found in {@code region} (which starts at file offset {@code regionStart}); null when it lists
     * no pages.
     */
    @Nullable
    static PageLocations offsetIndex(
            FileId file,
            long length,
            byte[] region,
            long regionStart,
            long offset,
            int indexLength,
            String column) {
        PageLocations decoded;
        try {
            decoded = decodeOffsetIndex(region, (int) (offset - regionStart), indexLength);
        } catch (IOException | RuntimeException e) {
            throw MetadataReader.corrupt(
                    file,
                    "the OffsetIndex of column " + column + " cannot be decoded: " + e.getMessage(),
                    e);
        }
        long[] offsets = decoded.offsets();
        int[] sizes = decoded.sizes();
        long[] firstRows = decoded.firstRows();
        int n = offsets.length;
        for (int i = 0; i < n; i++) {
            if (offsets[i] < 4
                    || sizes[i] <= 0
                    || offsets[i] + sizes[i] > length
                    || (i == 0 ? firstRows[i] != 0 : firstRows[i] < firstRows[i - 1])) {
                throw MetadataReader.corrupt(
                        file,
                        "the OffsetIndex of column " + column + " has an invalid page " + i,
                        null);
            }
        }
        if (n == 0) {
            return null;
        }
        return new PageLocations(offsets, sizes, firstRows);
    }

    /** The chunk's own ColumnIndex as key bounds, or null when it has none. */
    @Nullable
    KeyRanges columnIndex(ColumnChunkMetaData chunk, KeyType type, int pageCount, String column) {
        IndexReference ref = chunk.getColumnIndexReference();
        if (ref == null || region == null) {
            return null;
        }
        return columnIndex(
                file,
                region,
                regionStart,
                ref.getOffset(),
                ref.getLength(),
                type,
                pageCount,
                "'" + column + "'");
    }

    /**
     * Decodes and checks the ColumnIndex at {@code [offset, offset + indexLength)} of the file,
     * found in {@code region}, as the key bounds of {@code pageCount} pages.
     *
     * @param column the column for messages, quoted ({@code "'id'"} or {@code "'id' of row group
     *     3"})
     */
    static KeyRanges columnIndex(
            FileId file,
            byte[] region,
            long regionStart,
            long offset,
            int indexLength,
            KeyType type,
            int pageCount,
            String column) {
        ColumnIndex index;
        try {
            index =
                    Util.readColumnIndex(
                            new ByteArrayInputStream(
                                    region, (int) (offset - regionStart), indexLength));
        } catch (IOException | RuntimeException e) {
            throw MetadataReader.corrupt(
                    file,
                    "the ColumnIndex of column " + column + " cannot be decoded: " + e.getMessage(),
                    e);
        }
        List<Boolean> nullPages = index.getNull_pages();
        List<ByteBuffer> mins = index.getMin_values();
        List<ByteBuffer> maxs = index.getMax_values();
        if (nullPages.size() != pageCount || mins.size() != pageCount || maxs.size() != pageCount) {
            throw MetadataReader.corrupt(
                    file,
                    "the ColumnIndex of column "
                            + column
                            + " describes "
                            + mins.size()
                            + " pages but its OffsetIndex "
                            + pageCount,
                    null);
        }
        List<Object> minKeys = new ArrayList<>(pageCount);
        List<Object> maxKeys = new ArrayList<>(pageCount);
        try {
            for (int i = 0; i < pageCount; i++) {
                if (nullPages.get(i)) {
                    minKeys.add(null);
                    maxKeys.add(null);
                } else {
                    minKeys.add(type.decodeBound(mins.get(i)));
                    maxKeys.add(type.decodeBound(maxs.get(i)));
                }
            }
        } catch (RuntimeException e) {
            throw MetadataReader.corrupt(
                    file,
                    "the ColumnIndex of column " + column + " holds a bound that cannot be decoded",
                    e);
        }
        return KeyRanges.of(type, minKeys, maxKeys);
    }

    @Nullable
    private static FileRange indexRegion(List<BlockMetaData> blocks, int[] keyLeaves, long length) {
        long start = Long.MAX_VALUE;
        long end = -1;
        for (BlockMetaData block : blocks) {
            List<ColumnChunkMetaData> chunks = block.getColumns();
            for (int c = 0; c < chunks.size(); c++) {
                IndexReference oi = chunks.get(c).getOffsetIndexReference();
                if (oi != null) {
                    start = Math.min(start, oi.getOffset());
                    end = Math.max(end, oi.getOffset() + oi.getLength());
                }
            }
            for (int leaf : keyLeaves) {
                IndexReference ci = chunks.get(leaf).getColumnIndexReference();
                if (ci != null) {
                    start = Math.min(start, ci.getOffset());
                    end = Math.max(end, ci.getOffset() + ci.getLength());
                }
            }
        }
        if (end < 0) {
            return null;
        }
        if (start < 4 || end > length || end - start > Integer.MAX_VALUE) {
            return null; // implausible references: treated as no page index
        }
        return new FileRange(start, (int) (end - start));
    }

    /**
     * Decodes a Thrift {@code OffsetIndex} straight into arrays (parquet-java builds an object per
     * page, a third of an open's time). Validation of the values is the caller's.
     *
     * @throws IOException if the bytes are not a complete OffsetIndex
     */
    public static PageLocations decodeOffsetIndex(byte[] bytes, int offset, int length)
            throws IOException {
        ThriftCompactReader in = new ThriftCompactReader(bytes, offset, length);
        PageLocations result = null;
        while (in.nextField()) {
            if (in.fieldId() != 1) {
                in.skip(in.fieldType()); // unencoded_byte_array_data_bytes, later fields
                continue;
            }
            int n = in.readListHeader("page_locations");
            in.expectElements(ThriftCompactReader.STRUCT, "page_locations");
            long[] offsets = new long[n];
            int[] sizes = new int[n];
            long[] firstRows = new long[n];
            for (int i = 0; i < n; i++) {
                int seen = 0;
                int outer = in.beginStruct();
                while (in.nextField()) {
                    switch (in.fieldId()) {
                        case 1 -> {
                            offsets[i] = in.readI64("offset");
                            seen |= 1;
                        }
                        case 2 -> {
                            sizes[i] = in.readI32("compressed_page_size");
                            seen |= 2;
                        }
                        case 3 -> {
                            firstRows[i] = in.readI64("first_row_index");
                            seen |= 4;
                        }
                        default -> in.skip(in.fieldType());
                    }
                }
                in.endStruct(outer);
                if (seen != 7) {
                    throw new IOException("page location " + i + " lacks a required field");
                }
            }
            result = new PageLocations(offsets, sizes, firstRows);
        }
        if (result == null) {
            throw new IOException("no page_locations");
        }
        return result;
    }
}
