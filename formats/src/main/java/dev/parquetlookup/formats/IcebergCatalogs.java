package dev.parquetlookup.formats;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;

import javax.annotation.Nullable;

import java.util.Map;

/**
 * Iceberg tables found through a catalog a user runs, built by Iceberg's own {@link
 * CatalogUtil#buildIcebergCatalog} from the {@code iceberg.catalog.*} options (Iceberg's property
 * names, prefix removed): {@code type} ({@code jdbc}, {@code rest}, {@code hadoop}, ...) or {@code
 * catalog-impl}, {@code uri}, {@code warehouse}, {@code jdbc.user}, ..., and {@code name}, the
 * catalog's name as its writers call it (the JDBC catalog keeps each table under it; default {@code
 * parquet-lookup}). The table's {@code path} is its identifier in the catalog ({@code
 * db.customers}); each listing loads the table afresh through the catalog, so a commit is seen at
 * the next refresh.
 *
 * <p>Example: {@code 'iceberg.catalog.type' = 'jdbc', 'iceberg.catalog.uri' =
 * 'jdbc:postgresql://db/iceberg', 'iceberg.catalog.warehouse' = 's3a://lake/wh', 'path' =
 * 'db.customers'}; the JDBC driver goes on the class path beside the SQL jar (which includes the
 * formats; with Maven, beside the {@code parquet-lookup-formats} artifact).
 */
final class IcebergCatalogs {

    private IcebergCatalogs() {}

    static SnapshotSource open(
            String path, Map<String, String> properties, Configuration conf, @Nullable Long fixed) {
        String name = properties.getOrDefault("name", "parquet-lookup");
        Catalog catalog;
        try {
            catalog = CatalogUtil.buildIcebergCatalog(name, properties, conf);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot open the Iceberg catalog of table "
                            + path
                            + " (iceberg.catalog.* = "
                            + properties.keySet()
                            + "): "
                            + ErrorClause.of(e)
                            + ". Check 'iceberg.catalog.type' (jdbc, rest, hadoop) or"
                            + " 'iceberg.catalog.catalog-impl', its 'uri', and that its driver is"
                            + " on the class path.",
                    e);
        }
        TableIdentifier id;
        try {
            id = TableIdentifier.parse(path);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "'path' = '"
                            + path
                            + "' is not a table identifier of the Iceberg catalog: give it as"
                            + " <namespace>.<table>, e.g. 'db.customers'.",
                    e);
        }
        Table table;
        try {
            table = catalog.loadTable(id);
        } catch (NoSuchTableException e) {
            throw new LookupFileException(
                    "The Iceberg catalog '"
                            + name
                            + "' has no table "
                            + id
                            + ". With 'iceberg.catalog.*' options, 'path' names the table in the"
                            + " catalog (<namespace>.<table>); check it, the catalog's 'uri', and"
                            + " 'iceberg.catalog.name' (the name the catalog's writers give it).",
                    e);
        } catch (RuntimeException e) {
            throw new LookupFileException(
                    "Cannot load table " + id + " from the Iceberg catalog '" + name + "': " + e,
                    e);
        }
        return new IcebergSnapshotSource(
                "catalog table " + id, () -> catalog.loadTable(id), conf, table, fixed);
    }
}
