package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Files not sorted by the key, as real writers leave them, served through a key index by default:
 * parquet-java files with shuffled rows over several row groups (found unsorted at open, from
 * statistics) and a DuckDB file with row groups in key order but rows shuffled inside them (found
 * at the first lookup, by a key page out of order). Every answer is compared with an independent
 * read: parquet-java's record reader or DuckDB's own query. Index builds are counted through the
 * JVM's {@link KeyIndexes} (tests of one JVM run one at a time).
 */
class UnsortedFilesTest {

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    new ColumnSpec(
                            "k",
                            ValueType.of(ValueType.Kind.BIGINT),
                            ColumnSpec.Storage.PLAIN,
                            true),
                    new ColumnSpec(
                            "s",
                            ValueType.of(ValueType.Kind.STRING),
                            ColumnSpec.Storage.PLAIN,
                            true),
                    new ColumnSpec(
                            "v",
                            ValueType.of(ValueType.Kind.STRING),
                            ColumnSpec.Storage.PLAIN,
                            true));

    @TempDir Path tmp;

    /** Rows {@code k, s, v}: keys 0..keys-1 (some twice, some NULL), shuffled with {@code seed}. */
    private static List<Object[]> shuffledRows(int keys, long seed) {
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < keys; k++) {
            rows.add(new Object[] {k, bytes("key-" + k), bytes("v" + k)});
            if (k % 7 == 0) {
                rows.add(new Object[] {k, bytes("key-" + k), bytes("dup" + k)});
            }
        }
        for (int i = 0; i < 20; i++) {
            rows.add(new Object[] {null, null, bytes("null" + i)});
        }
        Collections.shuffle(rows, new Random(seed));
        return rows;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Path writeShuffled(String name, int keys, long seed) throws IOException {
        Path file = tmp.resolve(name);
        ParquetJavaFiles.write(
                file,
                COLUMNS,
                WriterOptions.defaults().withRowsPerPage(100).withRowsPerRowGroup(1000),
                shuffledRows(keys, seed));
        return file;
    }

    private TableConfig.Builder config(Path path, String key) {
        return TableConfig.builder(path.toString())
                .sortKey(List.of(key))
                .metadataCache(new MetadataCache(8 << 20))
                .indexDirectory(tmp.resolve("indexes"));
    }

    private static KeyIndexes.Statistics stats() {
        return KeyIndexes.shared().statistics();
    }

    /** Rows read by parquet-java's record reader, once per file version. */
    private final Map<String, List<Object[]>> readBack = new java.util.HashMap<>();

    /** The answer of an independent read (parquet-java's record reader), in file order. */
    private List<String> expected(Path file, int column, Object key) throws IOException {
        String version = file + "@" + Files.getLastModifiedTime(file) + "/" + Files.size(file);
        List<Object[]> rows = readBack.get(version);
        if (rows == null) {
            rows = ParquetJavaFiles.readRows(file, COLUMNS);
            readBack.put(version, rows);
        }
        List<String> result = new ArrayList<>();
        for (Object[] row : rows) {
            Object k = row[column];
            boolean equal =
                    k instanceof byte[] b
                            ? java.util.Arrays.equals(b, (byte[]) key)
                            : key.equals(k);
            if (k != null && equal) {
                result.add(new String((byte[]) row[2], StandardCharsets.UTF_8));
            }
        }
        return result;
    }

    private static List<String> values(List<Object[]> rows) {
        return rows.stream().map(r -> new String((byte[]) r[0], StandardCharsets.UTF_8)).toList();
    }

    @Test
    void shuffledParquetJavaFilesAreServedThroughAnIndexBuiltOnce() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("table"));
        Path a = writeShuffled("table/a.parquet", 3000, 1);
        Path b = writeShuffled("table/b.parquet", 2000, 2);
        long builds = stats().filesIndexed();
        try (DimensionTable table = DimensionTable.open(config(dir, "k").build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (long k = -5; k < 3005; k++) {
                List<String> want = new ArrayList<>(expected(a, 0, k));
                want.addAll(expected(b, 0, k));
                List<String> got = values(table.lookup(plan, new Object[] {k}));
                assertThat(got).as("key %d", k).containsExactlyInAnyOrderElementsOf(want);
            }
            assertThat(table.lookup(plan, new Object[] {null})).isEmpty();
        }
        assertThat(stats().filesIndexed() - builds).isEqualTo(2);
        assertThat(Files.list(tmp.resolve("indexes")).filter(p -> p.toString().endsWith(".pli")))
                .hasSize(2);
    }

    @Test
    void theTableFilterBuiltOnceEveryIndexIsReadyGivesTheSameAnswers() throws Exception {
        // Four shuffled files over overlapping key ranges (a key in none, one or several): the
        // same lookups before the table filter exists (each file's own filter) and after.
        Path dir = Files.createDirectories(tmp.resolve("table"));
        List<Path> files = new ArrayList<>();
        for (int f = 0; f < 4; f++) {
            files.add(writeShuffled("table/part-" + f + ".parquet", 1000 + 700 * f, 10 + f));
        }
        try (DimensionTable table = DimensionTable.open(config(dir, "k").build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.routing()).as("no filter before the indexes are built").isNull();
            List<List<String>> before = new ArrayList<>();
            for (long k = -3; k < 3200; k++) {
                before.add(values(table.lookup(plan, new Object[] {k})));
            }
            table.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(table.routing()).as("the filter once every index is built").isNotNull();
            for (long k = -3; k < 3200; k++) {
                List<String> want = new ArrayList<>();
                for (Path file : files) {
                    want.addAll(expected(file, 0, k));
                }
                List<String> got = values(table.lookup(plan, new Object[] {k}));
                assertThat(got).as("key %d", k).containsExactlyInAnyOrderElementsOf(want);
                assertThat(got)
                        .as("key %d before the filter", k)
                        .containsExactlyInAnyOrderElementsOf(before.get((int) (k + 3)));
                List<String> async =
                        values(
                                table.lookupAsync(
                                                plan, new Object[] {k}, RequestLimiter.unbounded())
                                        .join());
                assertThat(async)
                        .as("key %d, asynchronously", k)
                        .containsExactlyInAnyOrderElementsOf(want);
            }
            // A second table of the same files (another slot's) shares the built filter.
            try (DimensionTable other = DimensionTable.open(config(dir, "k").build())) {
                other.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(other.routing()).isSameAs(table.routing());
            }
        }
    }

    @Test
    void aTableOfMoreThan64UnsortedFilesAsksItsFilters64AtATime() throws Exception {
        // 70 shuffled files: file f holds keys f, f + 70, f + 140, ... and every file key 5000, so
        // a key's holder may lie past the first 64 files; by the sort key and by a secondary key.
        Path dir = Files.createDirectories(tmp.resolve("many"));
        int files = 70;
        List<Path> paths = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            List<Object[]> rows = new ArrayList<>();
            for (long k = f; k < files * 12; k += files) {
                rows.add(new Object[] {k, bytes("key-" + k), bytes("f" + f + "-" + k)});
            }
            rows.add(new Object[] {5000L, bytes("key-5000"), bytes("f" + f + "-5000")});
            Collections.shuffle(rows, new Random(f));
            Path file = dir.resolve(String.format("part-%02d.parquet", f));
            ParquetJavaFiles.write(
                    file,
                    COLUMNS,
                    WriterOptions.defaults().withRowsPerPage(4).withRowsPerRowGroup(8),
                    rows);
            paths.add(file);
        }
        try (DimensionTable table = DimensionTable.open(config(dir, "k").build())) {
            LookupPlan byK = table.plan(List.of("k"), List.of("v"));
            LookupPlan byS = table.plan(List.of("s"), List.of("v"));
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    table.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
                    assertThat(table.routing()).as("the table filter").isNotNull();
                }
                for (long k = -1; k <= files * 12; k++) {
                    List<String> want = new ArrayList<>();
                    for (Path file : paths) {
                        want.addAll(expected(file, 0, k));
                    }
                    assertThat(values(table.lookup(byK, new Object[] {k})))
                            .as("key %d, pass %d", k, pass)
                            .containsExactlyInAnyOrderElementsOf(want);
                    assertThat(values(table.lookup(byS, new Object[] {"key-" + k})))
                            .as("key-%d by the secondary key, pass %d", k, pass)
                            .containsExactlyInAnyOrderElementsOf(want);
                }
                assertThat(values(table.lookup(byK, new Object[] {5000L}))).hasSize(files);
                assertThat(values(table.lookup(byS, new Object[] {"key-5000"}))).hasSize(files);
            }
        }
    }

    /**
     * Files found unsorted only at their first lookup (one row group each, its rows shuffled: no
     * statistic shows it at open) join the table filter once their indexes are built: a lookup that
     * meets a built index the filter does not cover asks for a build in the background.
     */
    @Test
    void filesFoundUnsortedAtALookupJoinTheTableFilterOnceIndexed() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("late"));
        int files = 3;
        List<Path> paths = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            List<Object[]> rows = new ArrayList<>();
            for (long k = f; k < 3000; k += files) {
                rows.add(new Object[] {k, bytes("key-" + k), bytes("f" + f + "-" + k)});
            }
            Collections.shuffle(rows, new Random(40 + f));
            Path file = dir.resolve("part-" + f + ".parquet");
            ParquetJavaFiles.write(
                    file,
                    COLUMNS,
                    WriterOptions.defaults().withRowsPerPage(100).withRowsPerRowGroup(5000),
                    rows);
            paths.add(file);
        }
        try (DimensionTable table = DimensionTable.open(config(dir, "k").build())) {
            table.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(table.routing()).as("no file is known unsorted at open").isNull();
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
            // Lookups switch the files to their indexes, then ask for the filter once built.
            for (long k = 0; table.routedFiles() < files; k = (k + 1) % 3000) {
                assertThat(System.nanoTime()).as("filter within 60 s").isLessThan(deadline);
                assertThat(values(table.lookup(plan, new Object[] {k})))
                        .as("key %d", k)
                        .containsExactlyElementsOf(expected(paths.get((int) (k % files)), 0, k));
                table.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
            CompletableFuture<Void> last = table.routingBuilt();
            for (long k = -2; k < 3002; k++) {
                List<String> want =
                        k < 0 || k >= 3000
                                ? List.of()
                                : expected(paths.get((int) (k % files)), 0, k);
                assertThat(values(table.lookup(plan, new Object[] {k})))
                        .as("key %d with the filter", k)
                        .containsExactlyElementsOf(want);
                assertThat(
                                values(
                                        table.lookupAsync(
                                                        plan,
                                                        new Object[] {k},
                                                        RequestLimiter.unbounded())
                                                .join()))
                        .as("key %d with the filter, asynchronously", k)
                        .containsExactlyElementsOf(want);
            }
            assertThat(table.routingBuilt())
                    .as("no further build once every file is covered")
                    .isSameAs(last);
        }
    }

    /**
     * When a table builds its files' indexes (what inspect's "Key index:" line says): files found
     * unsorted at open (their row groups out of order, from the footers) are indexed in the
     * background from the open, with no lookup; a file whose row groups are in order but whose
     * pages are not (its page index is read at the first lookup into a row group) is found, and
     * indexed, at the first lookup into such a row group.
     */
    @Test
    void filesFoundUnsortedAtOpenAreIndexedFromTheOpenOthersAtTheirFirstLookup() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("when"));
        writeShuffled("when/a.parquet", 3000, 21);
        writeShuffled("when/b.parquet", 3000, 22);
        List<Object[]> rows = new ArrayList<>();
        for (int g = 0; g < 3; g++) {
            List<Object[]> group = new ArrayList<>();
            for (long k = 10_000 + g * 1000L; k < 10_000 + (g + 1) * 1000L; k++) {
                group.add(new Object[] {k, bytes("key-" + k), bytes("v" + k)});
            }
            Collections.shuffle(group, new Random(23 + g));
            rows.addAll(group);
        }
        ParquetJavaFiles.write(
                tmp.resolve("when/c.parquet"),
                COLUMNS,
                WriterOptions.defaults().withRowsPerPage(100).withRowsPerRowGroup(1000),
                rows);
        long builds = stats().filesIndexed();
        try (DimensionTable table = DimensionTable.open(config(dir, "k").build())) {
            // No lookup yet: the table filter waits for the indexes of the files opened unsorted.
            table.routingBuilt().get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(table.routing()).as("a and b indexed from the open").isNotNull();
            assertThat(stats().filesIndexed() - builds).as("a and b, not c").isEqualTo(2);
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(values(table.lookup(plan, new Object[] {10_500L})))
                    .containsExactly("v10500");
            assertThat(stats().filesIndexed() - builds).as("c, at its first lookup").isEqualTo(3);
        }
    }

    @Test
    void stringKeysAreServedThroughAHashedIndexAndCheckedInTheRowsRead() throws IOException {
        Path file = writeShuffled("strings.parquet", 2500, 3);
        try (DimensionTable table = DimensionTable.open(config(file, "s").build())) {
            LookupPlan plan = table.plan(List.of("s"), List.of("v"));
            for (int k = -3; k < 2503; k += 3) {
                byte[] key = bytes("key-" + k);
                assertThat(values(table.lookup(plan, new Object[] {"key-" + k})))
                        .as("key %d", k)
                        .isEqualTo(expected(file, 1, key));
            }
        }
    }

    @Test
    void refuseKeepsTheClearRefusalWithoutAdvisingToRewriteTableFiles() throws IOException {
        Path file = writeShuffled("refused.parquet", 3000, 4);
        assertThatThrownBy(
                        () ->
                                DimensionTable.open(
                                        config(file, "k")
                                                .unsortedFiles(UnsortedFiles.REFUSE)
                                                .build()))
                .isInstanceOf(LookupFileException.Unsorted.class)
                .hasMessageContaining("is not sorted by 'k': row group")
                .hasMessageContaining("Set 'unsorted-files' = 'index' (the default)")
                .hasMessageContaining("never a Delta or Iceberg table's data files");
    }

    @Test
    void anUnchangedFileKeepsItsIndexAndAReplacedOneGetsANewOne() throws IOException {
        Path file = writeShuffled("refreshed.parquet", 3000, 5);
        long builds = stats().filesIndexed();
        long reused = stats().indexesReused();
        for (int open = 0; open < 3; open++) {
            try (DimensionTable table = DimensionTable.open(config(file, "k").build())) {
                LookupPlan plan = table.plan(List.of("k"), List.of("v"));
                assertThat(values(table.lookup(plan, new Object[] {14L})))
                        .containsExactlyInAnyOrder("v14", "dup14");
            }
        }
        assertThat(stats().filesIndexed() - builds).isEqualTo(1);
        assertThat(stats().indexesReused() - reused).isEqualTo(2);
        // A new version of the file (other rows): a new index, and answers of the new rows.
        Path replacement = tmp.resolve("replacement.parquet");
        List<Object[]> rows = shuffledRows(3000, 6);
        for (Object[] row : rows) {
            if (row[0] != null) {
                row[2] = bytes("new" + row[0]);
            }
        }
        ParquetJavaFiles.write(
                replacement,
                COLUMNS,
                WriterOptions.defaults().withRowsPerPage(100).withRowsPerRowGroup(1000),
                rows);
        Files.move(
                replacement,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        try (DimensionTable table = DimensionTable.open(config(file, "k").build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(values(table.lookup(plan, new Object[] {14L})))
                    .containsExactly("new14", "new14");
        }
        assertThat(stats().filesIndexed() - builds).isEqualTo(2);
    }

    /**
     * A refresh that drops a file deletes its index file once no table of the JVM holds it: two
     * tables on one directory (two slots of a TaskManager; each its own metadata cache, so only the
     * indexes' own reference counts protect the other's). Closing a table deletes nothing: a
     * restart reuses what is left.
     */
    @Test
    void aRefreshDeletesTheIndexOfADroppedFileOnceNoTableHoldsIt() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("dropping"));
        writeShuffled("dropping/a.parquet", 3000, 11);
        writeShuffled("dropping/b.parquet", 2000, 12);
        long builds = stats().filesIndexed();
        try (RefreshingTable first =
                        RefreshingTable.open(config(dir, "k").build(), RefreshOptions.defaults());
                RefreshingTable second =
                        RefreshingTable.open(config(dir, "k").build(), RefreshOptions.defaults())) {
            LookupPlan plan = first.plan(List.of("k"), List.of("v"));
            for (RefreshingTable t : List.of(first, second)) {
                assertThat(values(t.lookup(plan, new Object[] {14L})))
                        .containsExactlyInAnyOrder("v14", "dup14", "v14", "dup14");
            }
            assertThat(indexFiles()).hasSize(2).anyMatch(n -> n.startsWith("b.parquet-"));

            Files.delete(dir.resolve("b.parquet"));
            assertThat(first.refresh()).isEqualTo(RefreshResult.SWAPPED);
            assertThat(values(first.lookup(plan, new Object[] {14L})))
                    .containsExactlyInAnyOrder("v14", "dup14");
            // The second table still holds b's index (its version has b): kept.
            assertThat(indexFiles()).hasSize(2).anyMatch(n -> n.startsWith("b.parquet-"));

            assertThat(second.refresh()).isEqualTo(RefreshResult.SWAPPED);
            assertThat(indexFiles()).hasSize(1).allMatch(n -> n.startsWith("a.parquet-"));
            assertThat(values(second.lookup(plan, new Object[] {2500L}))).containsExactly("v2500");
        }
        // a's index was built once (the refreshes kept it) and outlives the tables.
        assertThat(indexFiles()).hasSize(1).allMatch(n -> n.startsWith("a.parquet-"));
        assertThat(stats().filesIndexed() - builds).isEqualTo(2);
    }

    /** The names of the index files in the tables' index directory. */
    private List<String> indexFiles() throws IOException {
        try (Stream<Path> files = Files.list(tmp.resolve("indexes"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".pli"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void aDamagedOrTruncatedIndexIsRebuiltNeverBelieved() throws IOException {
        Path file = writeShuffled("damaged.parquet", 3000, 7);
        try (DimensionTable table = DimensionTable.open(config(file, "k").build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(values(table.lookup(plan, new Object[] {7L})))
                    .containsExactlyInAnyOrder("v7", "dup7");
        }
        Path index;
        try (Stream<Path> files = Files.list(tmp.resolve("indexes"))) {
            index = files.filter(p -> p.toString().endsWith(".pli")).findFirst().orElseThrow();
        }
        long size = Files.size(index);
        for (String damage : List.of("flipped byte", "truncated")) {
            try (RandomAccessFile f = new RandomAccessFile(index.toFile(), "rw")) {
                if (damage.equals("truncated")) {
                    f.setLength(size - 13);
                } else {
                    // A code in the middle of the body: the checksum no longer matches.
                    f.seek(size / 2);
                    int b = f.read();
                    f.seek(size / 2);
                    f.write(b ^ 0x10);
                }
            }
            long damaged = stats().damagedRebuilt();
            long builds = stats().filesIndexed();
            try (DimensionTable table = DimensionTable.open(config(file, "k").build())) {
                LookupPlan plan = table.plan(List.of("k"), List.of("v"));
                for (long k = 0; k < 3000; k += 11) {
                    assertThat(values(table.lookup(plan, new Object[] {k})))
                            .as("%s, key %d", damage, k)
                            .isEqualTo(expected(file, 0, k));
                }
            }
            assertThat(stats().damagedRebuilt() - damaged).as(damage).isEqualTo(1);
            assertThat(stats().filesIndexed() - builds).as(damage).isEqualTo(1);
            assertThat(Files.size(index)).isEqualTo(size);
        }
    }

    @Test
    void manyLookupsWaitingForOneFileShareOneBuild() throws Exception {
        Path file = writeShuffled("concurrent.parquet", 20_000, 8);
        long builds = stats().filesIndexed();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (DimensionTable table = DimensionTable.open(config(file, "k").build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<String>>> answers = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                long key = t * 1000L + 1;
                answers.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    return values(table.lookup(plan, new Object[] {key}));
                                }));
            }
            start.countDown();
            for (int t = 0; t < 16; t++) {
                long key = t * 1000L + 1;
                assertThat(answers.get(t).get())
                        .containsExactlyInAnyOrderElementsOf(
                                key % 7 == 0
                                        ? List.of("v" + key, "dup" + key)
                                        : List.of("v" + key));
            }
        } finally {
            pool.shutdown();
        }
        assertThat(stats().filesIndexed() - builds).isEqualTo(1);
    }

    @Test
    void deletedRowsApplyAndAsynchronousLookupsAreServed() throws IOException {
        Path file = writeShuffled("deleted.parquet", 3000, 9);
        List<Object[]> rows = ParquetJavaFiles.readRows(file, COLUMNS);
        TreeSet<Long> deleted =
                DeletedRowsTest.randomPositions(new Random(9), rows.size() / 3, rows.size());
        HadoopFileStore store = HadoopFileStore.create(Map.of());
        FileId id = store.list(file.toString()).get(0);
        try (DimensionTable table =
                DeletedRowsTest.openWithDeleted(config(file, "k").build(), store, id, deleted)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            RequestLimiter limiter = new RequestLimiter(16);
            for (long k = 0; k < 3000; k += 3) {
                List<String> want = new ArrayList<>();
                for (int r = 0; r < rows.size(); r++) {
                    if (Long.valueOf(k).equals(rows.get(r)[0]) && !deleted.contains((long) r)) {
                        want.add(new String((byte[]) rows.get(r)[2], StandardCharsets.UTF_8));
                    }
                }
                assertThat(values(table.lookup(plan, new Object[] {k})))
                        .as("key %d", k)
                        .isEqualTo(want);
                assertThat(values(table.lookupAsync(plan, new Object[] {k}, limiter).join()))
                        .as("async key %d", k)
                        .isEqualTo(want);
            }
        }
    }

    @Test
    void aDuckDbFileShuffledInsideRowGroupsIsIndexedAtItsFirstLookup() throws Exception {
        Path file = tmp.resolve("duck.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            // Row groups of 2048 rows in key order (k / 2048), rows shuffled inside each.
            st.execute(
                    "COPY (SELECT i AS k, 'v' || i AS v FROM range(20000) t(i)"
                            + " ORDER BY i // 2048, hash(i)) TO '"
                            + file
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
            long builds = stats().filesIndexed();
            try (DimensionTable table = DimensionTable.open(config(file, "k").build());
                    PreparedStatement q =
                            duck.prepareStatement(
                                    "SELECT v FROM read_parquet('" + file + "') WHERE k = ?")) {
                LookupPlan plan = table.plan(List.of("k"), List.of("v"));
                RequestLimiter limiter = new RequestLimiter(16);
                Random random = new Random(10);
                for (int n = 0; n < 300; n++) {
                    long k = random.nextInt(20_100) - 50;
                    q.setLong(1, k);
                    List<String> want = new ArrayList<>();
                    try (ResultSet rs = q.executeQuery()) {
                        while (rs.next()) {
                            want.add(rs.getString(1));
                        }
                    }
                    assertThat(values(table.lookup(plan, new Object[] {k})))
                            .as("key %d", k)
                            .isEqualTo(want);
                    // Asynchronous lookups go through the same twin (its reads, its pages).
                    assertThat(values(table.lookupAsync(plan, new Object[] {k}, limiter).join()))
                            .as("async key %d", k)
                            .isEqualTo(want);
                }
            }
            assertThat(stats().filesIndexed() - builds).isEqualTo(1);
        }
    }

    @Test
    void aDuckDbFileShuffledInsideRowGroupsIsRefusedAtTheFirstLookupWhenAsked() throws Exception {
        Path file = tmp.resolve("duck-refused.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT i AS k, 'v' || i AS v FROM range(20000) t(i)"
                            + " ORDER BY i // 2048, hash(i)) TO '"
                            + file
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
        }
        try (DimensionTable table =
                DimensionTable.open(
                        config(file, "k").unsortedFiles(UnsortedFiles.REFUSE).build())) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {5L}))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining("is not sorted by 'k'")
                    .hasMessageContaining("'unsorted-files' = 'index'");
        }
    }
}
