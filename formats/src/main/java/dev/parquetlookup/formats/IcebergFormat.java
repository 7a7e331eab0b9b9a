package dev.parquetlookup.formats;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.hadoop.HadoopTables;

import java.util.Map;
import java.util.Optional;

/**
 * {@code 'format' = 'iceberg'}: the table named by {@code path} is an Iceberg table, read through
 * iceberg-core; each version is the table's current snapshot (see {@link IcebergSnapshotSource} for
 * what is served and what is refused), or the fixed snapshot {@code scan.version}. Without catalog
 * options {@code path} is the table's root, a table kept by location (a Hadoop table: {@code
 * metadata/vN.metadata.json} and {@code version-hint.text}); with {@code iceberg.catalog.*} options
 * (e.g. {@code type = jdbc}, {@code uri}) {@code path} is the table's identifier in that catalog
 * ({@link IcebergCatalogs}).
 *
 * <p>Example: {@code new IcebergFormat().open("file:/warehouse/db/customers", Map.of(), store)}.
 */
public final class IcebergFormat implements TableFormat {

    /** The {@code format} option's value. */
    public static final String NAME = "iceberg";

    /** The prefix of this format's options. */
    static final String OPTION_PREFIX = NAME + ".";

    /** Properties of an Iceberg catalog (Iceberg's own names: type, uri, warehouse, jdbc.*). */
    static final String CATALOG_PREFIX = OPTION_PREFIX + "catalog.";

    @Override
    public String name() {
        return NAME;
    }

    /**
     * {@code iceberg.catalog.*}: the catalog the table is loaded from ({@link IcebergCatalogs}).
     */
    @Override
    public Optional<String> optionPrefix() {
        return Optional.of(OPTION_PREFIX);
    }

    @Override
    public SnapshotSource open(String path, Map<String, String> options, FileStore store) {
        AvroVersion.require();
        Configuration conf = FormatOptions.hadoop(options, this);
        Long fixed = FormatOptions.scanVersion(options, path, "an Iceberg snapshot id");
        Map<String, String> catalogProperties = FormatOptions.withPrefix(options, CATALOG_PREFIX);
        if (!catalogProperties.isEmpty()) {
            return IcebergCatalogs.open(path, catalogProperties, conf, fixed);
        }
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
                            + ErrorClause.of(e)
                            + ". The table's newest metadata/v<N>.metadata.json is missing or"
                            + " corrupt; repair it (or roll version-hint.text back to a good"
                            + " version).",
                    e);
        }
        return new IcebergSnapshotSource(path, () -> tables.load(path), conf, table, fixed);
    }
}
