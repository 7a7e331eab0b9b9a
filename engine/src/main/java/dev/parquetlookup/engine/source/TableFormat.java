package dev.parquetlookup.engine.source;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.engine.lookup.DeletedRows;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * A table format whose versions a {@link dev.parquetlookup.engine.table.RefreshingTable} can serve
 * (option {@code format}): it turns a table root into a {@link SnapshotSource} that lists the data
 * files of the table's current version. Implementations live outside the engine (module {@code
 * parquet-lookup-formats}) and are found with {@link ServiceLoader}, so the engine never depends on
 * a format's library and users who serve plain directories never carry one.
 *
 * <p>A format lists only versions the engine can serve exactly: rows a version deleted without
 * rewriting their files go with the listing ({@link DeletedRows}), and so does how each file
 * supplies the table's columns ({@link ColumnBinding}: by field id or physical name, absent, or a
 * partition value); anything else it cannot express is refused with a {@link LookupFileException}
 * that says what to do, never served with wrong rows.
 *
 * <p>Example: {@code TableFormat.find("iceberg").open("file:/warehouse/db/dim", Map.of(), store)}.
 */
public interface TableFormat {

    /** The built-in format: a directory of Parquet files ({@code path.snapshot-mode}). */
    String FILES = "files";

    /**
     * Option naming a fixed version to serve instead of following the newest (time travel): a Delta
     * version number, an Iceberg snapshot id. Every format reads it from the map {@link #open}
     * gets, under this key.
     */
    String SCAN_VERSION = "scan.version";

    /** The value of the {@code format} option that selects this format, lower case. */
    String name();

    /**
     * The prefix of this format's own options, e.g. {@code iceberg.} for {@code
     * iceberg.catalog.type}, or empty (the default) for a format without options of its own. A
     * connector accepts the options under it and passes them to {@link #open} as they are (with
     * {@link #SCAN_VERSION}), so it knows no format's keys.
     */
    default Optional<String> optionPrefix() {
        return Optional.empty();
    }

    /**
     * The versions of the table at {@code path}.
     *
     * @param path the table's root (its location)
     * @param hadoopOptions Hadoop configuration entries (the {@code hadoop.*} options, prefix
     *     removed), and the format's own options: those under {@link #optionPrefix()} and {@link
     *     #SCAN_VERSION}, as they are
     * @param store the table's file store (the format may list or stat through it)
     * @throws LookupFileException if {@code path} is not a table of this format
     */
    SnapshotSource open(String path, Map<String, String> hadoopOptions, FileStore store)
            throws IOException;

    /**
     * The format called {@code name} (case-insensitive) among those on the class path of the engine
     * or of the current thread's context class loader.
     *
     * @throws LookupFileException if there is none; the message lists the formats found and which
     *     jar adds the missing one
     */
    static TableFormat find(String name) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        List<TableFormat> found = available();
        for (TableFormat f : found) {
            if (f.name().equals(wanted)) {
                return f;
            }
        }
        List<String> names = new ArrayList<>();
        names.add(FILES);
        found.forEach(f -> names.add(f.name()));
        throw new LookupFileException(
                "Unknown table format '"
                        + name
                        + "'. Formats on the class path: "
                        + names
                        + ". The 'iceberg' and 'delta' formats are included in the SQL jar (and"
                        + " in java -jar of it); a Maven job adds the parquet-lookup-formats"
                        + " artifact beside the connector (docs/formats.md).");
    }

    /** Every format found on the class path (without the built-in {@link #FILES}). */
    static List<TableFormat> available() {
        Set<ClassLoader> loaders = new LinkedHashSet<>();
        loaders.add(TableFormat.class.getClassLoader());
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            loaders.add(context);
        }
        List<TableFormat> formats = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (ClassLoader loader : loaders) {
            for (TableFormat f : ServiceLoader.load(TableFormat.class, loader)) {
                if (seen.add(f.name())) {
                    formats.add(f);
                }
            }
        }
        return formats;
    }
}
