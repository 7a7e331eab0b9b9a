package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.ReadStatistics;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Types;
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
 * Iceberg schema evolution and partitions through {@link
 * dev.parquetlookup.engine.lookup.ColumnBinding}: columns found by field id (renamed ones, files
 * written before a rename), added columns NULL in older files, identity partition values as
 * per-file constants that prune files without reading them; every answer equal to Iceberg's own
 * reader of the same snapshot.
 */
class IcebergEvolutionTest {

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
                        RefreshOptions.defaults().withFormat(IcebergFormat.NAME));
        opened.add(t);
        return t;
    }

    private static Map<String, Object> row(Object... keyValues) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            row.put((String) keyValues[i], keyValues[i + 1]);
        }
        return row;
    }

    /** Keys 0..maxKey by {@code id}, {@code columns} projected, equal to Iceberg's reader. */
    private static void assertServes(
            RefreshingTable table,
            IcebergTestTable iceberg,
            long snapshotId,
            List<String> columns,
            long maxKey)
            throws IOException {
        Map<Long, List<String>> expected = iceberg.readColumns(snapshotId, columns);
        assertThat(expected).isNotEmpty();
        LookupPlan plan = table.plan(List.of("id"), columns);
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo("iceberg snapshot " + snapshotId);
            for (long key = 0; key <= maxKey; key++) {
                List<String> got = new ArrayList<>();
                for (Object[] r : lease.table().lookup(plan, new Object[] {key})) {
                    got.add(IcebergTestTable.joined(r));
                }
                got.sort(null);
                assertThat(got)
                        .as("key %d of snapshot %d", key, snapshotId)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    private static List<Map<String, Object>> rows(
            long from, long to, String nameColumn, String prefix, String region) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            rows.add(row("id", id, nameColumn, prefix + "-" + id, "region", region));
        }
        return rows;
    }

    @Test
    void renamedAndAddedColumnsAreFoundByFieldId() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.appendValues(rows(0, 300, "name", "a", "eu"));
        // Rename name -> label, add score: the first file has 'name' and no 'score'.
        iceberg.table.updateSchema().renameColumn("name", "label").commit();
        iceberg.table.updateSchema().addColumn("score", Types.IntegerType.get()).commit();
        List<Map<String, Object>> later = rows(300, 600, "label", "b", "us");
        later.forEach(r -> r.put("score", (int) ((Long) r.get("id") % 7)));
        iceberg.appendValues(later);
        // A column renamed to the old name of another: 'region' -> 'name'. Files written before
        // hold a 'name' that is field 2, not this one.
        iceberg.table.updateSchema().renameColumn("region", "name").commit();
        iceberg.appendValues(List.of(row("id", 150L, "label", "c-150", "name", "ap", "score", 42)));
        long v = iceberg.currentSnapshotId();

        RefreshingTable table = open(List.of("id"));
        assertThat(table.columns().stream().map(c -> c.name()).toList())
                .containsExactly("id", "label", "name", "score");
        assertServes(table, iceberg, v, List.of("id", "label", "name", "score"), 650);
        // Spot checks of what the reader comparison covers: the old file's 'name' (field 2)
        // serves 'label', its region serves 'name', its 'score' is NULL.
        LookupPlan plan = table.plan(List.of("id"), List.of("label", "name", "score"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            List<String> got = new ArrayList<>();
            for (Object[] r : lease.table().lookup(plan, new Object[] {150L})) {
                got.add(IcebergTestTable.joined(r));
            }
            got.sort(null);
            assertThat(got).containsExactly("a-150|eu|null", "c-150|ap|42");
        }
    }

    @Test
    void aRefreshThatRenamesAServedColumnIsRefusedAndTheLastVersionServes() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.appendValues(rows(0, 100, "name", "a", "eu"));
        long v1 = iceberg.currentSnapshotId();
        RefreshingTable table = open(List.of("id"));
        iceberg.table.updateSchema().renameColumn("name", "label").commit();
        iceberg.appendValues(rows(100, 200, "label", "b", "us"));
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError())
                .contains("Column 'name'")
                .contains("restart the job");
        assertServes(table, iceberg, v1, List.of("id", "name", "region"), 120);

        // An added column is no obstacle to a running table: its plans never name it.
        iceberg.table.updateSchema().renameColumn("label", "name").commit();
        iceberg.table.updateSchema().addColumn("score", Types.IntegerType.get()).commit();
        iceberg.appendValues(List.of(row("id", 500L, "name", "x", "region", "eu", "score", 1)));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(
                table, iceberg, iceberg.currentSnapshotId(), List.of("id", "name", "region"), 600);
    }

    @Test
    void identityPartitionsAreConstantsThatPruneFilesWithoutReading() throws IOException {
        IcebergTestTable iceberg = IcebergTestTable.create(location(), IcebergTestTable.byRegion());
        // Each region's ids overlap the others': only the partition tells the files apart.
        iceberg.appendValues(rows(0, 400, "name", "a", "eu"));
        iceberg.appendValues(rows(200, 600, "name", "b", "us"));
        iceberg.appendValues(rows(100, 500, "name", "c", "ap"));
        iceberg.appendValues(rows(450, 700, "name", "d", "eu"));
        long v = iceberg.currentSnapshotId();
        RefreshingTable table = open(List.of("region", "id"));
        assertThat(table.sortKey()).containsExactly("region", "id");

        Map<Long, List<String>> expected = iceberg.readColumns(v, List.of("id", "name", "region"));
        LookupPlan plan = table.plan(List.of("region", "id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            ReadStatistics stats = lease.table().readStatistics();
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
            // A partition no file has: nothing is read.
            long bytes = stats.bytesRead();
            long requests = stats.readRequests();
            for (long id = 0; id < 700; id++) {
                assertThat(lease.table().lookup(plan, new Object[] {"zz", id})).isEmpty();
            }
            assertThat(stats.bytesRead()).isEqualTo(bytes);
            assertThat(stats.readRequests()).isEqualTo(requests);
            // A lookup by the partition alone returns the whole partition.
            LookupPlan byRegion = table.plan(List.of("region"), List.of("id"));
            assertThat(lease.table().lookup(byRegion, new Object[] {"us"})).hasSize(400);
            assertThat(lease.table().lookup(byRegion, new Object[] {"eu"})).hasSize(650);
        }
    }

    @Test
    void otherPartitionTransformsAreServedFromTheStoredColumns() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(
                        location(),
                        PartitionSpec.builderFor(IcebergTestTable.SCHEMA)
                                .bucket("id", 4)
                                .truncate("name", 2)
                                .build());
        // One bucket and one name prefix per file: the writer takes the first row's partition.
        for (int b = 0; b < 4; b++) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (long id = 0; id < 800; id++) {
                if (org.apache.iceberg.transforms.Transforms.bucket(4)
                                .bind(Types.LongType.get())
                                .apply(id)
                        == b) {
                    rows.add(row("id", id, "name", "n" + b + "-" + id, "region", "eu"));
                }
            }
            iceberg.appendValues(rows);
        }
        long v = iceberg.currentSnapshotId();
        RefreshingTable table = open(List.of("id"));
        assertThat(table.files()).hasSize(4);
        assertServes(table, iceberg, v, List.of("id", "name", "region"), 820);
    }

    @Test
    void aSortKeyMadeOnlyOfPartitionColumnsIsRefusedWithTheFix() throws IOException {
        IcebergTestTable iceberg = IcebergTestTable.create(location(), IcebergTestTable.byRegion());
        iceberg.appendValues(rows(0, 10, "name", "a", "eu"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> open(List.of("region")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("sort key [region] is made only of columns the file does")
                .hasMessageContaining("'sort-key'");
    }
}
