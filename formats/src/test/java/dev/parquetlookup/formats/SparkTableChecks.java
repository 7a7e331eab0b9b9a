package dev.parquetlookup.formats;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.TimestampValue;

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
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the tests of the tables Apache Spark wrote ({@link SparkDeltaTablesTest}, {@link
 * SparkIcebergTablesTest}) check the same way: a version, opened as the format reads it, answers
 * every id and every value of its second column exactly as Spark's read of it ({@link Expected},
 * written by the {@code spark-tables} module); the versions holding files Spark left unsorted by id
 * go through key indexes, and are refused with {@code 'unsorted-files' = 'refuse'} in the table's
 * names, never advising a rewrite of the table's data files; the sorted versions are never refused.
 */
abstract class SparkTableChecks extends TableTests {

    /** Opens the version under test, its unsorted files indexed or refused. */
    @FunctionalInterface
    interface Opener {
        RefreshingTable open(UnsortedFiles unsorted) throws IOException;
    }

    /** The fixture directory {@code name} of the test resources. */
    static Path fixtures(String name) {
        try {
            return Path.of(SparkTableChecks.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every line of every table's {@code expected/<table>/history.tsv} under {@code fixtures}, as
     * the table's name followed by the line's fields (the version, ...); at least {@code atLeast}.
     */
    static Stream<String[]> history(Path fixtures, int atLeast) throws IOException {
        List<String[]> all = new ArrayList<>();
        try (Stream<Path> tables = Files.list(fixtures.resolve("expected"))) {
            for (Path t : tables.sorted().toList()) {
                for (String line : Files.readAllLines(t.resolve("history.tsv"))) {
                    List<String> v = new ArrayList<>();
                    v.add(t.getFileName().toString());
                    v.addAll(Arrays.asList(line.split("\t")));
                    all.add(v.toArray(String[]::new));
                }
            }
        }
        assertThat(all).hasSizeGreaterThanOrEqualTo(atLeast);
        return all.stream();
    }

    /** Spark's read of one version: its columns, then its rows as tab-joined text. */
    record Expected(List<String> columns, List<String[]> rows) {

        /** {@code v<version>.tsv.gz} in {@code dir}. */
        static Expected read(Path dir, long version) throws IOException {
            Path file = dir.resolve("v" + version + ".tsv.gz");
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

    /**
     * The version {@code open} opens, named {@code label} by its format, answers as {@code
     * expected} by id and by its second column; when it holds files not sorted by id ({@code
     * unsorted}) they went through key indexes and {@code 'unsorted-files' = 'refuse'} refuses it
     * (at open or at a lookup), naming the table's column (not a column-mapped file's {@code
     * col-<uuid>}), advising the index and never a rewrite of the table's data files; otherwise
     * nothing is refused.
     */
    static void assertServedAsSparkReadsIt(
            Expected expected, String label, boolean unsorted, Opener open) throws IOException {
        assertThat(expected.rows()).hasSizeGreaterThan(1_000);
        KeyIndexes.Statistics before = KeyIndexes.shared().statistics();
        RefreshingTable served = open.open(UnsortedFiles.INDEX);
        long maxId = assertServesById(served, expected, label);
        assertServesBySecondColumn(served, expected, label);

        KeyIndexes.Statistics after = KeyIndexes.shared().statistics();
        long indexes =
                after.filesIndexed()
                        + after.indexesReused()
                        - before.filesIndexed()
                        - before.indexesReused();
        if (unsorted) {
            assertThat(indexes).as("key indexes of %s", label).isPositive();
        }

        List<LookupFileException.Unsorted> refusals = new ArrayList<>();
        try {
            RefreshingTable refusing = open.open(UnsortedFiles.REFUSE);
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
            return;
        }
        assertThat(refusals).as("refusals of %s", label).isNotEmpty();
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
    static long assertServesById(RefreshingTable served, Expected expected, String version)
            throws IOException {
        Map<String, List<String>> byId = expected.by(0);
        long maxId = byId.keySet().stream().mapToLong(Long::parseLong).max().orElseThrow();
        LookupPlan plan = served.plan(List.of("id"), expected.columns());
        int rows = 0;
        int absent = 0;
        try (RefreshingTable.Lease lease = served.acquire()) {
            assertThat(lease.sourceVersion()).isEqualTo(version);
            for (long id = -3; id <= maxId + 20; id++) {
                List<String> want = byId.getOrDefault(Long.toString(id), List.of());
                assertThat(texts(lease.table().lookup(plan, new Object[] {id})))
                        .as("id %d of %s", id, version)
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
     * The second column (name or, renamed, label) as a secondary key: every value and a few that
     * were never written answer as Spark read {@code version}.
     */
    static void assertServesBySecondColumn(
            RefreshingTable served, Expected expected, String version) throws IOException {
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
                    .as("%s '%s' of %s", second, e.getKey(), version)
                    .isEqualTo(e.getValue());
        }
    }

    /** Rows as Spark's expected text: tab-joined, NULL as \N, a TIMESTAMP as epoch micros. */
    static List<String> texts(List<Object[]> rows) {
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
