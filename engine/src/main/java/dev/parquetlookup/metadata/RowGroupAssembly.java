package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The page index of every row group of one file, read at open: the file's own where it has one
 * ({@link PageIndexReader}), synthesized from page headers for the flat chunks that have none when
 * a builder is given ({@link PageIndexBuilder}). Used by tools, by files with a partial own index
 * and when synthesis at open is asked for; a complete own index, or none at all, is otherwise read
 * or built per row group on first use ({@link RowGroupIndexes}). Not thread-safe: one per read.
 *
 * <p>Example: a file written by DuckDB (no index) with a builder: every chunk of every row group is
 * walked, and the result says {@code synthesized} and what the walk cost.
 */
final class RowGroupAssembly {

    private final FileId file;
    private final List<ColumnDescriptor> leaves;
    private final SortKeyResolver.SortKey key;
    private final PageIndexReader own;
    @Nullable private final PageIndexBuilder builder;
    private boolean synthesized;

    RowGroupAssembly(
            FileId file,
            List<ColumnDescriptor> leaves,
            SortKeyResolver.SortKey key,
            PageIndexReader own,
            @Nullable PageIndexBuilder builder) {
        this.file = file;
        this.leaves = leaves;
        this.key = key;
        this.own = own;
        this.builder = builder;
    }

    /** Whether some chunk's index was synthesized so far. */
    boolean synthesized() {
        return synthesized;
    }

    /** What the synthesis cost, when some chunk's index was synthesized. */
    PageIndexOrigin synthesisCost() {
        return builder.origin();
    }

    /** Row group {@code footer} (as the footer describes it) with its page index. */
    RowGroupInfo rowGroup(RowGroupInfo footer, BlockMetaData block) throws IOException {
        List<ColumnChunkMetaData> chunks = block.getColumns();
        PageLocations[] pages = new PageLocations[chunks.size()];
        for (int c = 0; c < chunks.size(); c++) {
            pages[c] = own.offsetIndex(chunks.get(c));
        }
        KeyRanges[] keyPages = new KeyRanges[key.leaves().length];
        for (int k = 0; k < keyPages.length; k++) {
            int leaf = key.leaves()[k];
            if (pages[leaf] != null) {
                keyPages[k] =
                        own.columnIndex(
                                chunks.get(leaf),
                                key.types().get(k),
                                pages[leaf].pageCount(),
                                key.columns().get(k));
            }
        }
        PageIndexBuilder.Chunk[] walked =
                builder == null || block.getRowCount() == 0
                        ? new PageIndexBuilder.Chunk[chunks.size()]
                        : synthesize(footer.ordinal(), block, pages, keyPages);
        ColumnChunkInfo[] columns = new ColumnChunkInfo[chunks.size()];
        for (int c = 0; c < chunks.size(); c++) {
            columns[c] = FooterRowGroups.withPages(footer.columns()[c], pages[c], walked[c]);
        }
        return new RowGroupInfo(
                footer.ordinal(), footer.firstRow(), footer.rowCount(), columns, keyPages);
    }

    /**
     * Walks the chunks of row group {@code r} whose page index is missing, filling {@code pages}
     * and {@code keyPages} in place.
     */
    private PageIndexBuilder.Chunk[] synthesize(
            int r, BlockMetaData block, PageLocations[] pages, KeyRanges[] keyPages)
            throws IOException {
        List<ColumnChunkMetaData> chunks = block.getColumns();
        KeyType[] keyTypeOfLeaf = new KeyType[chunks.size()];
        boolean[] walk = new boolean[chunks.size()];
        for (int k = 0; k < keyPages.length; k++) {
            int leaf = key.leaves()[k];
            keyTypeOfLeaf[leaf] = key.types().get(k);
            walk[leaf] |= keyPages[k] == null;
        }
        List<ChunkToWalk> toWalk = new ArrayList<>();
        for (int c = 0; c < chunks.size(); c++) {
            walk[c] |= pages[c] == null && leaves.get(c).getMaxRepetitionLevel() == 0;
            if (walk[c]) {
                toWalk.add(
                        ChunkToWalk.of(
                                r,
                                leaves.get(c),
                                chunks.get(c),
                                block.getRowCount(),
                                keyTypeOfLeaf[c]));
            }
        }
        PageIndexBuilder.Chunk[] walked = new PageIndexBuilder.Chunk[chunks.size()];
        if (toWalk.isEmpty()) {
            return walked;
        }
        synthesized = true;
        builder.prefetch(toWalk);
        int next = 0;
        for (int c = 0; c < chunks.size(); c++) {
            if (!walk[c]) {
                continue;
            }
            walked[c] = builder.walk(toWalk.get(next++));
            if (pages[c] == null) {
                pages[c] = walked[c].pages();
            } else if (pages[c].pageCount() != walked[c].pages().pageCount()) {
                throw MetadataReader.corrupt(
                        file,
                        "column "
                                + chunks.get(c).getPath()
                                + " of row group "
                                + r
                                + " has "
                                + walked[c].pages().pageCount()
                                + " pages but its OffsetIndex lists "
                                + pages[c].pageCount(),
                        null);
            }
        }
        for (int k = 0; k < keyPages.length; k++) {
            int leaf = key.leaves()[k];
            if (keyPages[k] == null && walked[leaf] != null) {
                keyPages[k] = walked[leaf].keyBounds();
            }
        }
        builder.prefetch(List.of()); // release the fetched chunks
        return walked;
    }
}
