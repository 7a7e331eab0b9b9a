package dev.parquetlookup.engine.source;

import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The versions of a directory (option {@code path.snapshot-mode}): all its data files, or its
 * newest complete snapshot subdirectory. Owns the listing rules and their error messages; holds no
 * state but the path's qualified name.
 */
final class DirectorySnapshotSource implements SnapshotSource {

    private final String path;
    private final SnapshotMode mode;

    /** Whether the first listing was checked for a Delta or Iceberg table's root. */
    private volatile boolean rootChecked;

    private final FileStore store;

    /** Latest-success: the path as the store names it (qualified), without a trailing slash. */
    @Nullable private final String qualifiedParent;

    private DirectorySnapshotSource(
            String path, SnapshotMode mode, FileStore store, @Nullable String qualifiedParent) {
        this.path = path;
        this.mode = mode;
        this.store = store;
        this.qualifiedParent = qualifiedParent;
    }

    static DirectorySnapshotSource open(String path, SnapshotMode mode, FileStore store)
            throws IOException {
        String parent = null;
        if (mode == SnapshotMode.LATEST_SUCCESS) {
            try {
                parent = trimSlash(store.stat(path).path());
            } catch (FileNotFoundException e) {
                throw missingPath(path, e);
            }
        }
        return new DirectorySnapshotSource(path, mode, store, parent);
    }

    @Override
    public Listing list(@Nullable String servedLocation) throws IOException {
        List<FileId> files;
        try {
            files = store.list(path);
        } catch (FileNotFoundException e) {
            throw missingPath(path, e);
        }
        if (!rootChecked) {
            // Once: whether a directory is a table's root does not change between refreshes.
            refuseTableRoot(path, TableRoots.formatOf(path, store, files));
            rootChecked = true;
        }
        if (mode == SnapshotMode.ALL_FILES) {
            if (files.isEmpty()) {
                throw new LookupFileException(
                        "Path "
                                + path
                                + " holds no Parquet files (hidden and '_' files are skipped)."
                                + " Check the table's 'path'.");
            }
            return new Listing(path, files);
        }
        return newestComplete(files, servedLocation);
    }

    /** Latest-success: the files grouped by the directory right below the parent, newest first. */
    private Listing newestComplete(List<FileId> files, @Nullable String servedLocation)
            throws IOException {
        String prefix = qualifiedParent + "/";
        TreeMap<String, List<FileId>> byDirectory = new TreeMap<>(NaturalOrder.INSTANCE);
        for (FileId f : files) {
            if (!f.path().startsWith(prefix)) {
                continue;
            }
            String rest = f.path().substring(prefix.length());
            int slash = rest.indexOf('/');
            if (slash > 0) {
                byDirectory
                        .computeIfAbsent(rest.substring(0, slash), d -> new ArrayList<>())
                        .add(f);
            }
        }
        List<String> incomplete = new ArrayList<>();
        for (Map.Entry<String, List<FileId>> e : byDirectory.descendingMap().entrySet()) {
            String directory = prefix + e.getKey();
            if (directory.equals(servedLocation)) {
                return new Listing(directory, e.getValue()); // known complete
            }
            try {
                store.stat(directory + "/" + RefreshOptions.SUCCESS_MARKER);
            } catch (FileNotFoundException notYet) {
                incomplete.add(e.getKey());
                continue;
            }
            // Listed again after the marker was seen: the parent's listing may predate files
            // written just before the marker.
            return new Listing(directory, store.list(directory));
        }
        throw new LookupFileException(
                "No complete snapshot directory under "
                        + path
                        + ": path.snapshot-mode 'latest-success' serves the newest subdirectory"
                        + " holding a "
                        + RefreshOptions.SUCCESS_MARKER
                        + " file, and "
                        + (incomplete.isEmpty()
                                ? "there is no subdirectory with Parquet files"
                                : "none of " + incomplete + " has one")
                        + ". Write the marker last when publishing a snapshot.");
    }

    private static void refuseTableRoot(String path, @Nullable String format) {
        if (format != null) {
            throw new LookupFileException(
                    TableRoots.describe(path, format)
                            + " Read it as a table: 'format' = '"
                            + format
                            + "' (command line: --format "
                            + format
                            + ").");
        }
    }

    private static LookupFileException missingPath(String path, FileNotFoundException e) {
        return new LookupFileException(
                "Path " + path + " does not exist. Check the table's 'path'.", e);
    }

    private static String trimSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
