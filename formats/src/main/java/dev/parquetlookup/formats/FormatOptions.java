package dev.parquetlookup.formats;

import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * The options a table format receives beside the table's path, in the one map the engine hands it
 * ({@link dev.parquetlookup.engine.source.TableFormat#open}): Hadoop entries (the {@code hadoop.*}
 * options, prefix removed), the format's own entries under their prefix ({@code iceberg.catalog.*}:
 * an Iceberg catalog's properties) and {@code scan.version}, a fixed version to serve (time
 * travel). Example: {@code {"fs.s3a.endpoint": "...", "iceberg.catalog.type": "jdbc",
 * "iceberg.catalog.uri": "jdbc:h2:/srv/catalog", "scan.version": "4713"}}.
 */
final class FormatOptions {

    /** A fixed version: a Delta version, an Iceberg snapshot id. */
    static final String SCAN_VERSION = "scan.version";

    /** Properties of an Iceberg catalog (Iceberg's own names: type, uri, warehouse, jdbc.*). */
    static final String ICEBERG_CATALOG = "iceberg.catalog.";

    private FormatOptions() {}

    /** The Hadoop configuration: every entry that is not a format's own. */
    static Configuration hadoop(Map<String, String> options) {
        Configuration conf = new Configuration();
        options.forEach(
                (k, v) -> {
                    if (!k.startsWith("iceberg.")
                            && !k.startsWith("delta.")
                            && !k.equals(SCAN_VERSION)) {
                        conf.set(k, v);
                    }
                });
        return conf;
    }

    /** The entries under {@code prefix}, the prefix removed. */
    static Map<String, String> withPrefix(Map<String, String> options, String prefix) {
        Map<String, String> result = new HashMap<>();
        options.forEach(
                (k, v) -> {
                    if (k.startsWith(prefix)) {
                        result.put(k.substring(prefix.length()), v);
                    }
                });
        return result;
    }

    /**
     * The fixed version to serve, or null to follow the table's newest.
     *
     * @throws LookupFileException if it is not a whole number
     */
    @Nullable
    static Long scanVersion(Map<String, String> options, String table, String words) {
        String value = options.get(SCAN_VERSION);
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new LookupFileException(
                    "Table "
                            + table
                            + ": 'scan.version' = '"
                            + value
                            + "' is not a whole number. Give "
                            + words
                            + ", or leave 'scan.version' out to follow the newest version.");
        }
    }
}
