package dev.parquetlookup.formats;

import dev.parquetlookup.engine.SnapshotSource;
import dev.parquetlookup.engine.TableFormat;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.hadoop.HadoopTables;

import java.util.Map;

/**
 * {@code 'format' = 'iceberg'}: the table root named by {@code path} is an Iceberg table kept by
 * location (a Hadoop table: {@code metadata/vN.metadata.json} and {@code version-hint.text} under
 * the root), read through iceberg-core; each version is the table's current snapshot (see {@link
 * IcebergSnapshotSource} for what is served and what is refused).
 *
 * <p>Example: {@code new IcebergFormat().open("file:/warehouse/db/customers", Map.of(), store)}.
 */
public final class IcebergFormat implements TableFormat {

    /** The {@code format} option's value. */
    public static final String NAME = "iceberg";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SnapshotSource open(String path, Map<String, String> hadoopOptions, FileStore store) {
        Configuration conf = new Configuration();
        hadoopOptions.forEach(conf::set);
        HadoopTables tables = new HadoopTables(conf);
        Table table;
        try {
            table = tables.load(path);
        } catch (NoSuchTableException e) {
            throw new LookupFileException(
                    "Path "
                            + path
                            + " is not an Iceberg table: it has no metadata/version-hint.text or"
                            + " metadata/v<N>.metadata.json. Point 'path' at the table's root"
                            + " (its location), or use 'format' = 'files' for a directory of"
                            + " Parquet files.",
                    e);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot read the metadata of the Iceberg table at "
                            + path
                            + ": "
                            + e
                            + ". The table's newest metadata/v<N>.metadata.json is missing or"
                            + " corrupt; repair it (or roll version-hint.text back to a good"
                            + " version).",
                    e);
        }
        return new IcebergSnapshotSource(path, tables, table);
    }
}
