package dev.parquetlookup.engine.source;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;

import javax.annotation.Nullable;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;

/**
 * Tells a Delta or Iceberg table's root from a directory of Parquet files. A table's root holds
 * every data file any of its versions wrote until they are vacuumed or expired, and its deletes
 * live in its metadata: read as plain files it answers with rows the table no longer holds, so
 * every reader of plain files (SQL's {@code 'format' = 'files'}, the command line's {@code --format
 * files}, {@code prepare}) refuses such a root and names the format to use.
 */
public final class TableRoots {

    private static final String DELTA_LOG = "_delta_log";
    private static final String ICEBERG_METADATA_DIR = "/metadata";
    private static final String ICEBERG_METADATA_SUFFIX = ".metadata.json";

    private TableRoots() {}

    /**
     * The format of the table rooted at {@code path}, or null for plain files: {@code delta} when
     * {@code path} holds a {@code _delta_log}, {@code iceberg} when the listing has a {@code
     * metadata/*.metadata.json}. The log's name starts with '_', so listings never show it: for a
     * directory this costs one status request (none for a single file).
     *
     * @param files {@code path}'s listing (hidden and '_' names skipped)
     */
    @Nullable
    public static String formatOf(String path, FileStore store, List<FileId> files)
            throws IOException {
        String iceberg = icebergMetadata(files);
        if (iceberg != null || isSingleFile(path, files)) {
            return iceberg; // a file has no _delta_log below it: no request for it
        }
        return deltaLog(path, store);
    }

    /** Whether {@code path} names one file (its listing is that file), not a directory. */
    private static boolean isSingleFile(String path, List<FileId> files) {
        if (files.size() != 1) {
            return false;
        }
        String name = trimSlash(path);
        name = name.substring(name.lastIndexOf('/') + 1);
        return files.get(0).fileName().equals(name);
    }

    /** The sentence that says what {@code path} is and why its files are not the table. */
    public static String describe(String path, String format) {
        return "Path "
                + path
                + " is the root of "
                + (format.equals("delta")
                        ? "a Delta table (it holds _delta_log/)"
                        : "an Iceberg" + " table (it holds metadata/*.metadata.json)")
                + ": its Parquet files are not the table (files that later versions removed stay"
                + " until they are vacuumed or expired, and deletes live in the table's"
                + " metadata), so reading them as plain files could return rows the table no"
                + " longer holds.";
    }

    @Nullable
    private static String deltaLog(String path, FileStore store) throws IOException {
        try {
            store.stat(trimSlash(path) + "/" + DELTA_LOG);
            return "delta";
        } catch (FileNotFoundException notDelta) {
            return null;
        }
    }

    @Nullable
    private static String icebergMetadata(List<FileId> files) {
        for (FileId f : files) {
            String p = f.path();
            int slash = p.lastIndexOf('/');
            if (p.endsWith(ICEBERG_METADATA_SUFFIX)
                    && slash >= ICEBERG_METADATA_DIR.length()
                    && p.startsWith(ICEBERG_METADATA_DIR, slash - ICEBERG_METADATA_DIR.length())) {
                return "iceberg";
            }
        }
        return null;
    }

    private static String trimSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
