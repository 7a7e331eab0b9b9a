package dev.parquetlookup.formats;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.formats.SparkDeltaTablesTest.Expected;
import dev.parquetlookup.metadata.LookupFileException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static dev.parquetlookup.formats.SparkDeltaTablesTest.assertServesById;
import static dev.parquetlookup.formats.SparkDeltaTablesTest.assertServesBySecondColumn;
import static dev.parquetlookup.formats.SparkDeltaTablesTest.fixtures;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Iceberg tables written and maintained by Apache Spark 4.1 (iceberg-spark-runtime 1.12; the
 * fixtures of {@code src/test/resources/spark-iceberg/}, written by the {@code spark-tables}
 * module): every snapshot, opened with {@code 'scan.version'}, answers every id and every name
 * exactly as Spark reads it, as {@link SparkDeltaTablesTest} checks the Delta tables: appends
 * without sorting to a table without a sort order, {@code rewrite_data_files} (bin packing) over
 * sorted files, merge-on-read {@code DELETE} and {@code UPDATE} (position delete files).
 */
class SparkIcebergTablesTest extends TableTests {

    /** The snapshots (by their place in the table's history) holding a file not sorted by id. */
    private static final Map<String, Set<Long>> UNSORTED =
            Map.of("unsorted", Set.of(0L, 1L), "compacted", Set.of(2L, 3L, 4L));

    /** Every (table, n, snapshot id, operation) of the fixtures. */
    static Stream<String[]> snapshots() throws IOException {
        List<String[]> all = new ArrayList<>();
        try (Stream<Path> tables = Files.list(fixtures("spark-iceberg").resolve("expected"))) {
            for (Path t : tables.sorted().toList()) {
                for (String line : Files.readAllLines(t.resolve("history.tsv"))) {
                    String[] v = line.split("\t");
                    all.add(new String[] {t.getFileName().toString(), v[0], v[1], v[2]});
                }
            }
        }
        assertThat(all).hasSizeGreaterThanOrEqualTo(7);
        return all.stream();
    }

    private RefreshingTable open(String table, String snapshot, UnsortedFiles unsorted)
            throws IOException {
        Path root = fixtures("spark-iceberg").resolve("tables/db").resolve(table);
        return open(
                TableConfig.builder(root.toUri().toString())
                        .sortKey(List.of("id"))
                        .hadoopOptions(Map.of("scan.version", snapshot))
                        .unsortedFiles(unsorted)
                        .indexDirectory(dir.resolve("indexes"))
                        .metadataCache(cache)
                        .build(),
                IcebergFormat.NAME);
    }

    @ParameterizedTest(name = "{0} #{1} ({3})")
    @MethodSource("snapshots")
    void everyRowOfEverySnapshotIsServedAsSparkReadsIt(
            String table, String n, String snapshot, String operation) throws IOException {
        Expected expected =
                Expected.read(
                        fixtures("spark-iceberg").resolve("expected").resolve(table),
                        Long.parseLong(n));
        assertThat(expected.columns()).containsExactly("id", "name", "region", "score", "ts");
        KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
        RefreshingTable served = open(table, snapshot, UnsortedFiles.INDEX);
        String label = "iceberg snapshot " + snapshot;
        long maxId = assertServesById(served, expected, label);
        assertServesBySecondColumn(served, expected, label);

        KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
        boolean unsorted = UNSORTED.get(table).contains(Long.parseLong(n));
        if (unsorted) {
            assertThat(
                            after.filesIndexed()
                                    + after.indexesReused()
                                    - before.filesIndexed()
                                    - before.indexesReused())
                    .as("key indexes of %s", label)
                    .isPositive();
        }

        // 'unsorted-files' = 'refuse' refuses exactly the snapshots holding unsorted files.
        List<LookupFileException.Unsorted> refusals = new ArrayList<>();
        try {
            RefreshingTable refusing = open(table, snapshot, UnsortedFiles.REFUSE);
            LookupPlan plan = refusing.plan(List.of("id"), List.of("id"));
            for (long id = 0; id <= maxId; id++) {
                try {
                    refusing.lookup(plan, new Object[] {id});
                } catch (LookupFileException.Unsorted e) {
                    refusals.add(e);
                }
            }
        } catch (LookupFileException.Unsorted e) {
            refusals.add(e);
        }
        if (!unsorted) {
            assertThat(refusals).as("refusals of %s", label).isEmpty();
        } else {
            assertThat(refusals).as("refusals of %s", label).isNotEmpty();
            for (LookupFileException.Unsorted e : refusals) {
                assertThat(e.getMessage())
                        .contains("is not sorted by 'id'")
                        .contains("'unsorted-files' = 'index'");
            }
        }
    }
}
