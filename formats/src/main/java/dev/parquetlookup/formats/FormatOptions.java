package dev.parquetlookup.formats;

import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * The options a table format receives beside the table's path, in the one map the engine hands it
 * ({@link TableFormat#open}): Hadoop entries (the {@code hadoop.*} options, prefix removed), the
 * format's own entries under its {@link TableFormat#optionPrefix()} ({@code iceberg.catalog.*}: an
 * Iceberg catalog's properties) and {@link TableFormat#SCAN_VERSION}, a fixed version to serve
 * (time travel). Example: {@code {"fs.s3a.endpoint": "...", "iceberg.catalog.type": "jdbc",
 * "iceberg.catalog.uri": "jdbc:h2:/srv/catalog", "scan.version": "4713"}}.
 */
final class FormatOptions {

    private FormatOptions() {}

    /** The Hadoop configuration: every entry that is not {@code format}'s own. */
    static Configuration hadoop(Map<String, String> options, TableFormat format) {
        Configuration conf = new Configuration();
        options.forEach(
                (k, v) -> {
                    if (!format.optionPrefix().map(k::startsWith).orElse(false)
                            && !k.equals(TableFormat.SCAN_VERSION)) {
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
        String value = options.get(TableFormat.SCAN_VERSION);
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
