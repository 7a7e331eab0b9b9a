package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * A file's row groups as its footer describes them, before any page index: each column chunk's
 * codec, offsets and size (checked to lie inside the file), and the leading key's bounds per row
 * group from the footer's statistics. Both the page index read at open and the one read (or
 * synthesized) on first use start from these.
 *
 * <p>Example: a 10M-row file of 77 row groups gives 77 {@link RowGroupInfo}s without page
 * locations, and {@code rowGroupKeys} with 77 entries.
 *
 * @param rowGroups the row groups, in file order, without page locations or key page bounds
 * @param rowGroupKeys bounds of the leading key per row group (row groups without keys absent)
 * @param rowCount rows in the file
 */
record FooterRowGroups(List<RowGroupInfo> rowGroups, KeyRanges rowGroupKeys, long rowCount) {

    /**
     * Reads the row groups of {@code file} from its footer's {@code blocks}.
     *
     * @throws LookupFileException if a chunk lies outside the file or a row group has no statistics
     *     for the leading key
     */
    static FooterRowGroups read(
            FileId file, SortKeyResolver.SortKey key, List<BlockMetaData> blocks) {
        List<RowGroupInfo> rowGroups = new ArrayList<>(blocks.size());
        List<Object> mins = new ArrayList<>(blocks.size());
        List<Object> maxs = new ArrayList<>(blocks.size());
        long firstRow = 0;
        for (int r = 0; r < blocks.size(); r++) {
            BlockMetaData block = blocks.get(r);
            List<ColumnChunkMetaData> chunks = block.getColumns();
            checkChunks(file, r, chunks);
            ColumnChunkInfo[] columns = new ColumnChunkInfo[chunks.size()];
            for (int c = 0; c < chunks.size(); c++) {
                columns[c] = chunkInfo(chunks.get(c));
            }
            rowGroups.add(
                    new RowGroupInfo(
                            r,
                            firstRow,
                            block.getRowCount(),
                            columns,
                            new KeyRanges[key.leaves().length]));
            Object[] bounds = rowGroupBounds(file, key, r, block);
            mins.add(bounds[0]);
            maxs.add(bounds[1]);
            firstRow += block.getRowCount();
        }
        return new FooterRowGroups(
                List.copyOf(rowGroups), KeyRanges.of(key.types().get(0), mins, maxs), firstRow);
    }

    /**
     * The chunk {@code footer} with its page locations and, when its pages were walked, where the
     * walk found them (some writers leave the footer's dictionary offset at 0).
     */
    static ColumnChunkInfo withPages(
            ColumnChunkInfo footer,
            @Nullable PageLocations pages,
            @Nullable PageIndexBuilder.Chunk walked) {
        long start = footer.startOffset();
        long dataOffset = footer.firstDataPageOffset();
        boolean hasDictionary = footer.hasDictionaryPage();
        if (walked != null && walked.firstDataPageOffset() >= 0) {
            dataOffset = walked.firstDataPageOffset();
            hasDictionary = walked.dictionaryOffset() >= 0;
            start = hasDictionary ? walked.dictionaryOffset() : start;
        }
        return new ColumnChunkInfo(
                footer.codec(),
                start,
                dataOffset,
                footer.totalCompressedSize(),
                footer.totalUncompressedSize(),
                hasDictionary,
                pages);
    }

    private static ColumnChunkInfo chunkInfo(ColumnChunkMetaData chunk) {
        long dictionaryOffset = chunk.getDictionaryPageOffset();
        long dataOffset = chunk.getFirstDataPageOffset();
        boolean hasDictionary =
                chunk.hasDictionaryPage() && dictionaryOffset > 0 && dictionaryOffset < dataOffset;
        return new ColumnChunkInfo(
                chunk.getCodec(),
                chunk.getStartingPos(),
                dataOffset,
                chunk.getTotalSize(),
                chunk.getTotalUncompressedSize(),
                hasDictionary,
                null);
    }

    private static void checkChunks(FileId file, int r, List<ColumnChunkMetaData> chunks) {
        long length = file.length();
        for (ColumnChunkMetaData chunk : chunks) {
            long start = chunk.getStartingPos();
            if (start < 4 || start + chunk.getTotalSize() > length) {
                throw MetadataReader.corrupt(
                        file,
                        "column chunk "
                                + chunk.getPath()
                                + " of row group "
                                + r
                                + " lies outside the file",
                        null);
            }
        }
    }

    /** Row-group bounds of the leading key column: {@code {min, max}}, nulls for none. */
    private static Object[] rowGroupBounds(
            FileId file, SortKeyResolver.SortKey key, int r, BlockMetaData block) {
        ColumnChunkMetaData keyChunk = block.getColumns().get(key.leaves()[0]);
        Statistics<?> stats = keyChunk.getStatistics();
        if (block.getRowCount() == 0) {
            return new Object[2];
        }
        if (stats != null && stats.hasNonNullValue()) {
            KeyType type = key.types().get(0);
            return new Object[] {
                type.decodeBound(stats.getMinBytes()), type.decodeBound(stats.getMaxBytes())
            };
        }
        if (stats != null && !stats.isEmpty() && stats.getNumNulls() == block.getRowCount()) {
            return new Object[2]; // only nulls: no key can match
        }
        throw new LookupFileException(
                "Row group "
                        + r
                        + " of file "
                        + file
                        + " has no min/max statistics for sort-key column '"
                        + key.columns().get(0)
                        + "', so keys cannot be located. Rewrite the file with 'prepare'"
                        + " (statistics on)"
                        + LookupFileException.PLAIN_FILES_ONLY
                        + ".");
    }
}
