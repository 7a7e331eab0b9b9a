package dev.parquetlookup.engine.source;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a table's versions come from: each {@link #list} names the files of the newest version.
 * {@link dev.parquetlookup.engine.table.RefreshingTable} opens a snapshot on what it lists and
 * swaps it in when the listing changed; it never looks at how the versions are laid out.
 *
 * <p>Today's source is a directory ({@link #directory}): all its files, or its newest complete
 * snapshot subdirectory. A table format (an Iceberg snapshot, see {@link TableFormat}) is another
 * source that lists the files of its current version and names it ({@link Listing#version()}).
 *
 * <p>Example: {@code SnapshotSource.directory("s3a://b/dim/", SnapshotMode.LATEST_SUCCESS,
 * store).list(null)} lists the newest {@code _SUCCESS}-marked subdirectory of {@code dim/}.
 */
public interface SnapshotSource {

    /**
     * The files of the newest version.
     *
     * @param servedLocation the location of the version served now, or {@code null} when the table
     *     opens; a source may trust what it verified for that location before
     * @throws LookupFileException if there is no usable version (nothing at the path, no complete
     *     snapshot); the message says what to fix
     * @throws IOException if listing failed
     */
    Listing list(@Nullable String servedLocation) throws IOException;

    /**
     * One version: where it was read from (the path, the snapshot directory or the table root), its
     * files and, for a table format, the format's name of the version.
     *
     * <p>Example: {@code new Listing("file:/w/dim/v=0042", files)} is a directory's listing, which
     * its location names; a table format also gives the version's name ({@code "iceberg snapshot
     * 4713"}), deleted rows, a declared sort key and column bindings.
     *
     * @param location the directory the files were listed from, or the table's root
     * @param files the version's data files, sorted by path
     * @param version what the format calls this version (for logs and the {@code
     *     tableSourceVersion} metric), or {@code null} for a directory, whose location names it
     * @param deletedRows rows of {@code files} this version deleted without rewriting them (a Delta
     *     deletion vector, Iceberg position deletes); files absent from it have none
     * @param sortKey the sort key the format's metadata declares (an Iceberg sort order), used when
     *     the table's configuration gives none; empty when the format declares none. The files'
     *     order is verified from their statistics as for a configured key.
     * @param columns how each file supplies the table's columns (found by field id or physical
     *     name, absent, or a partition constant); files absent from it are read {@link
     *     ColumnBinding#BY_NAME}
     */
    record Listing(
            String location,
            List<FileId> files,
            @Nullable String version,
            Map<FileId, DeletedRows> deletedRows,
            List<String> sortKey,
            Map<FileId, ColumnBinding> columns) {
        public Listing {
            Objects.requireNonNull(location, "location");
            files = List.copyOf(files);
            deletedRows = Map.copyOf(deletedRows);
            sortKey = List.copyOf(sortKey);
            columns = Map.copyOf(columns);
        }

        /** A directory's listing: its location names the version. */
        public Listing(String location, List<FileId> files) {
            this(location, files, null, Map.of(), List.of(), Map.of());
        }

        /** The version's name for logs and metrics: the format's name, else the location. */
        public String versionLabel() {
            return version != null ? version : location;
        }
    }

    /**
     * The versions of a directory: with {@link SnapshotMode#ALL_FILES} every data file below {@code
     * path}, with {@link SnapshotMode#LATEST_SUCCESS} the newest subdirectory that holds a {@link
     * RefreshOptions#SUCCESS_MARKER}.
     *
     * @throws LookupFileException if {@code path} does not exist (latest-success checks it here)
     */
    static SnapshotSource directory(String path, SnapshotMode mode, FileStore store)
            throws IOException {
        return DirectorySnapshotSource.open(path, mode, store);
    }

    /**
     * The source {@code options.format()} names: {@link TableFormat#FILES} is a {@link #directory};
     * any other name is a {@link TableFormat} found on the class path.
     *
     * @throws LookupFileException if no format of that name is on the class path, or the path is
     *     not a table of that format
     */
    static SnapshotSource forOptions(
            String path, Map<String, String> hadoopOptions, RefreshOptions options, FileStore store)
            throws IOException {
        if (TableFormat.FILES.equals(options.format())) {
            return directory(path, options.snapshotMode(), store);
        }
        return TableFormat.find(options.format()).open(path, hadoopOptions, store);
    }
}
