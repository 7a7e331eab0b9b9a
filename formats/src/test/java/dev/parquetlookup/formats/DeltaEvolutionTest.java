package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.ReadStatistics;
import dev.parquetlookup.metadata.MetadataCache;

import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delta column mapping ({@code name}, {@code id}), renamed and added columns, and partition columns
 * (not in the data files) through {@link dev.parquetlookup.engine.lookup.ColumnBinding}: every
 * answer equal to the Delta kernel's own reader of the same version.
 */
class DeltaEvolutionTest {

    @TempDir Path dir;

    private final List<RefreshingTable> opened = new ArrayList<>();
    private final MetadataCache cache = new MetadataCache(64L << 20);

    @AfterEach
    void closeTables() throws IOException {
        for (RefreshingTable t : opened) {
            t.close();
        }
    }

    private String location() {
        return dir.resolve("dim").toUri().toString();
    }

    private RefreshingTable open(List<String> sortKey) throws IOException {
        RefreshingTable t =
                RefreshingTable.open(
                        TableConfig.builder(location())
                                .sortKey(sortKey)
                                .metadataCache(cache)
                                .pageCache(null)
                                .build(),
                        RefreshOptions.defaults().withFormat(DeltaFormat.NAME));
        opened.add(t);
        return t;
    }

    private static List<Map<String, Object>> rows(
            long from, long to, String nameColumn, String prefix, String region) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            Map<String, Object> row = new HashMap<>();
            row.put("id", id);
            row.put(nameColumn, prefix + "-" + id);
            row.put("region", region);
            rows.add(row);
        }
        return rows;
    }

    /** Keys 0..maxKey by {@code id}, {@code columns} projected, equal to the kernel's reader. */
    private static void assertServes(
            RefreshingTable table, DeltaTestTable delta, List<String> columns, long maxKey)
            throws IOException {
        long version = delta.version();
        Map<Long, List<String>> expected = delta.readColumns(version, columns);
        assertThat(expected).isNotEmpty();
        LookupPlan plan = table.plan(List.of("id"), columns);
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo("delta version " + version);
            for (long key = 0; key <= maxKey; key++) {
                List<String> got = new ArrayList<>();
                for (Object[] r : lease.table().lookup(plan, new Object[] {key})) {
                    got.add(IcebergTestTable.joined(r));
                }
                got.sort(null);
                assertThat(got)
                        .as("key %d of version %d", key, version)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    /** The schema with column {@code from} renamed {@code to}, its mapping metadata kept. */
    private static StructType renamed(StructType schema, String from, String to) {
        StructType result = new StructType();
        for (StructField f : schema.fields()) {
            result =
                    result.add(
                            f.getName().equals(from)
                                    ? new StructField(
                                            to, f.getDataType(), f.isNullable(), f.getMetadata())
                                    : f);
        }
        return result;
    }

    private void renamesAndAddsUnder(String mode) throws IOException {
        DeltaTestTable delta =
                DeltaTestTable.create(
                        location(), Map.of("delta.columnMapping.mode", mode), List.of("region"));
        delta.appendMapped(rows(0, 300, "name", "a", "eu"));
        delta.appendMapped(rows(200, 500, "name", "b", "us"));
        delta.evolve(renamed(delta.schema(), "name", "label"));
        delta.evolve(
                delta.schema()
                        .add(
                                DeltaTestTable.mappedColumn(
                                        delta.schema(), "score", IntegerType.INTEGER)));
        List<Map<String, Object>> later = rows(400, 700, "label", "c", "eu");
        later.forEach(r -> r.put("score", (int) ((Long) r.get("id") % 5)));
        delta.appendMapped(later);

        RefreshingTable table = open(List.of("id"));
        assertThat(table.columns().stream().map(c -> c.name()).toList())
                .containsExactly("id", "label", "region", "score");
        assertServes(table, delta, List.of("id", "label", "region", "score"), 720);
        LookupPlan plan = table.plan(List.of("id"), List.of("label", "region", "score"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            List<String> got = new ArrayList<>();
            for (Object[] r : lease.table().lookup(plan, new Object[] {450L})) {
                got.add(IcebergTestTable.joined(r));
            }
            got.sort(null);
            assertThat(got).containsExactly("b-450|us|null", "c-450|eu|0");
        }
    }

    @Test
    void columnMappingByNameServesPhysicalNamesRenamesAndAddedColumns() throws IOException {
        renamesAndAddsUnder("name");
    }

    @Test
    void columnMappingByIdServesRenamesAndAddedColumns() throws IOException {
        renamesAndAddsUnder("id");
    }

    @Test
    void partitionColumnsAreConstantsThatPruneFilesWithoutReading() throws IOException {
        DeltaTestTable delta = DeltaTestTable.create(location(), Map.of(), List.of("region"));
        delta.appendValues(rows(0, 400, "name", "a", "eu"));
        delta.appendValues(rows(200, 600, "name", "b", "us"));
        delta.appendValues(rows(100, 500, "name", "c", "ap"));
        delta.appendValues(rows(450, 700, "name", "d", "eu"));
        RefreshingTable table = open(List.of("region", "id"));
        assertThat(table.sortKey()).containsExactly("region", "id");
        Map<Long, List<String>> expected =
                delta.readColumns(delta.version(), List.of("id", "name", "region"));
        LookupPlan plan = table.plan(List.of("region", "id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            for (String region : List.of("eu", "us", "ap", "none")) {
                for (long id = 0; id <= 720; id++) {
                    List<String> got = new ArrayList<>();
                    for (Object[] r : lease.table().lookup(plan, new Object[] {region, id})) {
                        got.add(IcebergTestTable.joined(r));
                    }
                    List<String> want =
                            expected.getOrDefault(id, List.of()).stream()
                                    .filter(s -> s.endsWith("|" + region))
                                    .toList();
                    assertThat(got).as("(%s, %d)", region, id).isEqualTo(want);
                }
            }
            ReadStatistics stats = lease.table().readStatistics();
            long bytes = stats.bytesRead();
            long requests = stats.readRequests();
            for (long id = 0; id < 700; id++) {
                assertThat(lease.table().lookup(plan, new Object[] {"zz", id})).isEmpty();
            }
            assertThat(stats.bytesRead()).isEqualTo(bytes);
            assertThat(stats.readRequests()).isEqualTo(requests);
        }
        // Looked up by id alone, across partitions.
        RefreshingTable byId = open(List.of("id"));
        assertServes(byId, delta, List.of("id", "name", "region"), 720);
    }
}
