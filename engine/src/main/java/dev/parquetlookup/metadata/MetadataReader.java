package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reads a file's metadata into a {@link FileMetadata}: the footer ({@link FooterReader}), the sort
 * key ({@link SortKeyResolver}), the page index (the file's own, {@link PageIndexReader}, or one
 * built from page headers, {@link PageIndexBuilder}), assembled per row group, then checked for
 * sort order ({@link SortOrderCheck}). Stateless.
 *
 * <p>Example: {@code MetadataReader.read(source, List.of("id"),
 * PageIndexOptions.synthesized(decoder))} serves a DuckDB file (no page index) at page granularity;
 * {@code MetadataReader.read(source, List.of())} takes the file's declared sort key and own index.
 */
public final class MetadataReader {

    /** Footer key-value entry our writer records the sort key in (comma-separated names). */
    public static final String SORT_KEY_METADATA = "parquet-lookup.sort-key";

    private static final Logger LOG = LoggerFactory.getLogger(MetadataReader.class);

    private MetadataReader() {}

    /**
     * Reads the metadata of the file behind {@code source} with its own page index only.
     *
     * @param configuredSortKey the sort key the user declared, or empty to take the file's
     */
    public static FileMetadata read(RangeSource source, List<String> configuredSortKey)
            throws IOException {
        return read(source, configuredSortKey, PageIndexOptions.OWN);
    }

    /**
     * Reads the metadata of the file behind {@code source}, verified to be sorted.
     *
     * @param configuredSortKey the sort key the user declared, or empty to take the file's
     * @param pageIndex whether to synthesize a page index the file lacks
     * @throws LookupFileException if the file cannot serve lookups (the message says why)
     */
    public static FileMetadata read(
            RangeSource source, List<String> configuredSortKey, PageIndexOptions pageIndex)
            throws IOException {
        return read(source, schema -> configuredSortKey, pageIndex);
    }

    /**
     * Like {@link #read(RangeSource, List, PageIndexOptions)} with the sort key chosen once the
     * footer's schema is known: a table format that finds its key columns by field id or by a
     * physical name maps the table's key to the names in this file.
     *
     * @param sortKeyOf the configured sort key in the file with that schema (empty: the file's)
     */
    public static FileMetadata read(
            RangeSource source,
            Function<MessageType, List<String>> sortKeyOf,
            PageIndexOptions pageIndex)
            throws IOException {
        FileMetadata metadata = readUnverified(source, sortKeyOf, pageIndex);
        SortOrderCheck.verify(metadata);
        if (metadata.pageIndex().kind() == PageIndexOrigin.Kind.NONE && metadata.rowCount() > 0) {
            // Logged once per parse, and a file version is parsed once while it stays cached.
            LOG.warn(
                    "File {} has no page index for sort-key column '{}' (written by {}): lookups"
                            + " read whole column chunks of a row group. Rewrite it with 'prepare'"
                            + " for page-sized reads, or turn page-index synthesis on.",
                    metadata.file(),
                    metadata.sortKey().get(0),
                    metadata.createdBy());
        } else if (metadata.pageIndex().kind() == PageIndexOrigin.Kind.SYNTHESIZED) {
            LOG.info(
                    "File {} (written by {}) has no page index; {}",
                    metadata.file(),
                    metadata.createdBy(),
                    metadata.pageIndex().describe());
        }
        return metadata;
    }

    /**
     * Like {@link #read(RangeSource, List, PageIndexOptions)} but without the sort-order check, for
     * tools that report the verdict ({@link SortOrderCheck#firstViolation(FileMetadata)}) instead
     * of failing on it. Never serve lookups from the result unchecked.
     */
    public static FileMetadata readUnverified(
            RangeSource source, List<String> configuredSortKey, PageIndexOptions pageIndex)
            throws IOException {
        return readUnverified(source, schema -> configuredSortKey, pageIndex);
    }

    private static FileMetadata readUnverified(
            RangeSource source,
            Function<MessageType, List<String>> sortKeyOf,
            PageIndexOptions pageIndex)
            throws IOException {
        FooterReader.Footer footer = FooterReader.read(source);
        ParquetMetadata parquet = footer.metadata();
        MessageType schema = parquet.getFileMetaData().getSchema();
        String createdBy = parquet.getFileMetaData().getCreatedBy();
        SortKeyResolver.SortKey key =
                SortKeyResolver.resolve(
                        footer.file(), footer.thrift(), schema, createdBy, sortKeyOf.apply(schema));
        FileMetadata lazy =
                pageIndex.lazy() ? readLazily(source, footer, schema, createdBy, key) : null;
        if (lazy != null) {
            return lazy;
        }
        PageIndexReader own = PageIndexReader.read(source, footer, key.leaves());
        PageIndexBuilder builder =
                pageIndex.synthesize() && keysAreFlat(schema, key)
                        ? new PageIndexBuilder(source, pageIndex.decoder())
                        : null;
        Assembly assembly = new Assembly(footer.file(), schema, key, own, builder);
        List<RowGroupInfo> rowGroups = new ArrayList<>();
        List<Object> rgMins = new ArrayList<>();
        List<Object> rgMaxs = new ArrayList<>();
        long firstRow = 0;
        long retained = 256L + 64L * schema.getColumns().size();
        List<BlockMetaData> blocks = parquet.getBlocks();
        for (int r = 0; r < blocks.size(); r++) {
            BlockMetaData block = blocks.get(r);
            RowGroupInfo info = assembly.rowGroup(r, firstRow, block);
            Object[] bounds = assembly.rowGroupBounds(r, block);
            rgMins.add(bounds[0]);
            rgMaxs.add(bounds[1]);
            retained += info.retainedBytes();
            rowGroups.add(info);
            firstRow += block.getRowCount();
        }
        KeyRanges rowGroupKeys = KeyRanges.of(key.types().get(0), rgMins, rgMaxs);
        retained += rowGroupKeys.retainedBytes();
        FileMetadata withoutOrigin =
                new FileMetadata(
                        footer.file(),
                        schema,
                        firstRow,
                        List.copyOf(rowGroups),
                        key.columns(),
                        key.types(),
                        key.leaves(),
                        rowGroupKeys,
                        key.declared(),
                        createdBy,
                        retained,
                        PageIndexOrigin.none());
        PageIndexOrigin origin =
                assembly.synthesized
                        ? builder.origin()
                        : withoutOrigin.hasPageIndex()
                                ? PageIndexOrigin.own()
                                : PageIndexOrigin.none();
        return withoutOrigin.withPageIndex(origin);
    }

    /**
     * The metadata of a file whose footer references a complete own page index, with that index
     * left to be read row group by row group on first use ({@link RowGroupIndexes}); null for other
     * files. Reads nothing beyond the footer.
     */
    @Nullable
    private static FileMetadata readLazily(
            RangeSource source,
            FooterReader.Footer footer,
            MessageType schema,
            String createdBy,
            SortKeyResolver.SortKey key) {
        List<BlockMetaData> blocks = footer.metadata().getBlocks();
        Assembly assembly = new Assembly(footer.file(), schema, key, null, null);
        List<RowGroupInfo> rowGroups = new ArrayList<>(blocks.size());
        List<Object> rgMins = new ArrayList<>();
        List<Object> rgMaxs = new ArrayList<>();
        long firstRow = 0;
        for (int r = 0; r < blocks.size(); r++) {
            BlockMetaData block = blocks.get(r);
            rowGroups.add(assembly.footerRowGroup(r, firstRow, block));
            Object[] bounds = assembly.rowGroupBounds(r, block);
            rgMins.add(bounds[0]);
            rgMaxs.add(bounds[1]);
            firstRow += block.getRowCount();
        }
        LazyPageIndex index = LazyPageIndex.of(footer.file(), blocks, rowGroups, key).orElse(null);
        if (index == null) {
            return null;
        }
        KeyRanges rowGroupKeys = KeyRanges.of(key.types().get(0), rgMins, rgMaxs);
        long retained =
                256L
                        + 64L * schema.getColumns().size()
                        + index.retainedBytes()
                        + rowGroupKeys.retainedBytes();
        return new FileMetadata(
                footer.file(),
                schema,
                firstRow,
                new RowGroupIndexes(index, key.columns(), source, null),
                key.columns(),
                key.types(),
                key.leaves(),
                rowGroupKeys,
                key.declared(),
                createdBy,
                retained,
                PageIndexOrigin.own());
    }

    /** Sort-key columns must be flat for their pages to be walked (rows = values). */
    private static boolean keysAreFlat(MessageType schema, SortKeyResolver.SortKey key) {
        for (int leaf : key.leaves()) {
            if (schema.getColumns().get(leaf).getMaxRepetitionLevel() > 0) {
                return false;
            }
        }
        return true;
    }

    /** Builds the row groups of one file from its footer and page index (own or synthesized). */
    private static final class Assembly {
        private final FileId file;
        private final List<ColumnDescriptor> leaves;
        private final SortKeyResolver.SortKey key;
        @Nullable private final PageIndexReader own;
        @Nullable private final PageIndexBuilder builder;
        boolean synthesized;

        Assembly(
                FileId file,
                MessageType schema,
                SortKeyResolver.SortKey key,
                @Nullable PageIndexReader own,
                @Nullable PageIndexBuilder builder) {
            this.file = file;
            this.leaves = schema.getColumns();
            this.key = key;
            this.own = own;
            this.builder = builder;
        }

        /** Row group {@code r} as its footer describes it, without page locations. */
        RowGroupInfo footerRowGroup(int r, long firstRow, BlockMetaData block) {
            List<ColumnChunkMetaData> chunks = block.getColumns();
            checkChunks(r, chunks);
            ColumnChunkInfo[] columns = new ColumnChunkInfo[chunks.size()];
            for (int c = 0; c < chunks.size(); c++) {
                columns[c] = chunkInfo(chunks.get(c), null, null);
            }
            return new RowGroupInfo(
                    r, firstRow, block.getRowCount(), columns, new KeyRanges[key.leaves().length]);
        }

        private void checkChunks(int r, List<ColumnChunkMetaData> chunks) {
            long length = file.length();
            for (ColumnChunkMetaData chunk : chunks) {
                long start = chunk.getStartingPos();
                if (start < 4 || start + chunk.getTotalSize() > length) {
                    throw corrupt(
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

        RowGroupInfo rowGroup(int r, long firstRow, BlockMetaData block) throws IOException {
            List<ColumnChunkMetaData> chunks = block.getColumns();
            PageLocations[] pages = new PageLocations[chunks.size()];
            checkChunks(r, chunks);
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
                            : synthesize(r, block, pages, keyPages);
            ColumnChunkInfo[] columns = new ColumnChunkInfo[chunks.size()];
            for (int c = 0; c < chunks.size(); c++) {
                columns[c] = chunkInfo(chunks.get(c), pages[c], walked[c]);
            }
            return new RowGroupInfo(r, firstRow, block.getRowCount(), columns, keyPages);
        }

        /**
         * Walks the chunks of row group {@code r} whose page index is missing, filling {@code
         * pages} and {@code keyPages} in place.
         */
        private PageIndexBuilder.Chunk[] synthesize(
                int r, BlockMetaData block, PageLocations[] pages, KeyRanges[] keyPages)
                throws IOException {
            List<ColumnChunkMetaData> chunks = block.getColumns();
            boolean[] walk = new boolean[chunks.size()];
            KeyType[] keyTypeOfLeaf = new KeyType[chunks.size()];
            for (int k = 0; k < keyPages.length; k++) {
                int leaf = key.leaves()[k];
                keyTypeOfLeaf[leaf] = key.types().get(k);
                walk[leaf] |= keyPages[k] == null;
            }
            List<ColumnChunkMetaData> toWalk = new ArrayList<>();
            for (int c = 0; c < chunks.size(); c++) {
                walk[c] |= pages[c] == null && leaves.get(c).getMaxRepetitionLevel() == 0;
                if (walk[c]) {
                    toWalk.add(chunks.get(c));
                }
            }
            PageIndexBuilder.Chunk[] walked = new PageIndexBuilder.Chunk[chunks.size()];
            if (toWalk.isEmpty()) {
                return walked;
            }
            synthesized = true;
            builder.prefetch(toWalk);
            for (int c = 0; c < chunks.size(); c++) {
                if (!walk[c]) {
                    continue;
                }
                walked[c] =
                        builder.walk(
                                r,
                                leaves.get(c),
                                chunks.get(c),
                                block.getRowCount(),
                                keyTypeOfLeaf[c]);
                if (pages[c] == null) {
                    pages[c] = walked[c].pages();
                } else if (pages[c].pageCount() != walked[c].pages().pageCount()) {
                    throw corrupt(
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

        private static ColumnChunkInfo chunkInfo(
                ColumnChunkMetaData chunk,
                @Nullable PageLocations pages,
                @Nullable PageIndexBuilder.Chunk walked) {
            long dictionaryOffset = chunk.getDictionaryPageOffset();
            long dataOffset = chunk.getFirstDataPageOffset();
            long start = chunk.getStartingPos();
            boolean hasDictionary =
                    chunk.hasDictionaryPage()
                            && dictionaryOffset > 0
                            && dictionaryOffset < dataOffset;
            if (walked != null && walked.firstDataPageOffset() >= 0) {
                // The walk saw where the pages really are (some writers leave the footer's
                // dictionary offset at 0).
                dataOffset = walked.firstDataPageOffset();
                hasDictionary = walked.dictionaryOffset() >= 0;
                start = hasDictionary ? walked.dictionaryOffset() : start;
            }
            return new ColumnChunkInfo(
                    chunk.getCodec(),
                    start,
                    dataOffset,
                    chunk.getTotalSize(),
                    hasDictionary,
                    pages);
        }

        /** Row-group bounds of the leading key column: {@code {min, max}}, nulls for none. */
        Object[] rowGroupBounds(int r, BlockMetaData block) {
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
                            + " has no min/max statistics for"
                            + " sort-key column '"
                            + key.columns().get(0)
                            + "', so keys cannot be"
                            + " located. Rewrite the file with 'prepare' (statistics on).");
        }
    }

    static LookupFileException corrupt(FileId file, String why, Throwable cause) {
        return new LookupFileException(
                "File "
                        + file
                        + " is corrupt: "
                        + why
                        + ". Rewrite the file (for example with"
                        + " 'prepare').",
                cause);
    }
}
