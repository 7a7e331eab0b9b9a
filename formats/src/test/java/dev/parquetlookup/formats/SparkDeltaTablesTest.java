package dev.parquetlookup.formats;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.TimestampValue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

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
class SparkDeltaTablesTest extends TableTests {

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
        try {
            return Path.of(SparkDeltaTablesTest.class.getResource("/spark-delta").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every (table, version, operation) of the fixtures. */
    static Stream<String[]> versions() throws IOException {
        List<String[]> all = new ArrayList<>();
        try (Stream<Path> tables = Files.list(fixtures().resolve("expected"))) {
            for (Path t : tables.sorted().toList()) {
                for (String line : Files.readAllLines(t.resolve("history.tsv"))) {
                    String[] v = line.split("\t");
                    all.add(new String[] {t.getFileName().toString(), v[0], v[1]});
                }
            }
        }
        assertThat(all).hasSizeGreaterThanOrEqualTo(15);
        return all.stream();
    }

    /** Spark's read of one version: its columns, then its rows as tab-joined text. */
    record Expected(List<String> columns, List<String[]> rows) {

        static Expected read(String table, long version) throws IOException {
            Path file =
                    fixtures()
                            .resolve("expected")
                            .resolve(table)
                            .resolve("v" + version + ".tsv.gz");
            try (BufferedReader in =
                    new BufferedReader(
                            new InputStreamReader(
                                    new GZIPInputStream(Files.newInputStream(file)),
                                    StandardCharsets.UTF_8))) {
                List<String> columns = Arrays.asList(in.readLine().split("\t"));
                List<String[]> rows = new ArrayList<>();
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    rows.add(line.split("\t", -1));
                }
                return new Expected(columns, rows);
            }
        }

        /** The rows grouped by the value of {@code column}, each group's rows sorted. */
        Map<String, List<String>> by(int column) {
            Map<String, List<String>> out = new HashMap<>();
            for (String[] r : rows) {
                out.computeIfAbsent(r[column], k -> new ArrayList<>()).add(String.join("\t", r));
            }
            out.values().forEach(l -> l.sort(null));
            return out;
        }
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
        Expected expected = Expected.read(table, version);
        assertThat(expected.columns()).startsWith("id").contains("region", "score", "ts");
        assertThat(expected.rows()).hasSizeGreaterThan(1_000);
        KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
        RefreshingTable served = open(table, version, UnsortedFiles.INDEX);

        long maxId = assertServesById(served, expected, table, version);

        // By the second column (name or, renamed, label), a secondary key: every value and a few
        // that were never written.
        String second = expected.columns().get(1);
        LookupPlan bySecond = served.plan(List.of(second), expected.columns());
        assertThat(bySecond.secondary()).isTrue();
        Map<String, List<String>> byName = new TreeMap<>(expected.by(1));
        for (String never : List.of("n5-zz", "", "n996", "N1-a")) {
            assertThat(byName).doesNotContainKey(never);
            byName.put(never, List.of());
        }
        for (Map.Entry<String, List<String>> e : byName.entrySet()) {
            assertThat(texts(served.lookup(bySecond, new Object[] {e.getKey()})))
                    .as("%s '%s' of %s v%d", second, e.getKey(), table, version)
                    .isEqualTo(e.getValue());
        }

        // The files Spark left unsorted by id were served through key indexes, not refused.
        KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
        long indexes =
                after.filesIndexed()
                        + after.indexesReused()
                        - before.filesIndexed()
                        - before.indexesReused();
        boolean unsorted = UNSORTED.get(table).contains(version);
        if (unsorted) {
            assertThat(indexes).as("key indexes of %s v%d", table, version).isPositive();
        }

        // Refused with 'unsorted-files' = 'refuse': at open or at the first lookup of such a file,
        // naming the table's column (not a column-mapped file's col-<uuid>), advising the index,
        // never a rewrite of the table's data files.
        List<LookupFileException.Unsorted> refusals = new ArrayList<>();
        try {
            RefreshingTable refusing = open(table, version, UnsortedFiles.REFUSE);
            LookupPlan refusingPlan = refusing.plan(List.of("id"), List.of("id"));
            for (long id = 0; id <= maxId; id++) {
                try {
                    refusing.lookup(refusingPlan, new Object[] {id});
                } catch (LookupFileException.Unsorted e) {
                    refusals.add(e);
                }
            }
        } catch (LookupFileException.Unsorted e) {
            refusals.add(e);
        }
        if (!unsorted) {
            assertThat(refusals).as("refusals of %s v%d", table, version).isEmpty();
            return;
        }
        assertThat(refusals).as("refusals of %s v%d", table, version).isNotEmpty();
        for (LookupFileException.Unsorted e : refusals) {
            assertThat(e.getMessage())
                    .contains("is not sorted by 'id'")
                    .contains("'unsorted-files' = 'index'")
                    .doesNotContain("col-")
                    .satisfies(
                            m -> {
                                if (m.contains("prepare")) {
                                    assertThat(m).contains("never a Delta or Iceberg table's");
                                }
                            });
        }
    }

    /**
     * Every id from -3 to past the largest, written ones and the absent ones among them, answers as
     * Spark read {@code version}; returns the largest id.
     */
    private static long assertServesById(
            RefreshingTable served, Expected expected, String table, long version)
            throws IOException {
        Map<String, List<String>> byId = expected.by(0);
        long maxId = byId.keySet().stream().mapToLong(Long::parseLong).max().orElseThrow();
        LookupPlan plan = served.plan(List.of("id"), expected.columns());
        int rows = 0;
        int absent = 0;
        try (RefreshingTable.Lease lease = served.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo("delta version " + version);
            for (long id = -3; id <= maxId + 20; id++) {
                List<String> want = byId.getOrDefault(Long.toString(id), List.of());
                assertThat(texts(lease.table().lookup(plan, new Object[] {id})))
                        .as("id %d of %s v%d", id, table, version)
                        .isEqualTo(want);
                rows += want.size();
                absent += want.isEmpty() ? 1 : 0;
            }
        }
        assertThat(rows).isEqualTo(expected.rows().size());
        assertThat(absent).isGreaterThan((int) (maxId / 13));
        return maxId;
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
        assertServesById(followed, Expected.read("optimize", 1), "optimize", 1);

        for (String suffix : List.of(".json", ".crc")) {
            Files.copy(
                    source.resolve("_delta_log").resolve(v2 + suffix),
                    copy.resolve("_delta_log").resolve(v2 + suffix));
        }
        assertThat(followed.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertServesById(followed, Expected.read("optimize", 2), "optimize", 2);
    }

    /** Rows as Spark's expected text: tab-joined, NULL as \N, a TIMESTAMP as epoch micros. */
    private static List<String> texts(List<Object[]> rows) {
        List<String> out = new ArrayList<>();
        for (Object[] r : rows) {
            List<String> values = new ArrayList<>();
            for (Object v : r) {
                values.add(
                        v == null
                                ? "\\N"
                                : v instanceof byte[] b
                                        ? new String(b, StandardCharsets.UTF_8)
                                        : v instanceof TimestampValue t
                                                ? Long.toString(
                                                        t.epochMillis() * 1_000
                                                                + t.nanoOfMillisecond() / 1_000)
                                                : v.toString());
            }
            out.add(String.join("\t", values));
        }
        out.sort(null);
        return out;
    }
}
