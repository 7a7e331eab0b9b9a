package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.IcebergTestTable.range;
import static dev.parquetlookup.formats.IcebergTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Iceberg tables written by Iceberg's own writers, served through {@code 'format' = 'iceberg'}:
 * every answer of every version equals Iceberg's own reading of that snapshot, and versions the
 * engine cannot serve exactly are refused while the last good one keeps serving.
 */
class IcebergTableTest {

    /** Keys looked up in every version: all written ones and misses around them. */
    private static final long MAX_KEY = 1_300;

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

    private RefreshingTable open(String path) throws IOException {
        RefreshingTable t =
                RefreshingTable.open(
                        TableConfig.builder(path)
                                .sortKey(List.of("id"))
                                .metadataCache(cache)
                                .build(),
                        RefreshOptions.defaults().withFormat(IcebergFormat.NAME));
        opened.add(t);
        return t;
    }

    /** Every key 0..MAX_KEY answers exactly as Iceberg's reader of {@code snapshotId}. */
    private static void assertServes(
            RefreshingTable table, IcebergTestTable iceberg, long snapshotId) throws IOException {
        Map<Long, List<String>> expected = iceberg.read(snapshotId);
        LookupPlan plan = table.plan(List.of("id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo("iceberg snapshot " + snapshotId);
            for (long key = 0; key <= MAX_KEY; key++) {
                List<String> got = new ArrayList<>();
                for (Object[] row : lease.table().lookup(plan, new Object[] {key})) {
                    got.add(IcebergTestTable.text(row[0], row[1], row[2]));
                }
                got.sort(null);
                assertThat(got)
                        .as("key %d of snapshot %d", key, snapshotId)
                        .isEqualTo(expected.getOrDefault(key, List.of()));
            }
        }
    }

    @Test
    void servesEachVersionOfAppendsOverwritesAndFileDeletesExactly() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        DataFile evens = iceberg.append(rows("a", "eu", range(0, 1_000, 2)));
        long v1 = iceberg.currentSnapshotId();

        RefreshingTable table = open(location());
        assertServes(table, iceberg, v1);
        assertThat(table.status().sourceVersion()).isEqualTo("iceberg snapshot " + v1);

        // v2: odd keys, and keys 0..98 a second time (a duplicate key across files).
        DataFile odds =
                iceberg.append(
                        concat(
                                rows("b", "us", range(1, 1_000, 2)),
                                rows("c", "eu", range(0, 100, 2))));
        long v2 = iceberg.currentSnapshotId();
        try (RefreshingTable.Lease onV1 = table.acquire()) {
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            // A lookup that started on v1 finishes on v1.
            LookupPlan plan = table.plan(List.of("id"), List.of("name"));
            assertThat(onV1.table().lookup(plan, new Object[] {1L})).isEmpty();
            assertThat(onV1.sourceVersion()).isEqualTo("iceberg snapshot " + v1);
        }
        assertServes(table, iceberg, v2);

        // v3: the evens file replaced by every third key up to 1,300.
        iceberg.overwrite(evens, rows("d", "ap", range(0, MAX_KEY, 3)));
        long v3 = iceberg.currentSnapshotId();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v3);

        // v4: the odds file dropped as a whole.
        iceberg.deleteFile(odds);
        long v4 = iceberg.currentSnapshotId();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v4);
        assertThat(table.files()).hasSize(1);
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        assertThat(table.status().version()).isEqualTo(4);
    }

    @Test
    void servesPartitionedTables() throws IOException {
        IcebergTestTable iceberg = IcebergTestTable.create(location(), IcebergTestTable.byRegion());
        iceberg.append(rows("a", "eu", range(0, 600, 2)));
        iceberg.append(rows("b", "us", range(1, 900, 3)));
        iceberg.append(rows("c", "ap", range(500, MAX_KEY, 5)));
        long v = iceberg.currentSnapshotId();
        RefreshingTable table = open(location());
        assertThat(table.files()).hasSize(3);
        assertServes(table, iceberg, v);
    }

    @Test
    void theSortKeyComesFromTheTablesSortOrderWhenNotGiven() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.table.replaceSortOrder().asc("id").commit();
        iceberg.append(rows("a", "eu", range(0, 1_000, 2)));
        iceberg.append(rows("b", "us", range(1, 1_000, 2)));
        long v = iceberg.currentSnapshotId();
        RefreshingTable table =
                RefreshingTable.open(
                        TableConfig.builder(location()).metadataCache(cache).build(),
                        RefreshOptions.defaults().withFormat(IcebergFormat.NAME));
        opened.add(table);
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lease.table().sortKey()).containsExactly("id");
        }
        assertServes(table, iceberg, v);

        // A transform first: no usable prefix, so the key must come from 'sort-key'.
        iceberg.table
                .replaceSortOrder()
                .asc(org.apache.iceberg.expressions.Expressions.bucket("name", 4))
                .asc("id")
                .commit();
        iceberg.table.refresh();
        assertThat(IcebergSnapshotSource.sortKey(iceberg.table)).isEmpty();
        iceberg.table.replaceSortOrder().asc("region").asc("id").desc("name").commit();
        iceberg.table.refresh();
        assertThat(IcebergSnapshotSource.sortKey(iceberg.table)).containsExactly("region", "id");
    }

    @Test
    void appliesPositionDeletes() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        DataFile file = iceberg.append(rows("a", "eu", range(0, 500, 1)));
        DataFile other = iceberg.append(rows("b", "us", range(0, 100, 1)));
        long v2 = iceberg.currentSnapshotId();
        RefreshingTable table = open(location());
        assertServes(table, iceberg, v2);

        // One delete file over both data files (rows on either side of page boundaries).
        iceberg.deletePositions(file, 0, 3, 4, 63, 64, 65, 200, 499);
        long v3 = iceberg.currentSnapshotId();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v3);
        assertThat(iceberg.read(v3).get(3L)).containsExactly("3|b-3|us");

        iceberg.deletePositions(other, 3, 50);
        long v4 = iceberg.currentSnapshotId();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v4);
        assertThat(iceberg.read(v4)).doesNotContainKey(3L);
        // The data files did not change: the same two stay open.
        assertThat(table.files()).hasSize(2);
    }

    @Test
    void appliesDeletionVectorsOfFormatVersion3() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned(), 3);
        DataFile file = iceberg.append(rows("a", "eu", range(0, 1_000, 1)));
        RefreshingTable table = open(location());
        iceberg.deleteWithVector(file, 1, 2, 64, 127, 128, 999);
        long v2 = iceberg.currentSnapshotId();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, iceberg, v2);
        assertThat(iceberg.read(v2)).doesNotContainKeys(1L, 2L, 64L, 127L, 128L, 999L);
    }

    @Test
    void aMissingDeleteFileIsRefusedAndTheLastGoodVersionServes() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        DataFile file = iceberg.append(rows("a", "eu", range(0, 500, 1)));
        long v1 = iceberg.currentSnapshotId();
        RefreshingTable table = open(location());
        iceberg.deletePositions(file, 3);
        long v2 = iceberg.currentSnapshotId();
        try (Stream<Path> files = Files.walk(dir.resolve("dim/data"))) {
            for (Path p :
                    files.filter(p -> p.getFileName().toString().startsWith("00002-")).toList()) {
                Files.delete(p);
            }
        }
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError())
                .contains("iceberg snapshot " + v2, "cannot read the delete file");
        assertServes(table, iceberg, v1);
    }

    @Test
    void refusesEqualityDeletesWithTheFix() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.append(rows("a", "eu", range(0, 500, 1)));
        iceberg.deleteIds(7, 8);
        assertThatThrownBy(() -> open(location()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has equality deletes")
                .hasMessageContaining("Compact the table")
                .hasMessageContaining("rewrite_data_files")
                .hasMessageContaining(location());
    }

    @Test
    void aDirectoryThatIsNotATableIsNamed() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Files.writeString(plain.resolve("x.parquet"), "not parquet");
        assertThatThrownBy(() -> open(plain.toUri().toString()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("is not an Iceberg table")
                .hasMessageContaining("'format' = 'files'");
    }

    @Test
    void corruptOrMissingMetadataKeepsTheLastGoodVersion() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.append(rows("a", "eu", range(0, 300, 1)));
        long v1 = iceberg.currentSnapshotId();
        RefreshingTable table = open(location());

        // v2's metadata file is garbage.
        iceberg.append(rows("b", "eu", range(300, 600, 1)));
        Path metadata = dir.resolve("dim/metadata");
        Path newest = newestMetadataFile(metadata);
        byte[] good = Files.readAllBytes(newest);
        Files.writeString(newest, "{ not json");
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains("Cannot read the metadata", location());
        assertServes(table, iceberg, v1);

        // Repaired, but the manifest list of v2 is gone.
        Files.write(newest, good);
        long v2 = iceberg.currentSnapshotId();
        Path manifestList =
                Path.of(
                        java.net.URI.create(
                                iceberg.table.currentSnapshot().manifestListLocation()));
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
    void aVersionWhoseDataFileIsGoneIsRefused() throws IOException {
        IcebergTestTable iceberg =
                IcebergTestTable.create(location(), PartitionSpec.unpartitioned());
        iceberg.append(rows("a", "eu", range(0, 300, 1)));
        long v1 = iceberg.currentSnapshotId();
        RefreshingTable table = open(location());
        DataFile gone = iceberg.append(rows("b", "eu", range(300, 600, 1)));
        Files.delete(Path.of(java.net.URI.create(gone.location())));
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(fileName(gone.location()));
        assertServes(table, iceberg, v1);
    }

    @Test
    void theFormatIsFoundOnTheClassPath() {
        assertThat(TableFormat.find("ICEBERG")).isInstanceOf(IcebergFormat.class);
        assertThat(TableFormat.find("delta")).isInstanceOf(DeltaFormat.class);
        assertThatThrownBy(() -> TableFormat.find("hudi"))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Unknown table format 'hudi'")
                .hasMessageContaining("[files, iceberg, delta]");
    }

    private static String fileName(String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }

    private static Path newestMetadataFile(Path metadata) throws IOException {
        try (Stream<Path> files = Files.list(metadata)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".metadata.json"))
                    .max((a, b) -> Integer.compare(number(a), number(b)))
                    .orElseThrow();
        }
    }

    private static int number(Path p) {
        String n = p.getFileName().toString();
        return Integer.parseInt(n.substring(1, n.indexOf('.')));
    }

    @SafeVarargs
    private static <T> List<T> concat(List<T>... lists) {
        List<T> all = new ArrayList<>();
        for (List<T> l : lists) {
            all.addAll(l);
        }
        return all;
    }
}
