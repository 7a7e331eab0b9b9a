package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.SortKeyResolver.KeyNames;

import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a file's metadata into a {@link FileMetadata}: the footer ({@link FooterReader}), the sort
 * key ({@link SortKeyResolver}), the row groups as the footer describes them ({@link
 * FooterRowGroups}) and their page index, then checks the sort order ({@link SortOrderCheck}).
 * Stateless. The page index is either left to be built per row group on first use ({@link
 * RowGroupIndexes}: the file's own complete index, {@link LazyPageIndex}, or none at all,
 * synthesized from page headers, {@link LazySynthesis}), or read at open ({@link RowGroupAssembly}:
 * own, partial own completed by synthesis, or synthesized).
 *
 * <p>Example: {@code MetadataReader.read(source, List.of("id"),
 * PageIndexOptions.synthesized(decoder).lazily())} opens a DuckDB file (no page index) from its
 * footer alone and serves it at page granularity; {@code MetadataReader.read(source, List.of())}
 * takes the file's declared sort key and own index, read at open.
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
        return read(source, schema -> KeyNames.same(configuredSortKey), pageIndex);
    }

    /**
     * Like {@link #read(RangeSource, List, PageIndexOptions)} with the sort key chosen once the
     * footer's schema is known: a table format that finds its key columns by field id or by a
     * physical name maps the table's key to the names in this file.
     *
     * @param sortKeyOf the configured sort key in the file with that schema (empty: the file's),
     *     with the table's names of its columns for messages
     */
    public static FileMetadata read(
            RangeSource source,
            Function<MessageType, KeyNames> sortKeyOf,
            PageIndexOptions pageIndex)
            throws IOException {
        FileMetadata metadata = readUnverified(source, sortKeyOf, pageIndex, true);
        SortOrderCheck.verify(metadata);
        logPageIndex(metadata);
        return metadata;
    }

    /**
     * Like {@link #read(RangeSource, Function, PageIndexOptions)} for a file served through a key
     * index instead of its sort order: nothing is checked sorted, neither at open nor when a row
     * group's page index is read lazily. The key's statistics still bound the file's keys.
     */
    public static FileMetadata readForIndex(
            RangeSource source,
            Function<MessageType, List<String>> sortKeyOf,
            PageIndexOptions pageIndex)
            throws IOException {
        FileMetadata metadata =
                readUnverified(
                        source, schema -> KeyNames.same(sortKeyOf.apply(schema)), pageIndex, false);
        logPageIndex(metadata);
        return metadata;
    }

    private static void logPageIndex(FileMetadata metadata) {
        if (metadata.pageIndex().kind() == PageIndexOrigin.Kind.NONE && metadata.rowCount() > 0) {
            // Logged once per parse, and a file version is parsed once while it stays cached.
            LOG.warn(
                    "File {} has no page index for sort-key column '{}' (written by {}): lookups"
                            + " read whole column chunks of a row group. Turn page-index synthesis"
                            + " on, or rewrite it with 'prepare' for page-sized reads"
                            + LookupFileException.PLAIN_FILES_ONLY
                            + ".",
                    metadata.file(),
                    metadata.sortKey().get(0),
                    metadata.createdBy());
        } else if (metadata.pageIndex().onFirstUse()) {
            LOG.info(
                    "File {} (written by {}) has no page index; it is synthesized from page"
                            + " headers row group by row group, on the first lookup into each",
                    metadata.file(),
                    metadata.createdBy());
        } else if (metadata.pageIndex().kind() == PageIndexOrigin.Kind.SYNTHESIZED) {
            LOG.info(
                    "File {} (written by {}) has no page index; {}",
                    metadata.file(),
                    metadata.createdBy(),
                    metadata.pageIndex().describe());
        }
    }

    /**
     * Like {@link #read(RangeSource, List, PageIndexOptions)} but without the sort-order check, for
     * tools that report the verdict ({@link SortOrderCheck#firstViolation(FileMetadata)}) instead
     * of failing on it. Never serve lookups from the result unchecked.
     */
    public static FileMetadata readUnverified(
            RangeSource source, List<String> configuredSortKey, PageIndexOptions pageIndex)
            throws IOException {
        return readUnverified(source, schema -> KeyNames.same(configuredSortKey), pageIndex, true);
    }

    private static FileMetadata readUnverified(
            RangeSource source,
            Function<MessageType, KeyNames> sortKeyOf,
            PageIndexOptions pageIndex,
            boolean checkOrder)
            throws IOException {
        FooterReader.Footer footer = FooterReader.read(source);
        ParquetMetadata parquet = footer.metadata();
        MessageType schema = parquet.getFileMetaData().getSchema();
        String createdBy = parquet.getFileMetaData().getCreatedBy();
        SortKeyResolver.SortKey key =
                SortKeyResolver.resolve(
                        footer.file(), footer.thrift(), schema, createdBy, sortKeyOf.apply(schema));
        List<BlockMetaData> blocks = parquet.getBlocks();
        FooterRowGroups rows = FooterRowGroups.read(footer.file(), key, blocks);
        boolean synthesize = pageIndex.synthesize() && keysAreFlat(schema, key);
        RowGroupIndexes.Plan lazy =
                pageIndex.lazy()
                        ? lazyPlan(footer, schema, key, rows, synthesize, pageIndex, checkOrder)
                        : null;
        long retained =
                256L + 64L * schema.getColumns().size() + rows.rowGroupKeys().retainedBytes();
        List<RowGroupInfo> rowGroups;
        PageIndexOrigin origin = null;
        if (lazy != null) {
            retained += lazy.retainedBytes();
            rowGroups = new RowGroupIndexes(lazy, key.columns(), source, null);
            origin =
                    lazy instanceof LazySynthesis
                            ? PageIndexOrigin.synthesizedOnFirstUse()
                            : PageIndexOrigin.own();
        } else {
            RowGroupAssembly assembly =
                    new RowGroupAssembly(
                            footer.file(),
                            schema.getColumns(),
                            key,
                            PageIndexReader.read(source, footer, key.leaves()),
                            synthesize ? new PageIndexBuilder(source, pageIndex.decoder()) : null);
            List<RowGroupInfo> assembled = new ArrayList<>(blocks.size());
            for (int r = 0; r < blocks.size(); r++) {
                RowGroupInfo info = assembly.rowGroup(rows.rowGroups().get(r), blocks.get(r));
                retained += info.retainedBytes();
                assembled.add(info);
            }
            rowGroups = List.copyOf(assembled);
            if (assembly.synthesized()) {
                origin = assembly.synthesisCost();
            }
        }
        FileMetadata metadata =
                new FileMetadata(
                        footer.file(),
                        schema,
                        rows.rowCount(),
                        rowGroups,
                        key.columns(),
                        key.names(),
                        key.types(),
                        key.leaves(),
                        rows.rowGroupKeys(),
                        key.declared(),
                        createdBy,
                        retained,
                        PageIndexOrigin.none());
        if (origin == null) {
            origin = metadata.hasPageIndex() ? PageIndexOrigin.own() : PageIndexOrigin.none();
        }
        return metadata.withPageIndex(origin);
    }

    /**
     * How the row groups get their page index on first use: the file's own complete index read row
     * group by row group, or (a file without any) synthesized the same way; null when it is read or
     * built at open (a partial own index, synthesis off or at open). Reads nothing.
     */
    @Nullable
    private static RowGroupIndexes.Plan lazyPlan(
            FooterReader.Footer footer,
            MessageType schema,
            SortKeyResolver.SortKey key,
            FooterRowGroups rows,
            boolean synthesize,
            PageIndexOptions pageIndex,
            boolean checkOrder) {
        List<BlockMetaData> blocks = footer.metadata().getBlocks();
        Optional<LazyPageIndex> own =
                LazyPageIndex.of(footer.file(), blocks, rows.rowGroups(), key, checkOrder);
        if (own.isPresent()) {
            return own.get();
        }
        if (!synthesize || !pageIndex.synthesizeLazily()) {
            return null;
        }
        return LazySynthesis.of(
                        footer.file(),
                        schema.getColumns(),
                        blocks,
                        rows,
                        key,
                        pageIndex.decoder(),
                        checkOrder)
                .orElse(null);
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

    static LookupFileException corrupt(FileId file, String why, Throwable cause) {
        return new LookupFileException(
                "File "
                        + file
                        + " is corrupt: "
                        + why
                        + ". Rewrite the file (for example with"
                        + " 'prepare')"
                        + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                        + ".",
                cause);
    }
}
