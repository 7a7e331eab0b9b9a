package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.SnapshotSource.Listing;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * The store as one snapshot sees it: the listing already made (so the snapshot opens exactly the
 * files that were compared with the last one), and closing it leaves the table's shared store open.
 */
final class SnapshotStore extends ForwardingFileStore {

    private final Listing listing;

    private SnapshotStore(FileStore delegate, Listing listing) {
        super(delegate);
        this.listing = listing;
    }

    /** Opens the snapshot {@code version} of the files {@code listing} names. */
    static Snapshot open(
            TableConfig config,
            FileStore store,
            ReadStatistics statistics,
            Listing listing,
            long version)
            throws IOException {
        TableConfig snapshotConfig = config.withPath(listing.location());
        if (snapshotConfig.sortKey().isEmpty() && !listing.sortKey().isEmpty()) {
            // The format's declared order (an Iceberg sort order), verified like a configured key.
            snapshotConfig = snapshotConfig.withSortKey(listing.sortKey());
        }
        // Rows the version deleted without rewriting their files (deletion vectors, position
        // deletes) are never returned; each file supplies the table's columns as its binding
        // says (renamed, added and partition columns).
        SortKeyColumns.check(snapshotConfig.sortKey(), listing);
        DimensionTable table =
                DimensionTable.open(
                        snapshotConfig,
                        new SnapshotStore(store, listing),
                        statistics,
                        listing.deletedRows(),
                        listing.columns());
        return new Snapshot(
                table,
                version,
                listing.location(),
                listing.versionLabel(),
                Set.copyOf(listing.files()),
                config.metadataCache(),
                config.pageCache());
    }

    @Override
    public List<FileId> list(String path) throws IOException {
        return path.equals(listing.location()) ? listing.files() : super.list(path);
    }

    @Override
    public void close() {}
}
