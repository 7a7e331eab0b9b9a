package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Delta tables written and maintained by Apache Spark 4.1 (delta-spark 4.1; the fixtures of {@code
 * src/test/resources/spark-delta/}, written by the {@code spark-tables} module): every version of
 * each, opened with {@code 'scan.version'}, answers every id Spark wrote, by the key {@code id} and
 * by the secondary key of its second column (a name), exactly as Spark reads that version; ids
 * never written are absent. The versions Spark left unsorted by id ({@code OPTIMIZE}, {@code
 * OPTIMIZE ZORDER BY}, an {@code UPDATE} over several files, a write without sorting) are served
 * through key indexes, and refused with {@code 'unsorted-files' = 'refuse'} in the table's names,
 * never advising a rewrite of the table's data files.
 */
class SparkDeltaTablesTest extends SparkTableChecks {

    /**
     * The versions holding a file not sorted by id, as found in the fixtures (history.tsv names
     * each version's operation): writes without sorting; OPTIMIZE (b, e), OPTIMIZE ZORDER BY (c);
     * the UPDATE whose scan covered all 8 files (d, v1) and every later version keeping its file;
     * the column-mapped table's unsorted append (e, v2).
     */
    private static final Map<String, Set<Long>> UNSORTED =
            Map.of(
                    "unsorted", Set.of(0L, 1L),
                    "optimize", Set.of(2L),
                    "zorder", Set.of(2L),
                    "update", Set.of(1L, 2L, 3L, 4L),
                    "mapped", Set.of(2L, 3L));

    static Path fixtures() {
        return fixtures("spark-delta");
    }

    /** Every (table, version, operation) of the fixtures. */
    static Stream<String[]> versions() throws IOException {
        return history(fixtures(), 15);
    }

    /** Spark's read of version {@code version} of {@code table}. */
    static Expected expected(String table, long version) throws IOException {
        return Expected.read(fixtures().resolve("expected").resolve(table), version);
    }

    private RefreshingTable open(String table, long version, UnsortedFiles unsorted)
            throws IOException {
        return open(
                TableConfig.builder(fixtures().resolve("tables").resolve(table).toUri().toString())
                        .sortKey(List.of("id"))
                        .hadoopOptions(Map.of("scan.version", Long.toString(version)))
                        .unsortedFiles(unsorted)
                        .indexDirectory(dir.resolve("indexes"))
                        .metadataCache(cache)
                        .build(),
                DeltaFormat.NAME);
    }

    @ParameterizedTest(name = "{0} v{1} ({2})")
    @MethodSource("versions")
    void everyRowOfEveryVersionIsServedAsSparkReadsIt(String table, String v, String operation)
            throws IOException {
        long version = Long.parseLong(v);
        Expected expected = expected(table, version);
        assertThat(expected.columns()).startsWith("id").contains("region", "score", "ts");
        assertServedAsSparkReadsIt(
                expected,
                "delta version " + version,
                UNSORTED.get(table).contains(version),
                unsorted -> open(table, version, unsorted));
    }

    /**
     * Issue 27: a job following a Delta table stayed on the last sorted version for good after the
     * table's first {@code OPTIMIZE}. Here a table followed at v1 (two sorted writes) refreshes to
     * Spark's {@code OPTIMIZE} (v2, its commit copied in as Spark wrote it) and serves it.
     */
    @Test
    void aFollowedTableRefreshesToSparksOptimize() throws IOException {
        Path source = fixtures().resolve("tables/optimize");
        Path copy = dir.resolve("optimize");
        String v2 = String.format("%020d", 2);
        try (Stream<Path> files = Files.walk(source)) {
            for (Path p : files.toList()) {
                Path target = copy.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().startsWith(v2)) {
                    Files.copy(p, target);
                }
            }
        }
        RefreshingTable followed =
                open(
                        TableConfig.builder(copy.toUri().toString())
                                .sortKey(List.of("id"))
                                .indexDirectory(dir.resolve("indexes"))
                                .metadataCache(cache)
                                .build(),
                        DeltaFormat.NAME);
        assertServesById(followed, expected("optimize", 1), "delta version 1");

        for (String suffix : List.of(".json", ".crc")) {
            Files.copy(
                    source.resolve("_delta_log").resolve(v2 + suffix),
                    copy.resolve("_delta_log").resolve(v2 + suffix));
        }
        assertThat(followed.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServesById(followed, expected("optimize", 2), "delta version 2");
    }
}
