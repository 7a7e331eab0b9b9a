package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import org.apache.parquet.schema.MessageType;

import java.util.List;

/**
 * Everything a lookup needs from one file's footer and page index, parsed once and immutable.
 *
 * @param file the file version
 * @param schema the Parquet schema
 * @param rowCount rows in the file
 * @param rowGroups the row groups, in file order
 * @param sortKey the sort-key column names, verified against the statistics
 * @param keyTypes how each sort-key column compares
 * @param keyLeaves the leaf column index of each sort-key column
 * @param rowGroupKeys bounds of the leading sort-key column per row group (entries are row-group
 *     ordinals; row groups without keys are absent)
 * @param declaredSortKey the sort order the file declares ({@code sorting_columns} or the writer's
 *     key-value entry), empty if none
 * @param createdBy the writer, for messages
 * @param retainedBytes approximate heap size, for the cache's weigher
 */
public record FileMetadata(
        FileId file,
        MessageType schema,
        long rowCount,
        List<RowGroupInfo> rowGroups,
        List<String> sortKey,
        List<KeyType> keyTypes,
        int[] keyLeaves,
        KeyRanges rowGroupKeys,
        List<String> declaredSortKey,
        String createdBy,
        long retainedBytes) {

    /** Whether every row group has a page index for the leading key column. */
    public boolean hasPageIndex() {
        for (RowGroupInfo rg : rowGroups) {
            if (!rg.hasPageIndex(keyLeaves[0])) {
                return false;
            }
        }
        return true;
    }
}
