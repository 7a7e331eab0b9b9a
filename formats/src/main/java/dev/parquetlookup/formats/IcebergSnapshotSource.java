package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The versions of one Iceberg table: each {@link #list} refreshes the table's metadata and lists
 * the data files of its current snapshot, named {@code "iceberg snapshot <id>"}.
 *
 * <p>What is served exactly and what is refused (a refused version is never served: the table keeps
 * its last good version, or does not open):
 *
 * <ul>
 *   <li>Appends, overwrites and deletes of whole files: served (the snapshot's live data files).
 *   <li>Partitioned tables: served. A column the file's spec partitions by identity is the file's
 *       partition value (a constant: a lookup key that fixes it skips the other partitions' files
 *       without reading them); other transforms (bucket, day, truncate) need nothing, since Iceberg
 *       writes their source columns into the data files.
 *   <li>Position deletes and deletion vectors (v3): applied; the deleted rows' positions go with
 *       their data file ({@link DeletedRows}), and the engine never returns them.
 *   <li>Equality deletes: refused (a lookup would have to read them all for every key); the message
 *       says to compact the table.
 *   <li>Schema changes: served by field id ({@link IcebergColumns}): a renamed column is found
 *       under its old name in older files, an added one reads as NULL from files written before, a
 *       dropped one is gone. A refresh whose schema renames or drops a column a running job reads
 *       is refused by the engine (plans name the columns), as for a directory.
 *   <li>Data files in ORC or Avro: refused.
 * </ul>
 *
 * <p>Data files are identified by location and size (their modification time is not read: Iceberg
 * never rewrites a data file in place, so the path and size identify its contents).
 */
final class IcebergSnapshotSource implements SnapshotSource {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergSnapshotSource.class);

    private final String path;
    private final Supplier<Table> loader;
    private final Configuration conf;

    /** The snapshot {@code scan.version} fixes, or null to follow the current one. */
    @Nullable private final Long fixed;

    /** The table as loaded when the source opened, for the first listing; then {@code null}. */
    @Nullable private Table opened;

    /**
     * The last successful listing; a snapshot never changes, so while it is current its manifests
     * need not be read again (only the metadata file is).
     */
    @Nullable private Listing last;

    private long lastSnapshotId;

    /**
     * @param path the table's root or catalog name, for messages
     * @param loader loads the table afresh (by location, or through a catalog)
     * @param opened the table as loaded at open
     * @param fixed the snapshot id to serve always (time travel), or null for the current one
     */
    IcebergSnapshotSource(
            String path,
            Supplier<Table> loader,
            Configuration conf,
            Table opened,
            @Nullable Long fixed) {
        this.path = path;
        this.loader = loader;
        this.conf = conf;
        this.opened = opened;
        this.fixed = fixed;
    }

    @Override
    public Listing list(@Nullable String servedLocation) throws IOException {
        // Loaded afresh each time (one read of version-hint.text and of the newest metadata file,
        // as a refresh would): a Table whose refresh once failed on a corrupt metadata file can
        // keep reporting its old snapshot after the file is repaired.
        if (fixed != null && last != null) {
            return last; // a fixed snapshot never changes
        }
        Table table = load();
        Snapshot snapshot = snapshotToServe(table);
        String version = "iceberg snapshot " + snapshot.snapshotId();
        if (last != null && lastSnapshotId == snapshot.snapshotId()) {
            return last;
        }
        Map<String, FileId> files = new LinkedHashMap<>();
        Map<FileId, DeletedRows> deleted = new HashMap<>();
        Map<FileId, ColumnBinding> columns = new HashMap<>();
        // A fixed snapshot is read with the schema it was written under (its column names).
        Schema schema =
                fixed == null || snapshot.schemaId() == null
                        ? table.schema()
                        : table.schemas().get(snapshot.schemaId());
        IcebergColumns binder = new IcebergColumns(schema, table.specs(), path, version);
        IcebergDeletes deletes = new IcebergDeletes(path, version, table.io(), conf);
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                checkServable(version, file, task.deletes());
                String location = file.location();
                FileId id = new FileId(location, file.fileSizeInBytes(), 0L);
                if (files.putIfAbsent(location, id) != null) {
                    continue;
                }
                columns.put(id, binder.of(file.specId(), file.partition()));
                if (!task.deletes().isEmpty()) {
                    DeletedRows rows = deletes.rowsOf(file, task.deletes());
                    if (!rows.isEmpty()) {
                        deleted.put(id, rows);
                    }
                }
            }
        } catch (LookupFileException e) {
            throw e;
        } catch (IOException | UncheckedIOException e) {
            throw new IOException(
                    "Cannot list the files of " + version + " of the Iceberg table at " + path, e);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot read the manifests of "
                            + version
                            + " of the Iceberg table at "
                            + path
                            + ": "
                            + ErrorClause.of(e)
                            + ". A manifest list or manifest of this snapshot is missing or"
                            + " corrupt (were files deleted by hand, or snapshots expired while"
                            + " this version was current?).",
                    e);
        }
        if (files.isEmpty()) {
            throw new LookupFileException(
                    version
                            + " of the Iceberg table at "
                            + path
                            + " has no data files (the table is empty). Commit data to it.");
        }
        List<FileId> sorted = new ArrayList<>(files.values());
        sorted.sort(Comparator.comparing(FileId::path));
        // The sort order's field ids are named as in the schema the files are read with (a
        // snapshot written before a sort column was renamed is sorted by its old name).
        List<String> sortKey =
                sortKey(
                        table.sortOrder(),
                        schema,
                        version
                                + " of the Iceberg table at "
                                + path
                                + (schema.schemaId() == table.schema().schemaId()
                                        ? ""
                                        : " (its schema " + schema.schemaId() + ")"));
        last = new Listing(table.location(), sorted, version, deleted, sortKey, columns);
        lastSnapshotId = snapshot.snapshotId();
        return last;
    }

    /** The table, loaded afresh (or the one opened to check the path, once). */
    private Table load() {
        Table table = opened;
        opened = null;
        try {
            return table != null ? table : loader.get();
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot read the metadata of the Iceberg table at "
                            + path
                            + ": "
                            + ErrorClause.of(e)
                            + ". Its newest metadata/v<N>.metadata.json is missing or corrupt;"
                            + " repair it (or roll version-hint.text back to a good version).",
                    e);
        }
    }

    /** The current snapshot, or the one {@code scan.version} fixes; refused when there is none. */
    private Snapshot snapshotToServe(Table table) {
        Snapshot snapshot = fixed == null ? table.currentSnapshot() : table.snapshot(fixed);
        if (snapshot == null && fixed != null) {
            throw new LookupFileException(
                    "The Iceberg table at "
                            + path
                            + " has no snapshot "
                            + fixed
                            + " ('scan.version'): it never existed or was expired. Give one of"
                            + " the table's snapshot ids (its snapshots metadata table), or leave"
                            + " 'scan.version' out to follow the current snapshot.");
        }
        if (snapshot == null) {
            throw new LookupFileException(
                    "The Iceberg table at "
                            + path
                            + " has no snapshot yet (it was created but nothing was committed)."
                            + " Commit its data first.");
        }
        return snapshot;
    }

    /**
     * The leading identity, ascending fields of {@code order} under their names in {@code schema},
     * e.g. {@code [region, id]} for {@code ORDER BY region, id, bucket(16, name)}: data sorted so
     * is sorted by that prefix. Empty for an unsorted table, or one whose order starts with a
     * transform or descends. A sort order names its columns by field id, so a snapshot written
     * before a sort column was renamed is sorted by that column's name in the snapshot's own
     * schema. A field id {@code schema} does not have (a column added after the snapshot was
     * written) ends the key there, and {@link #unresolved} says why.
     *
     * @param where names the snapshot and schema, for the log
     */
    static List<String> sortKey(SortOrder order, Schema schema, String where) {
        List<String> names = new ArrayList<>();
        for (SortField field : order.fields()) {
            if (!field.transform().isIdentity() || field.direction() != SortDirection.ASC) {
                break;
            }
            String name = schema.findColumnName(field.sourceId());
            if (name == null) {
                LOG.warn(unresolved(order, field.sourceId(), names, where));
                break;
            }
            if (name.contains(".")) {
                break;
            }
            names.add(name);
        }
        return names;
    }

    /** Why the sort order's field {@code fieldId} declares no sort-key column for {@code where}. */
    static String unresolved(SortOrder order, int fieldId, List<String> resolved, String where) {
        return "The sort order "
                + order.orderId()
                + " of the Iceberg table names field id "
                + fieldId
                + ", which is not a column of "
                + where
                + " (added after that snapshot was written, or dropped), so "
                + (resolved.isEmpty()
                        ? "the table's sort order declares no sort key for it"
                        : "only " + resolved + " of its sort order declares the sort key")
                + ". Set 'sort-key' (--key on the command line) to the columns the files of"
                + " that snapshot are sorted by.";
    }

    private void checkServable(String version, DataFile file, List<DeleteFile> deletes) {
        if (file.format() != FileFormat.PARQUET) {
            throw new LookupFileException(
                    version
                            + " of the Iceberg table at "
                            + path
                            + " has a data file in "
                            + file.format()
                            + " ("
                            + file.location()
                            + "); only Parquet data files can be point-read. Rewrite the table"
                            + " with 'write.format.default' = 'parquet'.");
        }
        for (DeleteFile delete : deletes) {
            if (delete.content() == FileContent.EQUALITY_DELETES) {
                throw new LookupFileException(
                        version
                                + " of the Iceberg table at "
                                + path
                                + " has equality deletes ("
                                + delete.location()
                                + " applies to "
                                + file.location()
                                + "). A point lookup cannot apply them without reading every"
                                + " equality-delete file for every key, so the version is"
                                + " refused. Compact the table so that no equality deletes"
                                + " remain (Spark: CALL system.rewrite_data_files(table =>"
                                + " '...', options => map('delete-file-threshold', '1')), or"
                                + " rewrite_position_delete_files after converting them), or"
                                + " write the table with position deletes or copy-on-write"
                                + " ('write.delete.mode' = 'copy-on-write').");
            }
        }
    }
}
