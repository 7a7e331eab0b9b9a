package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;

import javax.annotation.Nullable;

import java.util.List;
import java.util.Optional;

/**
 * Where each row group's own page index lies in a file, and how to decode it: taken from the footer
 * at open, so a row group's ColumnIndex (sort-key columns) and OffsetIndexes (every column) are
 * fetched and decoded only when a lookup first lands in it. Immutable, shared by every table that
 * opens the file version; the decoded row groups live in the {@link MetadataCache} ({@link
 * RowGroupIndexes}).
 *
 * <p>Writers put all ColumnIndexes, then all OffsetIndexes, before the footer: one row group's
 * indexes are two runs of bytes, the key columns' ColumnIndexes and its OffsetIndexes. Example: in
 * a 3-column file of 100 row groups, row group 7 reads the ColumnIndex of the key column (say 200
 * bytes) and the three OffsetIndexes of row group 7 (say 3 x 150 bytes), in one ranged read when
 * the two runs lie within {@link #MERGE_GAP} bytes of each other, else two reads in one wave.
 *
 * <p>Only files whose every column chunk has an OffsetIndex and whose key columns have a
 * ColumnIndex are read this way ({@link #of}); others take the eager path (own partial index, or a
 * synthesized one).
 */
public final class LazyPageIndex extends RowGroupIndexes.Plan {

    /** Two runs of index bytes closer than this are fetched in one read. */
    static final int MERGE_GAP = 64 * 1024;

    private final String[] columnPaths;
    // Per row group: per column, the OffsetIndex reference; per key column, the ColumnIndex one.
    private final long[][] offsetIndexOffsets;
    private final int[][] offsetIndexLengths;
    private final long[][] columnIndexOffsets;
    private final int[][] columnIndexLengths;

    private LazyPageIndex(
            FileId file,
            List<RowGroupInfo> footerRowGroups,
            SortKeyResolver.SortKey key,
            String[] columnPaths,
            long[][] offsetIndexOffsets,
            int[][] offsetIndexLengths,
            long[][] columnIndexOffsets,
            int[][] columnIndexLengths,
            boolean checkOrder) {
        super(file, footerRowGroups, key, checkOrder);
        this.columnPaths = columnPaths;
        this.offsetIndexOffsets = offsetIndexOffsets;
        this.offsetIndexLengths = offsetIndexLengths;
        this.columnIndexOffsets = columnIndexOffsets;
        this.columnIndexLengths = columnIndexLengths;
    }

    /**
     * The lazy index of a file whose footer references a complete own page index, or empty (some
     * chunk lacks an OffsetIndex, a key column a ColumnIndex, or a reference points outside the
     * file: the eager path decides what to do).
     *
     * @param footerRowGroups the row groups as the footer describes them (no page locations)
     * @param checkOrder whether each row group's key pages are checked in order when read
     */
    static Optional<LazyPageIndex> of(
            FileId file,
            List<BlockMetaData> blocks,
            List<RowGroupInfo> footerRowGroups,
            SortKeyResolver.SortKey key,
            boolean checkOrder) {
        int groups = blocks.size();
        long length = file.length();
        long[][] oiOffsets = new long[groups][];
        int[][] oiLengths = new int[groups][];
        long[][] ciOffsets = new long[groups][];
        int[][] ciLengths = new int[groups][];
        String[] paths = null;
        for (int r = 0; r < groups; r++) {
            BlockMetaData block = blocks.get(r);
            List<ColumnChunkMetaData> chunks = block.getColumns();
            if (block.getRowCount() == 0) {
                return Optional.empty();
            }
            if (paths == null) {
                paths = new String[chunks.size()];
                for (int c = 0; c < paths.length; c++) {
                    paths[c] = String.valueOf(chunks.get(c).getPath());
                }
            }
            oiOffsets[r] = new long[chunks.size()];
            oiLengths[r] = new int[chunks.size()];
            for (int c = 0; c < chunks.size(); c++) {
                IndexReference ref = chunks.get(c).getOffsetIndexReference();
                if (!plausible(ref, length)) {
                    return Optional.empty();
                }
                oiOffsets[r][c] = ref.getOffset();
                oiLengths[r][c] = ref.getLength();
            }
            ciOffsets[r] = new long[key.leaves().length];
            ciLengths[r] = new int[key.leaves().length];
            for (int k = 0; k < key.leaves().length; k++) {
                IndexReference ref = chunks.get(key.leaves()[k]).getColumnIndexReference();
                if (!plausible(ref, length)) {
                    return Optional.empty();
                }
                ciOffsets[r][k] = ref.getOffset();
                ciLengths[r][k] = ref.getLength();
            }
        }
        if (groups == 0) {
            return Optional.empty();
        }
        return Optional.of(
                new LazyPageIndex(
                        file,
                        List.copyOf(footerRowGroups),
                        key,
                        paths,
                        oiOffsets,
                        oiLengths,
                        ciOffsets,
                        ciLengths,
                        checkOrder));
    }

    private static boolean plausible(@Nullable IndexReference ref, long length) {
        return ref != null
                && ref.getOffset() >= 4
                && ref.getLength() > 0
                && ref.getOffset() + ref.getLength() <= length;
    }

    /** The byte ranges to read for row group {@code r}'s index: one, or two far apart. */
    @Override
    public List<FileRange> ranges(int r) {
        long ciStart = Long.MAX_VALUE;
        long ciEnd = -1;
        for (int k = 0; k < columnIndexOffsets[r].length; k++) {
            ciStart = Math.min(ciStart, columnIndexOffsets[r][k]);
            ciEnd = Math.max(ciEnd, columnIndexOffsets[r][k] + columnIndexLengths[r][k]);
        }
        long oiStart = Long.MAX_VALUE;
        long oiEnd = -1;
        for (int c = 0; c < offsetIndexOffsets[r].length; c++) {
            oiStart = Math.min(oiStart, offsetIndexOffsets[r][c]);
            oiEnd = Math.max(oiEnd, offsetIndexOffsets[r][c] + offsetIndexLengths[r][c]);
        }
        long lo = Math.min(ciStart, oiStart);
        long hi = Math.max(ciEnd, oiEnd);
        boolean apart = ciEnd + MERGE_GAP < oiStart || oiEnd + MERGE_GAP < ciStart;
        if (!apart && hi - lo <= Integer.MAX_VALUE) {
            return List.of(new FileRange(lo, (int) (hi - lo)));
        }
        return List.of(
                new FileRange(ciStart, (int) (ciEnd - ciStart)),
                new FileRange(oiStart, (int) (oiEnd - oiStart)));
    }

    /**
     * Row group {@code r} with its page index decoded from {@code bytes} (the reads of {@link
     * #ranges(int)}), checked against the file and for the order of its key pages.
     *
     * @throws LookupFileException if the index is damaged or the pages are out of order
     */
    @Override
    public RowGroupInfo decode(int r, byte[][] bytes, RangeSource source) {
        // The ranges hold everything: source is not read.
        List<FileRange> ranges = ranges(r);
        RowGroupInfo footer = footerRowGroups.get(r);
        ColumnChunkInfo[] columns = new ColumnChunkInfo[footer.columns().length];
        long length = file.length();
        for (int c = 0; c < columns.length; c++) {
            int slot = slotOf(ranges, offsetIndexOffsets[r][c], offsetIndexLengths[r][c]);
            PageLocations pages =
                    PageIndexReader.offsetIndex(
                            file,
                            length,
                            bytes[slot],
                            ranges.get(slot).offset(),
                            offsetIndexOffsets[r][c],
                            offsetIndexLengths[r][c],
                            columnPaths[c] + " of row group " + r);
            columns[c] = FooterRowGroups.withPages(footer.columns()[c], pages, null);
        }
        KeyRanges[] keyPages = new KeyRanges[key.leaves().length];
        for (int k = 0; k < keyPages.length; k++) {
            PageLocations pages = columns[key.leaves()[k]].pages();
            if (pages == null) {
                continue;
            }
            int slot = slotOf(ranges, columnIndexOffsets[r][k], columnIndexLengths[r][k]);
            keyPages[k] =
                    PageIndexReader.columnIndex(
                            file,
                            bytes[slot],
                            ranges.get(slot).offset(),
                            columnIndexOffsets[r][k],
                            columnIndexLengths[r][k],
                            key.types().get(k),
                            pages.pageCount(),
                            "'" + key.columns().get(k) + "' of row group " + r);
        }
        return checked(
                new RowGroupInfo(r, footer.firstRow(), footer.rowCount(), columns, keyPages));
    }

    private static int slotOf(List<FileRange> ranges, long offset, int length) {
        for (int i = 0; i < ranges.size(); i++) {
            FileRange range = ranges.get(i);
            if (offset >= range.offset() && offset + length <= range.offset() + range.length()) {
                return i;
            }
        }
        throw new IllegalStateException("index reference outside the ranges read");
    }

    @Override
    public String action() {
        return "Reading the page index";
    }

    @Override
    public long retainedBytes() {
        long bytes = 128L + 16L * columnPaths.length;
        for (RowGroupInfo rg : footerRowGroups) {
            bytes += rg.retainedBytes() + 12L * (columnPaths.length + key.leaves().length) + 64;
        }
        return bytes;
    }
}
