package dev.parquetlookup.formats;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.FileStore;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.defaults.engine.DefaultEngine;

import java.io.IOException;
import java.util.Map;

/**
 * {@code 'format' = 'delta'}: the table root named by {@code path} is a Delta Lake table (a {@code
 * _delta_log/} directory under the root), read through the Delta kernel; each version is the
 * table's latest version (see {@link DeltaSnapshotSource} for what is served and what is refused).
 *
 * <p>Example: {@code new DeltaFormat().open("file:/lake/customers", Map.of(), store)}.
 */
public final class DeltaFormat implements TableFormat {

    /** The {@code format} option's value. */
    public static final String NAME = "delta";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SnapshotSource open(String path, Map<String, String> hadoopOptions, FileStore store)
            throws IOException {
        Configuration conf = FormatOptions.hadoop(hadoopOptions, this);
        DeltaSnapshotSource source =
                new DeltaSnapshotSource(
                        path,
                        DefaultEngine.create(conf),
                        FormatOptions.scanVersion(hadoopOptions, path, "a Delta version number"));
        // Fails here (at planning) when the path is not a Delta table or its log is unreadable.
        source.latest();
        return source;
    }
}
