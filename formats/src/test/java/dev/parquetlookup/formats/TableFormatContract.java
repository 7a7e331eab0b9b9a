package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.TableFormat;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.metadata.LookupFileException;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every table format (a log or metadata naming the data files of each version) must do beyond
 * {@link TableVersionsContract}: deleted rows never returned, a version that cannot be served
 * exactly refused while the last good one keeps serving, a path that is not a table named, renamed
 * and added columns served, partition values as per-file constants that prune files, and the format
 * found by its name.
 */
abstract class TableFormatContract<T extends FormatTestTable<F>, F>
        extends TableVersionsContract<T, F> {

    /** A new empty table whose rows can be deleted (not only whole files). */
    abstract T createWithRowDeletes() throws IOException;

    /** A new empty table partitioned by {@code region} (identity). */
    abstract T createPartitionedByRegion() throws IOException;

    /** A new empty table partitioned by {@code region} whose columns can be renamed. */
    abstract T createForEvolution() throws IOException;

    /** Deletes the rows at {@code positions} of {@code file} in a new version. */
    abstract void deleteRows(T t, F file, long... positions) throws IOException;

    /** Removes the files that hold the deleted rows of the latest version. */
    abstract void removeDeleteFiles() throws IOException;

    /** How a refresh names a version whose deleted rows cannot be read. */
    abstract String missingDeletesError();

    /** The metadata file of the latest version (a commit, a metadata file). */
    abstract Path latestMetadataFile(T t) throws IOException;

    /** What a refresh says when that file is garbage. */
    abstract List<String> corruptMetadataErrors();

    /** What opening a directory of Parquet files as this format says. */
    abstract String notATableError();

    /** Renames a column of the table in a new version. */
    abstract void renameColumn(T t, String from, String to) throws IOException;

    /** Adds an INT column to the table in a new version. */
    abstract void addIntColumn(T t, String name) throws IOException;

    /** The table by {@code sortKey} without a page cache: every lookup reads the files. */
    final RefreshingTable openUncached(List<String> sortKey) throws IOException {
        return open(
                TableConfig.builder(tablePath())
                        .sortKey(sortKey)
                        .metadataCache(cache)
                        .pageCache(null)
                        .build());
    }

    static List<Map<String, Object>> values(
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

    @Test
    void deletedRowsAreNeverReturned() throws IOException {
        T t = createWithRowDeletes();
        F file = t.append(rows("a", "eu", range(0, 500, 1)));
        F other = t.append(rows("b", "us", range(0, 100, 1)));
        RefreshingTable table = open();
        assertServes(table, t, t.version());

        // Rows on either side of page boundaries.
        deleteRows(t, file, 0, 3, 4, 63, 64, 65, 200, 499);
        long v3 = t.version();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, v3);
        assertThat(t.read(v3).get(3L)).containsExactly("3|b-3|us");

        deleteRows(t, other, 3, 50);
        long v4 = t.version();
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, v4);
        assertThat(t.read(v4)).doesNotContainKey(3L);
        // The data files did not change: the same two stay open.
        assertThat(table.files()).hasSize(2);
    }

    @Test
    void secondaryKeysSkipDeletedRows() throws IOException {
        T t = createWithRowDeletes();
        F file = t.append(rows("a", "eu", range(0, 500, 1)));
        t.append(rows("b", "us", range(0, 100, 1)));
        deleteRows(t, file, 0, 3, 64, 200, 499);
        Map<Long, List<String>> expected = t.read(t.version());
        RefreshingTable table = open(); // sorted by id, looked up by name: a secondary key
        LookupPlan byName = table.plan(List.of("name"), List.of("id", "name", "region"));
        assertThat(byName.secondary()).isTrue();
        for (String prefix : List.of("a", "b")) {
            for (long i = 0; i < 510; i++) {
                long id = i;
                String name = prefix + "-" + id;
                List<String> want =
                        expected.getOrDefault(id, List.of()).stream()
                                .filter(r -> r.startsWith(id + "|" + name + "|"))
                                .toList();
                List<String> got =
                        table.lookup(byName, new Object[] {name}).stream()
                                .map(r -> FormatTestTable.joined(r))
                                .toList();
                assertThat(got).as(name).isEqualTo(want);
            }
        }
        assertThat(table.lookup(byName, new Object[] {"a-3"})).isEmpty(); // deleted
    }

    @Test
    void aSecondaryKeyWithAPartitionColumnComparesItsValueWithoutReading() throws IOException {
        T partitioned = createPartitionedByRegion();
        partitioned.appendValues(values(0, 300, "name", "p", "eu"));
        partitioned.appendValues(values(100, 400, "name", "p", "us"));
        RefreshingTable byRegionAndName = open();
        LookupPlan plan = byRegionAndName.plan(List.of("name", "region"), List.of("id", "region"));
        assertThat(byRegionAndName.lookup(plan, new Object[] {"p-150", "us"}))
                .extracting(FormatTestTable::joined)
                .containsExactly("150|us");
        assertThat(byRegionAndName.lookup(plan, new Object[] {"p-350", "eu"})).isEmpty();
        assertThat(byRegionAndName.lookup(plan, new Object[] {"p-150", null})).isEmpty();
    }

    @Test
    void aMissingDeleteFileIsRefusedAndTheLastGoodVersionServes() throws IOException {
        T t = createWithRowDeletes();
        F file = t.append(rows("a", "eu", range(0, 500, 1)));
        long v1 = t.version();
        RefreshingTable table = open();
        deleteRows(t, file, 3);
        long v2 = t.version();
        removeDeleteFiles();
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(t.versionLabel(v2), missingDeletesError());
        assertServes(table, t, v1);
    }

    @Test
    void aDirectoryThatIsNotATableIsNamed() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Files.writeString(plain.resolve("x.parquet"), "not parquet");
        assertThatThrownBy(() -> open(plain.toUri().toString(), List.of("id"), Map.of()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining(notATableError())
                .hasMessageContaining("'format' = 'files'");
    }

    @Test
    void corruptMetadataKeepsTheLastGoodVersion() throws IOException {
        T t = create();
        t.append(rows("a", "eu", range(0, 300, 1)));
        long v1 = t.version();
        RefreshingTable table = open();

        // v2's metadata is garbage.
        t.append(rows("b", "eu", range(300, 600, 1)));
        Path metadata = latestMetadataFile(t);
        byte[] good = Files.readAllBytes(metadata);
        Files.writeString(metadata, "{ not json");
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(corruptMetadataErrors());
        assertServes(table, t, v1);

        // Repaired: v2 is served.
        Files.write(metadata, good);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, t.version());
    }

    @Test
    void aVersionWhoseDataFileIsGoneIsRefused() throws IOException {
        T t = create();
        t.append(rows("a", "eu", range(0, 300, 1)));
        long v1 = t.version();
        RefreshingTable table = open();
        Path gone = t.dataFile(t.append(rows("b", "eu", range(300, 600, 1))));
        Files.delete(gone);
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains(gone.getFileName().toString());
        assertServes(table, t, v1);
    }

    /**
     * Two files before a rename of {@code name} to {@code label} and an added {@code score}, one
     * after: the old files' {@code name} serves {@code label}, their {@code score} is NULL.
     */
    void servesRenamedAndAddedColumns(T t) throws IOException {
        t.appendValues(values(0, 300, "name", "a", "eu"));
        t.appendValues(values(200, 500, "name", "b", "us"));
        renameColumn(t, "name", "label");
        addIntColumn(t, "score");
        List<Map<String, Object>> later = values(400, 700, "label", "c", "eu");
        later.forEach(r -> r.put("score", (int) ((Long) r.get("id") % 5)));
        t.appendValues(later);

        RefreshingTable table = openUncached(List.of("id"));
        assertThat(table.columns().stream().map(c -> c.name()).toList())
                .containsExactly("id", "label", "region", "score");
        assertServes(table, t, List.of("id", "label", "region", "score"), 720);
        LookupPlan plan = table.plan(List.of("id"), List.of("label", "region", "score"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            assertThat(lookup(lease, plan, 450L)).containsExactly("b-450|us|null", "c-450|eu|0");
        }
    }

    @Test
    void renamedAndAddedColumnsAreServed() throws IOException {
        servesRenamedAndAddedColumns(createForEvolution());
    }

    @Test
    void aRefreshThatRenamesAServedColumnIsRefusedAndTheLastVersionServes() throws IOException {
        T t = createForEvolution();
        t.appendValues(values(0, 100, "name", "a", "eu"));
        long v1 = t.version();
        RefreshingTable table = openUncached(List.of("id"));
        renameColumn(t, "name", "label");
        t.appendValues(values(100, 200, "label", "b", "us"));
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError())
                .contains("Column 'name'")
                .contains("restart the job");
        assertServes(table, t, v1, List.of("id", "name", "region"), 120);

        // An added column is no obstacle to a running table: its plans never name it.
        renameColumn(t, "label", "name");
        addIntColumn(t, "score");
        Map<String, Object> row = new HashMap<>(values(500, 501, "name", "x", "eu").get(0));
        row.put("score", 1);
        t.appendValues(List.of(row));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServes(table, t, List.of("id", "name", "region"), 600);
    }

    @Test
    void partitionColumnsAreConstantsThatPruneFilesWithoutReading() throws IOException {
        T t = createPartitionedByRegion();
        // Each region's ids overlap the others': only the partition tells the files apart.
        t.appendValues(values(0, 400, "name", "a", "eu"));
        t.appendValues(values(200, 600, "name", "b", "us"));
        t.appendValues(values(100, 500, "name", "c", "ap"));
        t.appendValues(values(450, 700, "name", "d", "eu"));
        RefreshingTable table = openUncached(List.of("region", "id"));
        assertThat(table.sortKey()).containsExactly("region", "id");
        Map<Long, List<String>> expected =
                t.readColumns(t.version(), List.of("id", "name", "region"));
        LookupPlan plan = table.plan(List.of("region", "id"), List.of("id", "name", "region"));
        try (RefreshingTable.Lease lease = table.acquire()) {
            for (String region : List.of("eu", "us", "ap", "none")) {
                for (long id = 0; id <= 720; id++) {
                    List<String> want =
                            expected.getOrDefault(id, List.of()).stream()
                                    .filter(s -> s.endsWith("|" + region))
                                    .toList();
                    assertThat(lookup(lease, plan, region, id))
                            .as("(%s, %d)", region, id)
                            .isEqualTo(want);
                }
            }
            // A partition no file has: nothing is read.
            ReadStatistics stats = lease.table().readStatistics();
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
        // Looked up by id alone, across partitions.
        RefreshingTable byId = openUncached(List.of("id"));
        assertServes(byId, t, List.of("id", "name", "region"), 720);
    }

    @Test
    void aSortKeyMadeOnlyOfPartitionColumnsIsRefusedWithTheFix() throws IOException {
        T t = createPartitionedByRegion();
        t.appendValues(values(0, 10, "name", "a", "eu"));
        assertThatThrownBy(() -> openUncached(List.of("region")))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("sort key [region] is made only of columns the file does")
                .hasMessageContaining("'sort-key'");
    }

    @Test
    void theFormatIsFoundOnTheClassPathByItsName() {
        assertThat(TableFormat.find(format()).name()).isEqualTo(format());
        assertThat(TableFormat.find(format().toUpperCase(Locale.ROOT)).name()).isEqualTo(format());
        assertThatThrownBy(() -> TableFormat.find("hudi"))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("Unknown table format 'hudi'")
                .hasMessageContaining("[files, iceberg, delta]");
    }
}
