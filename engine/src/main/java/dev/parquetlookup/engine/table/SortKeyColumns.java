package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.source.SnapshotSource.Listing;
import dev.parquetlookup.metadata.LookupFileException;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a sort key against the columns a table format names (its {@link Listing#columns()}
 * bindings) before any file opens: a file of a column-mapped Delta table stores physical names
 * ({@code col-<uuid>}), so the file's own check would list those instead of the table's columns.
 *
 * <p>Example: {@code 'sort-key' = 'nope'} on a Delta table with columns {@code id, name} is refused
 * as "has no column 'nope' for the sort key [nope]; its columns are [id, name]".
 */
final class SortKeyColumns {

    private SortKeyColumns() {}

    /**
     * @throws LookupFileException.BadSortKey if a column of {@code sortKey} is none of the columns
     *     the listing's bindings name (nothing is checked for a listing without bindings: plain
     *     files are checked against their own schema)
     */
    static void check(List<String> sortKey, Listing listing) {
        Set<String> columns = new LinkedHashSet<>();
        for (ColumnBinding binding : listing.columns().values()) {
            binding.columns().forEach(c -> columns.add(c.name()));
        }
        if (columns.isEmpty()) {
            return;
        }
        for (String name : sortKey) {
            if (!columns.contains(name)) {
                throw new LookupFileException.BadSortKey(
                        "Table "
                                + listing.location()
                                + " ("
                                + listing.versionLabel()
                                + ") has no column '"
                                + name
                                + "' for the sort key "
                                + sortKey
                                + "; its columns are "
                                + columns
                                + ". Fix the 'sort-key' option (--key on the command line).");
            }
        }
    }
}
