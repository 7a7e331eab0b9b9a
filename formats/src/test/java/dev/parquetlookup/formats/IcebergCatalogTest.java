package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An Iceberg table kept by Iceberg's JDBC catalog (over an embedded H2 database), found through the
 * {@code iceberg.catalog.*} options with {@code path} naming it in the catalog; and time travel
 * ({@code scan.version}) on Iceberg and Delta tables: a fixed version served and never refreshed.
 */
class IcebergCatalogTest extends TableTests {

    private Map<String, String> catalogOptions() {
        Map<String, String> options = new HashMap<>();
        options.put("iceberg.catalog.type", "jdbc");
        // The JDBC catalog keeps each table under its catalog's name: the writers' name.
        options.put("iceberg.catalog.name", "lake");
        options.put("iceberg.catalog.uri", "jdbc:h2:file:" + dir.resolve("catalog-db"));
        options.put("iceberg.catalog.warehouse", dir.resolve("warehouse").toUri().toString());
        return options;
    }

    private RefreshingTable open(String path, String format, Map<String, String> options)
            throws IOException {
        return open(
                TableConfig.builder(path)
                        .sortKey(List.of("id"))
                        .hadoopOptions(options)
                        .metadataCache(cache)
                        .build(),
                format);
    }

    @Test
    void aTableOfTheJdbcCatalogIsServedAndFollowsItsCommits() throws IOException {
        Map<String, String> properties = new HashMap<>();
        FormatOptions.withPrefix(catalogOptions(), "iceberg.catalog.").forEach(properties::put);
        Catalog catalog = CatalogUtil.buildIcebergCatalog("lake", properties, new Configuration());
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
        IcebergTestTable iceberg =
                IcebergTestTable.of(
                        catalog.createTable(
                                TableIdentifier.of("db", "dim"),
                                IcebergTestTable.SCHEMA,
                                PartitionSpec.unpartitioned(),
                                Map.of("format-version", "2")));
        iceberg.append(rows("a", "eu", range(0, 600, 2)));
        long v1 = iceberg.version();

        RefreshingTable table = open("db.dim", IcebergFormat.NAME, catalogOptions());
        assertServes(table, iceberg, v1);
        iceberg.append(rows("b", "us", range(1, 900, 3)));
        long v2 = iceberg.version();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v2);

        // Time travel through the catalog: snapshot 1, whatever is committed later.
        Map<String, String> pinned = catalogOptions();
        pinned.put("scan.version", String.valueOf(v1));
        RefreshingTable travel = open("db.dim", IcebergFormat.NAME, pinned);
        iceberg.append(rows("c", "ap", range(0, 1_000, 5)));
        assertThat(travel.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        assertServes(travel, iceberg, v1);

        assertThatThrownBy(() -> open("db.nope", IcebergFormat.NAME, catalogOptions()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has no table db.nope")
                .hasMessageContaining("<namespace>.<table>");
        Map<String, String> unknown = catalogOptions();
        unknown.put("scan.version", "12345");
        assertThatThrownBy(() -> open("db.dim", IcebergFormat.NAME, unknown))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has no snapshot 12345 ('scan.version')");
    }

    @Test
    void aDeltaVersionIsServedFixed() throws IOException {
        String location = dir.resolve("delta").toUri().toString();
        DeltaTestTable delta = DeltaTestTable.create(location, Map.of(), List.of());
        delta.append(rows("a", "eu", range(0, 600, 2)));
        long v1 = delta.version();
        delta.append(rows("b", "us", range(1, 900, 3)));
        RefreshingTable table =
                open(location, DeltaFormat.NAME, Map.of("scan.version", String.valueOf(v1)));
        assertServes(table, delta, v1);
        delta.append(rows("c", "ap", range(0, 1_000, 5)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        assertServes(table, delta, v1);

        assertThatThrownBy(() -> open(location, DeltaFormat.NAME, Map.of("scan.version", "99")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("version 99 ('scan.version')");
        assertThatThrownBy(() -> open(location, DeltaFormat.NAME, Map.of("scan.version", "last")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("is not a whole number");
    }
}
