package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.LookupFileException;

import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.exceptions.TableNotFoundException;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.deletionvectors.DeletionVectorStoredBitmap;
import io.delta.kernel.internal.util.ColumnMapping;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The versions of one Delta table: each {@link #list} reads the table's log through the Delta
 * kernel and lists the active data files of its latest version, named {@code "delta version <n>"}.
 *
 * <p>What is served exactly and what is refused (a refused version is never served: the table keeps
 * its last good version, or does not open):
 *
 * <ul>
 *   <li>Appends, overwrites, deletes of whole files: served (the version's active files).
 *   <li>Deletion vectors: applied; the deleted rows' positions go with their file ({@link
 *       DeletedRows}), and the engine never returns them.
 *   <li>Column mapping {@code name} and {@code id}, renamed and added columns: served ({@link
 *       DeltaColumns}): columns are found by physical name or field id; added ones read as NULL
 *       from older files.
 *   <li>Partitioned tables: served; a partition column (not in the data files) is the file's
 *       partition value from the log, and a lookup key that fixes it skips the other partitions'
 *       files without reading them.
 *   <li>Type widening: refused (files written before a widening hold the narrower type).
 * </ul>
 *
 * <p>Data files are identified by path, size and the modification time the log records: Delta never
 * rewrites a data file in place, so an unchanged file keeps its cached metadata and pages across
 * versions, also when a new deletion vector is attached to it.
 */
final class DeltaSnapshotSource implements SnapshotSource {

    private static final String PREFIX = "delta version ";

    private final String path;
    private final Engine engine;
    private final Table table;

    /** The last listing; a version never changes, so while it is the latest it is reused. */
    @Nullable private Listing last;

    private long lastVersion = -1;

    /** The version {@code scan.version} fixes, or null to follow the latest one. */
    @Nullable private final Long fixed;

    DeltaSnapshotSource(String path, Engine engine, @Nullable Long fixed) {
        this.path = path;
        this.engine = engine;
        this.table = Table.forPath(engine, path);
        this.fixed = fixed;
    }

    /** The table's latest version, checked to be servable. */
    SnapshotImpl latest() {
        Snapshot snapshot;
        try {
            snapshot =
                    fixed == null
                            ? table.getLatestSnapshot(engine)
                            : table.getSnapshotAsOfVersion(engine, fixed);
        } catch (TableNotFoundException e) {
            throw new LookupFileException(
                    "Path "
                            + path
                            + " is not a Delta table: it has no _delta_log/ with a commit or"
                            + " checkpoint. Point 'path' at the table's root, or use 'format' ="
                            + " 'files' for a directory of Parquet files.",
                    e);
        } catch (RuntimeException e) {
            if (fixed != null) {
                throw new LookupFileException(
                        "Cannot read version "
                                + fixed
                                + " ('scan.version') of the Delta table at "
                                + path
                                + ": "
                                + ErrorClause.of(e)
                                + ". The version does not exist (yet), or its log was cleaned up;"
                                + " give a version the log still holds, or leave 'scan.version'"
                                + " out to follow the latest version.",
                        e);
            }
            throw new LookupFileException(
                    "Cannot read the log of the Delta table at "
                            + path
                            + ": "
                            + ErrorClause.of(e)
                            + ". A commit (_delta_log/<n>.json) or checkpoint is missing or"
                            + " corrupt, or the table uses a feature the Delta kernel cannot"
                            + " read; repair the log (or restore the missing file).",
                    e);
        }
        SnapshotImpl impl = (SnapshotImpl) snapshot;
        checkServable(impl, PREFIX + impl.getVersion());
        return impl;
    }

    @Override
    public Listing list(@Nullable String servedLocation) throws IOException {
        if (fixed != null && last != null) {
            return last; // a fixed version never changes
        }
        SnapshotImpl snapshot = latest();
        long version = snapshot.getVersion();
        if (last != null && version == lastVersion) {
            return last;
        }
        String label = PREFIX + version;
        String root = table.getPath(engine);
        Map<String, FileId> files = new LinkedHashMap<>();
        Map<FileId, DeletedRows> deleted = new HashMap<>();
        Map<FileId, ColumnBinding> columns = new HashMap<>();
        DeltaColumns binder =
                new DeltaColumns(
                        snapshot.getSchema(),
                        ColumnMapping.getColumnMappingMode(
                                snapshot.getMetadata().getConfiguration()),
                        snapshot.getPartitionColumnNames(),
                        path,
                        label);
        try (CloseableIterator<FilteredColumnarBatch> batches =
                snapshot.getScanBuilder().build().getScanFiles(engine)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    while (rows.hasNext()) {
                        Row row = rows.next();
                        FileStatus status = InternalScanFileUtils.getAddFileStatus(row);
                        FileId id =
                                new FileId(
                                        status.getPath(),
                                        status.getSize(),
                                        status.getModificationTime());
                        files.put(id.path(), id);
                        columns.put(id, binder.of(InternalScanFileUtils.getPartitionValues(row)));
                        DeletionVectorDescriptor dv =
                                InternalScanFileUtils.getDeletionVectorDescriptorFromRow(row);
                        if (dv != null) {
                            deleted.put(id, deletedRows(label, root, id, dv));
                        }
                    }
                }
            }
        } catch (LookupFileException e) {
            throw e;
        } catch (IOException | UncheckedIOException e) {
            throw new IOException(
                    "Cannot list the files of " + label + " of the Delta table at " + path, e);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot read the log of "
                            + label
                            + " of the Delta table at "
                            + path
                            + ": "
                            + ErrorClause.of(e)
                            + ". A commit or checkpoint of this version is missing or corrupt.",
                    e);
        }
        if (files.isEmpty()) {
            throw new LookupFileException(
                    label
                            + " of the Delta table at "
                            + path
                            + " has no data files (the table is empty). Commit data to it.");
        }
        List<FileId> sorted = new ArrayList<>(files.values());
        sorted.sort(Comparator.comparing(FileId::path));
        last = new Listing(root, sorted, label, deleted, List.of(), columns);
        lastVersion = version;
        return last;
    }

    /** The rows {@code dv} deletes from {@code file}, read through the kernel. */
    private DeletedRows deletedRows(
            String label, String root, FileId file, DeletionVectorDescriptor dv) {
        // Kernel 4.0's isInline() compares the storage type with '==': a descriptor read from the
        // log holds a non-interned "i" and an inline vector would be taken for a file path.
        DeletionVectorDescriptor descriptor =
                new DeletionVectorDescriptor(
                        dv.getStorageType().intern(),
                        dv.getPathOrInlineDv(),
                        dv.getOffset(),
                        dv.getSizeInBytes(),
                        dv.getCardinality());
        try {
            long[] positions =
                    new DeletionVectorStoredBitmap(descriptor, Optional.of(root))
                            .load(engine.getFileSystemClient())
                            .toArray();
            if (positions.length != dv.getCardinality()) {
                throw new IOException(
                        "it holds "
                                + positions.length
                                + " row(s), the log says "
                                + dv.getCardinality());
            }
            return DeletedRows.of(positions);
        } catch (IOException | RuntimeException e) {
            throw new LookupFileException(
                    label
                            + " of the Delta table at "
                            + path
                            + ": cannot read the deletion vector of "
                            + file.path()
                            + " ("
                            + (descriptor.isInline() ? "inline" : descriptor.getAbsolutePath(root))
                            + "): "
                            + ErrorClause.of(e)
                            + ". The version would return deleted rows without it, so it is not"
                            + " served; restore the deletion vector file.",
                    e);
        }
    }

    private void checkServable(SnapshotImpl snapshot, String label) {
        Set<String> features = snapshot.getProtocol().getReaderFeatures();
        if (features.contains("typeWidening") || features.contains("typeWidening-preview")) {
            throw refused(
                    label,
                    "it uses type widening, so files written before a widening hold the narrower"
                            + " type",
                    "Rewrite all data files (e.g. REORG TABLE ... APPLY (PURGE)) and drop the"
                            + " feature");
        }
        // Column mapping (none, name, id) and partition columns are served: see DeltaColumns.
    }

    private LookupFileException refused(String label, String why, String fix) {
        return new LookupFileException(
                label
                        + " of the Delta table at "
                        + path
                        + " cannot be served: "
                        + why
                        + ". "
                        + fix
                        + ".");
    }
}
