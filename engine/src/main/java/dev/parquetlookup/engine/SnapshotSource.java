package dev.parquetlookup.engine;

import dev.parquetlookup.engine.RefreshOptions.SnapshotMode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * Where a table's versions come from: each {@link #list} names the files of the newest version.
 * {@link RefreshingTable} opens a snapshot on what it lists and swaps it in when the listing
 * changed; it never looks at how the versions are laid out.
 *
 * <p>Today's source is a directory ({@link #directory}): all its files, or its newest complete
 * snapshot subdirectory. A table format (a Delta version, an Iceberg snapshot) is another source
 * that lists the files of its current version.
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
     * One version: where it was read from (the path, or the snapshot directory) and its files.
     *
     * @param location the directory the files were listed from
     * @param files the version's data files, sorted by path
     */
    record Listing(String location, List<FileId> files) {
        public Listing {
            Objects.requireNonNull(location, "location");
            files = List.copyOf(files);
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
}
