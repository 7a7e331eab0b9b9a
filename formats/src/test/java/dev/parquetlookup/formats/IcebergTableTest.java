package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Iceberg tables written by Iceberg's own writers, served through {@code 'format' = 'iceberg'}: the
 * table format contract (every answer of every version equals Iceberg's own reading of that
 * snapshot; versions the engine cannot serve exactly are refused while the last good one keeps
 * serving; columns found by field id; identity partitions), plus partitioned tables, the table's
 * sort order, deletion vectors of format version 3, equality deletes, a lost manifest list, a
 * column renamed to another's old name and other partition transforms.
 */
class IcebergTableTest extends TableFormatContract<IcebergTestTable, DataFile> {

    @Override
    String format() {
        return IcebergFormat.NAME;
    }

    @Override
    IcebergTestTable create() {
        return IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
    }

    @Override
    IcebergTestTable createWithRowDeletes() {
        return create();
    }

    @Override
    IcebergTestTable createPartitionedByRegion() {
        return IcebergTestTable.create(location(), IcebergTestTable.byRegion());
    }

    @Override
    IcebergTestTable createForEvolution() {
        return createPartitionedByRegion();
    }

    @Override
    void deleteRows(IcebergTestTable t, DataFile file, long... positions) throws IOException {
        t.deletePositions(file, positions);
    }

    @Override
    void removeDeleteFiles() throws IOException {
        // The position-delete files, named by their writer's partition id 2.
        try (Stream<Path> files = Files.walk(dir.resolve("dim/data"))) {
            for (Path p :
                    files.filter(p -> p.getFileName().toString().startsWith("00002-")).toList()) {
                Files.delete(p);
            }
        }
    }

    @Override
    String missingDeletesError() {
        return "cannot read the delete file";
    }

    @Override
    Path latestMetadataFile(IcebergTestTable t) throws IOException {
        try (Stream<Path> files = Files.list(dir.resolve("dim/metadata"))) {
            return files.filter(p -> p.getFileName().toString().endsWith(".metadata.json"))
                    .max((a, b) -> Integer.compare(number(a), number(b)))
                    .orElseThrow();
        }
    }

    private static int number(Path p) {
        String n = p.getFileName().toString();
        return Integer.parseInt(n.substring(1, n.indexOf('.')));
    }

    @Override
    List<String> corruptMetadataErrors() {
        return List.of("Cannot read the metadata", location());
    }

    @Override
    String notATableError() {
        return "is not an Iceberg table";
    }

    @Override
    void renameColumn(IcebergTestTable t, String from, String to) {
        t.table.updateSchema().renameColumn(from, to).commit();
    }

    @Override
    void addIntColumn(IcebergTestTable t, String name) {
        t.table.updateSchema().addColumn(name, Types.IntegerType.get()).commit();
    }

    private static Map<String, Object> row(Object... keyValues) {
        Map<String, Object> row = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            row.put((String) keyValues[i], keyValues[i + 1]);
        }
        return row;
    }

    @Test
    void servesPartitionedTables() throws IOException {
        IcebergTestTable iceberg = createPartitionedByRegion();
        iceberg.append(rows("a", "eu", range(0, 600, 2)));
        iceberg.append(rows("b", "us", range(1, 900, 3)));
        iceberg.append(rows("c", "ap", range(500, MAX_KEY, 5)));
        RefreshingTable table = open();
        assertThat(table.files()).hasSize(3);
        assertServes(table, iceberg, iceberg.version());
    }

    @Test
    void theSortKeyComesFromTheTablesSortOrderWhenNotGiven() throws IOException {
        IcebergTestTable iceberg = create();
        iceberg.table.replaceSortOrder().asc("id").commit();
        iceberg.append(rows("a", "eu", range(0, 1_000, 2)));
        iceberg.append(rows("b", "us", range(1, 1_000, 2)));
        RefreshingTable table = open(TableConfig.builder(location()).metadataCache(cache).build());
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.table().sortKey()).containsExactly("id");
        }
        assertServes(table, iceberg, iceberg.version());

        // A transform first: no usable prefix, so the key must come from 'sort-key'.
        iceberg.table.replaceSortOrder().asc(Expressions.bucket("name", 4)).asc("id").commit();
        iceberg.table.refresh();
        assertThat(sortKey(iceberg.table)).isEmpty();
        iceberg.table.replaceSortOrder().asc("region").asc("id").desc("name").commit();
        iceberg.table.refresh();
        assertThat(sortKey(iceberg.table)).containsExactly("region", "id");
    }

    /**
     * Found by a user (issue 28): {@code scan.version} of a snapshot written before the sort column
     * was renamed was refused without {@code sort-key}, the sort order's column looked up by its
     * current name. A sort order names field ids: each snapshot's files are sorted by the name in
     * that snapshot's schema.
     */
    @Test
    void aSnapshotFromBeforeTheSortColumnWasRenamedIsSortedByItsOldName() throws IOException {
        IcebergTestTable iceberg = create();
        iceberg.table.replaceSortOrder().asc("id").commit();
        iceberg.append(rows("a", "eu", range(0, 600, 2)));
        long v1 = iceberg.version();
        renameColumn(iceberg, "id", "key");
        List<Map<String, Object>> later = new ArrayList<>();
        for (long key = 1; key < 600; key += 3) {
            later.add(row("key", key, "name", "b-" + key, "region", "us"));
        }
        iceberg.appendValues(later);
        long v2 = iceberg.version();

        // No 'sort-key': snapshot 1 is sorted by 'id' (its name then), the current one by 'key'.
        RefreshingTable travel =
                open(
                        TableConfig.builder(location())
                                .hadoopOptions(Map.of("scan.version", String.valueOf(v1)))
                                .metadataCache(cache)
                                .build());
        try (RefreshingTable.Lease lease = travel.acquire()) {
            assertThat(lease.table().sortKey()).containsExactly("id");
        }
        assertServes(travel, iceberg, v1);

        RefreshingTable current =
                open(TableConfig.builder(location()).metadataCache(cache).build());
        Map<Long, List<String>> expected = iceberg.readColumns(v2, List.of("key", "name"));
        assertThat(expected).hasSize(300 + 200 - 100);
        LookupPlan plan = current.plan(List.of("key"), List.of("key", "name"));
        try (RefreshingTable.Lease lease = current.acquire()) {
            assertThat(lease.table().sortKey()).containsExactly("key");
            assertThat(lease.sourceVersion()).isEqualTo(iceberg.versionLabel(v2));
            for (long key = 0; key <= 620; key++) {
                assertThat(lookup(lease, plan, key))
                        .as("key %d", key)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }

        // A sort order on a column added after snapshot 1: nothing to resolve there; the reason
        // names the snapshot, the field id and the fix.
        addIntColumn(iceberg, "score");
        iceberg.table.replaceSortOrder().asc("score").asc("key").commit();
        iceberg.table.refresh();
        String where = iceberg.versionLabel(v1) + " of the Iceberg table at " + location();
        org.apache.iceberg.Schema v1Schema =
                iceberg.table.schemas().get(iceberg.table.snapshot(v1).schemaId());
        assertThat(IcebergSnapshotSource.sortKey(iceberg.table.sortOrder(), v1Schema, where))
                .isEmpty();
        int scoreId = iceberg.table.schema().findField("score").fieldId();
        assertThat(
                        IcebergSnapshotSource.unresolved(
                                iceberg.table.sortOrder(), scoreId, List.of(), where))
                .contains("field id " + scoreId)
                .contains(iceberg.versionLabel(v1))
                .contains("Set 'sort-key'");
    }

    @Test
    void appliesDeletionVectorsOfFormatVersion3() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned(), 3);
        DataFile file = iceberg.append(rows("a", "eu", range(0, 1_000, 1)));
        RefreshingTable table = open();
        iceberg.deleteWithVector(file, 1, 2, 64, 127, 128, 999);
        long v2 = iceberg.version();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v2);
        assertThat(iceberg.read(v2)).doesNotContainKeys(1L, 2L, 64L, 127L, 128L, 999L);
    }

    @Test
    void refusesEqualityDeletesWithTheFix() throws IOException {
        IcebergTestTable iceberg = create();
        iceberg.append(rows("a", "eu", range(0, 500, 1)));
        iceberg.deleteIds(7, 8);
        assertThatThrownBy(this::open)
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has equality deletes")
                .hasMessageContaining("Compact the table")
                .hasMessageContaining("rewrite_data_files")
                .hasMessageContaining(location());
    }

    @Test
    void aVersionWhoseManifestListIsGoneIsRefused() throws IOException {
        IcebergTestTable iceberg = create();
        iceberg.append(rows("a", "eu", range(0, 300, 1)));
        long v1 = iceberg.version();
        RefreshingTable table = open();
        iceberg.append(rows("b", "eu", range(300, 600, 1)));
        long v2 = iceberg.version();
        Path manifestList =
                Path.of(URI.create(iceberg.table.currentSnapshot().manifestListLocation()));
        byte[] list = Files.readAllBytes(manifestList);
        Files.delete(manifestList);
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains("iceberg snapshot " + v2);
        assertServes(table, iceberg, v1);

        // Restored: v2 is served.
        Files.write(manifestList, list);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v2);
    }

    @Test
    void aColumnRenamedToAnothersOldNameIsFoundByFieldId() throws IOException {
        IcebergTestTable iceberg = create();
        iceberg.appendValues(values(0, 300, "name", "a", "eu"));
        // Rename name -> label, add score: the first file has 'name' and no 'score'.
        renameColumn(iceberg, "name", "label");
        addIntColumn(iceberg, "score");
        List<Map<String, Object>> later = values(300, 600, "label", "b", "us");
        later.forEach(r -> r.put("score", (int) ((Long) r.get("id") % 7)));
        iceberg.appendValues(later);
        // A column renamed to the old name of another: 'region' -> 'name'. Files written before
        // hold a 'name' that is field 2, not this one.
        renameColumn(iceberg, "region", "name");
        iceberg.appendValues(List.of(row("id", 150L, "label", "c-150", "name", "ap", "score", 42)));

        RefreshingTable table = openUncached(List.of("id"));
        assertThat(table.columns().stream().map(c -> c.name()).toList())
                .containsExactly("id", "label", "name", "score");
        assertServes(table, iceberg, List.of("id", "label", "name", "score"), 650);
        // Spot checks of what the reader comparison covers: the old file's 'name' (field 2)
        // serves 'label', its region serves 'name', its 'score' is NULL.
        LookupPlan plan = table.plan(List.of("id"), List.of("label", "name", "score"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lookup(lease, plan, 150L)).containsExactly("a-150|eu|null", "c-150|ap|42");
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
                if (Transforms.bucket(4).bind(Types.LongType.get()).apply(id) == b) {
                    rows.add(row("id", id, "name", "n" + b + "-" + id, "region", "eu"));
                }
            }
            iceberg.appendValues(rows);
        }
        RefreshingTable table = openUncached(List.of("id"));
        assertThat(table.files()).hasSize(4);
        assertServes(table, iceberg, List.of("id", "name", "region"), 820);
    }

    /** The sort key the table's current sort order and schema declare. */
    private static List<String> sortKey(Table table) {
        return IcebergSnapshotSource.sortKey(table.sortOrder(), table.schema(), table.name());
    }
}
