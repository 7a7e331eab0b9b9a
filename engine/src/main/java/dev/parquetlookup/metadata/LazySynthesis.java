package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The page index of a file that has none, synthesized row group by row group on first use: opening
 * the file reads its footer only, and the first lookup into row group {@code r} walks the page
 * headers of its flat column chunks ({@link PageIndexBuilder}) into the same arrays an own index
 * gives, checked for page order like a lazily read own index. {@link RowGroupIndexes} runs it
 * single flight and keeps each row group in the metadata cache, weighed by its bytes.
 *
 * <p>Reads: a local file walks header by header on the calling thread ({@link #load}); a remote
 * file, and every asynchronous build, fetches the row group's walked chunks whole in one batch
 * ({@link #ranges}) and walks them in memory ({@link #decode}).
 *
 * <p>Example: a 10M-row DuckDB or pyarrow file of 77 row groups opens with one read (its footer);
 * the first lookup into row group 12 walks row group 12's chunks, and the cost so far is {@link
 * #cost()}.
 *
 * <p>Only files without any own page index are read this way ({@link #of}); a file with a partial
 * own index is completed at open ({@link RowGroupAssembly}).
 */
public final class LazySynthesis extends RowGroupIndexes.Plan {

    private final List<ColumnDescriptor> leaves;
    // Per row group, per key column: the footer's chunk bounds (see ChunkToWalk#chunkBounds).
    private final Object[][][] keyChunkBounds;
    private final PageBoundsDecoder decoder;

    private final AtomicLong rowGroupsBuilt = new AtomicLong();
    private final AtomicLong chunks = new AtomicLong();
    private final AtomicLong pages = new AtomicLong();
    private final AtomicLong bytesRead = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();

    private LazySynthesis(
            FileId file,
            List<RowGroupInfo> footerRowGroups,
            List<ColumnDescriptor> leaves,
            SortKeyResolver.SortKey key,
            Object[][][] keyChunkBounds,
            PageBoundsDecoder decoder,
            boolean checkOrder) {
        super(file, footerRowGroups, key, checkOrder);
        this.leaves = leaves;
        this.keyChunkBounds = keyChunkBounds;
        this.decoder = decoder;
    }

    /**
     * The plan for a file without any own page index (no chunk references an OffsetIndex or a
     * ColumnIndex), or empty: the eager path decides what to do with a partial index.
     *
     * @param footer the row groups as the footer describes them (checked)
     */
    static Optional<LazySynthesis> of(
            FileId file,
            List<ColumnDescriptor> leaves,
            List<BlockMetaData> blocks,
            FooterRowGroups footer,
            SortKeyResolver.SortKey key,
            PageBoundsDecoder decoder,
            boolean checkOrder) {
        if (blocks.isEmpty()) {
            return Optional.empty();
        }
        Object[][][] bounds = new Object[blocks.size()][][];
        for (int r = 0; r < blocks.size(); r++) {
            BlockMetaData block = blocks.get(r);
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                if (chunk.getOffsetIndexReference() != null
                        || chunk.getColumnIndexReference() != null) {
                    return Optional.empty();
                }
            }
            bounds[r] = new Object[key.leaves().length][];
            for (int k = 0; k < bounds[r].length; k++) {
                ColumnChunkMetaData chunk = block.getColumns().get(key.leaves()[k]);
                bounds[r][k] =
                        ChunkToWalk.chunkBounds(chunk, key.types().get(k), block.getRowCount());
            }
        }
        return Optional.of(
                new LazySynthesis(
                        file, footer.rowGroups(), leaves, key, bounds, decoder, checkOrder));
    }

    /** The walked chunks of row group {@code r}, whole (those that fit in one array). */
    @Override
    public List<FileRange> ranges(int r) {
        return PageIndexBuilder.wholeChunkRanges(chunksToWalk(r));
    }

    @Override
    public RowGroupInfo decode(int r, byte[][] bytes, RangeSource source) throws IOException {
        PageIndexBuilder builder = new PageIndexBuilder(source, decoder);
        builder.prefetched(ranges(r), bytes);
        return build(r, builder);
    }

    /** Walks row group {@code r}: header by header for a local file, chunks fetched whole else. */
    @Override
    public RowGroupInfo load(int r, RangeSource source) throws IOException {
        PageIndexBuilder builder = new PageIndexBuilder(source, decoder);
        builder.prefetch(chunksToWalk(r));
        return build(r, builder);
    }

    @Override
    public String action() {
        return "Building the page index from page headers";
    }

    /** What the row groups built so far cost (kind SYNTHESIZED, on first use). */
    public PageIndexOrigin cost() {
        return new PageIndexOrigin(
                PageIndexOrigin.Kind.SYNTHESIZED,
                (int) chunks.get(),
                pages.get(),
                bytesRead.get(),
                nanos.get(),
                true);
    }

    /** Row groups whose index was built so far (again after an eviction). */
    public long rowGroupsBuilt() {
        return rowGroupsBuilt.get();
    }

    @Override
    public long retainedBytes() {
        long bytes = 128L + 8L * leaves.size();
        for (int r = 0; r < footerRowGroups.size(); r++) {
            bytes += footerRowGroups.get(r).retainedBytes() + 16L;
            for (Object[] b : keyChunkBounds[r]) {
                bytes += 8 + (b == null ? 0 : 16 + 8L * b.length);
                for (int i = 0; b != null && i < b.length; i++) {
                    bytes += KeyType.retainedBytes(b[i]);
                }
            }
        }
        return bytes;
    }

    private List<ChunkToWalk> chunksToWalk(int r) {
        List<ChunkToWalk> result = new ArrayList<>(leaves.size());
        for (int c = 0; c < leaves.size(); c++) {
            ChunkToWalk chunk = chunkToWalk(r, c);
            if (chunk != null) {
                result.add(chunk);
            }
        }
        return result;
    }

    /** Chunk {@code c} of row group {@code r}, or null when it is not walked. */
    @Nullable
    private ChunkToWalk chunkToWalk(int r, int c) {
        RowGroupInfo footer = footerRowGroups.get(r);
        int k = keyOf(c);
        if (footer.rowCount() == 0 || k < 0 && leaves.get(c).getMaxRepetitionLevel() > 0) {
            return null; // repeated: rows != values, lookups read such a chunk whole
        }
        ColumnChunkInfo chunk = footer.columns()[c];
        return new ChunkToWalk(
                r,
                leaves.get(c),
                chunk.codec(),
                chunk.startOffset(),
                chunk.totalCompressedSize(),
                footer.rowCount(),
                k < 0 ? null : key.types().get(k),
                k < 0 ? ChunkToWalk.UNKNOWN : keyChunkBounds[r][k]);
    }

    private int keyOf(int leaf) {
        for (int k = 0; k < key.leaves().length; k++) {
            if (key.leaves()[k] == leaf) {
                return k;
            }
        }
        return -1;
    }

    private RowGroupInfo build(int r, PageIndexBuilder builder) throws IOException {
        RowGroupInfo footer = footerRowGroups.get(r);
        ColumnChunkInfo[] columns = footer.columns().clone();
        KeyRanges[] keyPages = new KeyRanges[key.leaves().length];
        for (int c = 0; c < columns.length; c++) {
            ChunkToWalk chunk = chunkToWalk(r, c);
            if (chunk == null) {
                continue;
            }
            PageIndexBuilder.Chunk walked = builder.walk(chunk);
            columns[c] = FooterRowGroups.withPages(columns[c], walked.pages(), walked);
            int k = keyOf(c);
            if (k >= 0) {
                keyPages[k] = walked.keyBounds();
            }
        }
        PageIndexOrigin spent = builder.origin();
        rowGroupsBuilt.incrementAndGet();
        chunks.addAndGet(spent.chunks());
        pages.addAndGet(spent.pages());
        bytesRead.addAndGet(spent.bytesRead());
        nanos.addAndGet(spent.nanos());
        return checked(
                new RowGroupInfo(r, footer.firstRow(), footer.rowCount(), columns, keyPages));
    }
}
