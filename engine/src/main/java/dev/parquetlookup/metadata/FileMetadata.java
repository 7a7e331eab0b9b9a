package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.schema.MessageType;

import javax.annotation.Nullable;

import java.util.List;

/**
 * Everything a lookup needs from one file's footer and page index, parsed once and immutable. A
 * file's own complete page index is read lazily, and a missing one synthesized lazily ({@link
 * #rowGroupIndexes()}): opening a file reads its footer only.
 *
 * @param file the file version
 * @param schema the Parquet schema
 * @param rowCount rows in the file
 * @param rowGroups the row groups, in file order; a {@link RowGroupIndexes} when the page index is
 *     read lazily, row group by row group on first use
 * @param sortKey the sort-key column names, verified against the statistics
 * @param keyNames the sort-key columns' names in messages: the table's where a table format names
 *     them otherwise in the file (a column-mapped Delta file's {@code col-<uuid>}), else {@code
 *     sortKey}
 * @param keyTypes how each sort-key column compares
 * @param keyLeaves the leaf column index of each sort-key column
 * @param rowGroupKeys bounds of the leading sort-key column per row group (entries are row-group
 *     ordinals; row groups without keys are absent)
 * @param declaredSortKey the sort order the file declares ({@code sorting_columns} or the writer's
 *     key-value entry), empty if none
 * @param createdBy the writer, for messages
 * @param retainedBytes approximate heap size, for the cache's weigher
 * @param pageIndex where the page index came from (own, synthesized, none) and its cost
 */
public record FileMetadata(
        FileId file,
        MessageType schema,
        long rowCount,
        List<RowGroupInfo> rowGroups,
        List<String> sortKey,
        List<String> keyNames,
        List<KeyType> keyTypes,
        int[] keyLeaves,
        KeyRanges rowGroupKeys,
        List<String> declaredSortKey,
        String createdBy,
        long retainedBytes,
        PageIndexOrigin pageIndex) {

    /** This metadata with {@code origin} as its page index's origin. */
    public FileMetadata withPageIndex(PageIndexOrigin origin) {
        return with(rowGroups, origin);
    }

    /**
     * The row groups with a lazily read page index, or null when the page index was read at open
     * (synthesized, partial or none). Its {@code get} reads a row group's index on first use.
     */
    @Nullable
    public RowGroupIndexes rowGroupIndexes() {
        return rowGroups instanceof RowGroupIndexes r ? r : null;
    }

    /**
     * How the row groups' page index is read or synthesized when that happens lazily, else null.
     */
    @Nullable
    public RowGroupIndexes.Plan lazyPageIndex() {
        RowGroupIndexes r = rowGroupIndexes();
        return r == null ? null : r.index();
    }

    /**
     * Row group {@code r} as far as it is known without reading a lazily read page index: codecs,
     * offsets, row counts (its page locations and key page bounds may be null).
     */
    public RowGroupInfo footerRowGroup(int r) {
        RowGroupIndexes.Plan lazy = lazyPageIndex();
        return lazy == null ? rowGroups.get(r) : lazy.footerRowGroup(r);
    }

    /**
     * This metadata reading its lazily read page index through {@code source} into {@code cache}
     * (each open file binds the shared, cached metadata to its own source); itself otherwise.
     */
    public FileMetadata bind(RangeSource source, MetadataCache cache) {
        RowGroupIndexes r = rowGroupIndexes();
        return r == null ? this : with(r.bind(source, cache), pageIndex);
    }

    private FileMetadata with(List<RowGroupInfo> groups, PageIndexOrigin origin) {
        return new FileMetadata(
                file,
                schema,
                rowCount,
                groups,
                sortKey,
                keyNames,
                keyTypes,
                keyLeaves,
                rowGroupKeys,
                declaredSortKey,
                createdBy,
                retainedBytes,
                origin);
    }

    /**
     * Whether every row group has a page index for the leading key column (a lazily read one is
     * known to be complete from the footer's references).
     */
    public boolean hasPageIndex() {
        if (lazyPageIndex() != null) {
            return true;
        }
        for (RowGroupInfo rg : rowGroups) {
            if (!rg.hasPageIndex(keyLeaves[0])) {
                return false;
            }
        }
        return true;
    }
}
