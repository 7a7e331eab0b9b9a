package dev.parquetlookup.engine.local;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.testing.DuckDbExtension;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local forms end to end on real writers' files: a DuckDB file as DuckDB writes it by default (one
 * page per 122,880-row column chunk, no page index) and a parquet-java file with huge pages. Every
 * answer, before and after the table swaps to the local form, is compared with an independent read
 * (DuckDB's own query, or the rows written); builds are counted across refreshes, restarts, a
 * replaced file, a damaged form and concurrent first callers.
 */
class LocalFormsTest {

    private static final long SEED = 20261205L;

    @TempDir Path tmp;

    @RegisterExtension static final DuckDbExtension duck = new DuckDbExtension();

    /** DuckDB's default layout, {@code rows} rows with ids 0, 2, 4, ... and a value salt. */
    private static void writeDuckDb(Path file, int rows, String salt) throws SQLException {
        writeDuckDb(file, rows, salt, "snappy");
    }

    /** {@link #writeDuckDb(Path, int, String)} compressed with {@code codec}. */
    private static void writeDuckDb(Path file, int rows, String salt, String codec)
            throws SQLException {
        duck.writeParquet(
                "SELECT i * 2 AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE '"
                        + salt
                        + "-' || i END AS name, (i * 0.25)::DECIMAL(18,2) AS amount, i % 3 AS"
                        + " bucket FROM range("
                        + rows
                        + ") t(i) ORDER BY i",
                file,
                "COMPRESSION " + codec);
    }

    /** DuckDB's answer for one id: [name, amount, bucket] rows. */
    private static List<List<Object>> duckAnswer(Path file, long id) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (PreparedStatement ps =
                duck.prepareStatement(
                        "SELECT name, amount, bucket FROM read_parquet('"
                                + file
                                + "') WHERE id = ? ORDER BY name")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    row.add(rs.getString(1));
                    row.add(rs.getBigDecimal(2));
                    row.add(rs.getLong(3));
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    private static List<List<Object>> engineAnswer(RefreshingTable table, LookupPlan plan, long id)
            throws IOException {
        List<List<Object>> rows = new ArrayList<>();
        for (Object[] r : table.lookup(plan, new Object[] {id})) {
            List<Object> row = new ArrayList<>();
            row.add(r[0] == null ? null : new String((byte[]) r[0], StandardCharsets.UTF_8));
            row.add(r[1]);
            row.add(((Number) r[2]).longValue());
            rows.add(row);
        }
        return rows;
    }

    /** Probes hits and misses (odd ids), the first and last rows of row groups included. */
    private static List<Long> probes(int rows) {
        Random random = new Random(SEED);
        List<Long> ids = new ArrayList<>(List.of(0L, 2L * 122_879, 2L * 122_880, 2L * (rows - 1)));
        ids.add(2L * rows); // past the end
        for (int i = 0; i < 150; i++) {
            long id = random.nextInt(2 * rows + 10);
            ids.add(id);
        }
        return ids;
    }

    private static void assertAnswersLikeDuckDb(
            RefreshingTable table, LookupPlan plan, Path file, int rows) throws Exception {
        int hits = 0;
        for (long id : probes(rows)) {
            List<List<Object>> expected = duckAnswer(file, id);
            assertThat(engineAnswer(table, plan, id))
                    .as("id %d (seed %d)", id, SEED)
                    .isEqualTo(expected);
            hits += expected.isEmpty() ? 0 : 1;
        }
        assertThat(hits).isGreaterThan(50);
    }

    private static TableConfig config(Path file, LocalForms forms) {
        return TableConfig.builder(file.toString())
                .sortKey(List.of("id"))
                .localForms(forms)
                .build();
    }

    /**
     * Waits (no sleep) until the form of {@code file}'s current version is settled: its future
     * completes after the listeners, the table's swap included, heard of it.
     */
    private static LocalForms.Outcome awaitSettled(LocalForms forms, Path file) throws Exception {
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            return forms.settle(store.stat(file.toString()), store, List.of("id"))
                    .get(2, TimeUnit.MINUTES);
        }
    }

    @Test
    void duckDbFileIsServedFromItsLocalFormOnceBuiltAndKeepsItAcrossRefreshesAndRestarts()
            throws Exception {
        int rows = 300_000;
        Path file = tmp.resolve("data").resolve("duck.parquet");
        Files.createDirectories(file.getParent());
        writeDuckDb(file, rows, "v1");
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (RefreshingTable table =
                RefreshingTable.open(config(file, forms), RefreshOptions.defaults())) {
            LookupPlan plan = table.plan(List.of("id"), List.of("name", "amount", "bucket"));
            // The slow way until the form is ready (it may already be: the build is fast).
            assertAnswersLikeDuckDb(table, plan, file, rows);
            assertThat(awaitSettled(forms, file).kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(table.files())
                    .singleElement()
                    .satisfies(
                            f -> {
                                assertThat(f.path()).contains("forms");
                                assertThat(f.path()).endsWith(".parquet");
                            });
            long before = table.readStatistics().bytesRead();
            assertAnswersLikeDuckDb(table, plan, file, rows);
            long perLookup = (table.readStatistics().bytesRead() - before) / probes(rows).size();
            // One 256-row page per column instead of a 122,880-row chunk (about 1 MB of ids).
            assertThat(perLookup).as("bytes read per lookup").isLessThan(64 << 10);
            assertThat(forms.stats().built()).isEqualTo(1);
            assertThat(forms.stats().rowsBuilt()).isEqualTo(rows);

            // An unchanged file: the refresh changes nothing and builds nothing.
            assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
            assertThat(forms.stats().built()).isEqualTo(1);
        }
        // Another table on the same forms (another slot, a restarted job): served from the form
        // at once, nothing built.
        try (RefreshingTable again =
                RefreshingTable.open(config(file, forms), RefreshOptions.defaults())) {
            assertThat(again.files().get(0).path()).contains("forms");
            LookupPlan plan = again.plan(List.of("id"), List.of("name", "amount", "bucket"));
            assertAnswersLikeDuckDb(again, plan, file, rows);
        }
        assertThat(forms.stats().built()).isEqualTo(1);
        // A new JVM's store on the same directory: the form is checked (CRC), not rebuilt.
        LocalForms restarted =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toString());
            LocalForms.Outcome o =
                    restarted.settle(id, store, List.of("id")).get(2, TimeUnit.MINUTES);
            assertThat(o.kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(restarted.stats().verified()).isEqualTo(1);
            assertThat(restarted.stats().built()).isZero();
        }
    }

    @Test
    void brotliSourceIsDecompressedByTheEngineCodecsAndServedFromItsForm() throws Exception {
        // Hadoop has no BROTLI codec on the class path: the copy reads with the engine's codecs.
        int rows = 130_000;
        Path file = tmp.resolve("data").resolve("brotli.parquet");
        Files.createDirectories(file.getParent());
        writeDuckDb(file, rows, "b", "brotli");
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (RefreshingTable table =
                RefreshingTable.open(config(file, forms), RefreshOptions.defaults())) {
            assertThat(awaitSettled(forms, file).kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(table.files().get(0).path()).contains("forms");
            LookupPlan plan = table.plan(List.of("id"), List.of("name", "amount", "bucket"));
            assertAnswersLikeDuckDb(table, plan, file, rows);
            assertThat(forms.stats().rowsBuilt()).isEqualTo(rows);
        }
    }

    @Test
    void replacedFileGetsANewFormAndTheOldOneIsDeleted() throws Exception {
        int rows = 200_000;
        Path file = tmp.resolve("data").resolve("duck.parquet");
        Files.createDirectories(file.getParent());
        writeDuckDb(file, rows, "v1");
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (RefreshingTable table =
                RefreshingTable.open(config(file, forms), RefreshOptions.defaults())) {
            assertThat(awaitSettled(forms, file).kind()).isEqualTo(LocalForms.Kind.READY);
            long firstBytes = forms.stats().bytes();
            assertThat(forms.stats().built()).isEqualTo(1);

            Path next = tmp.resolve("next.parquet");
            writeDuckDb(next, rows + 1000, "v2");
            Files.move(next, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5000));
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            // The new version is served (the slow way, then from its own form) with its answers.
            LookupPlan plan = table.plan(List.of("id"), List.of("name", "amount", "bucket"));
            assertAnswersLikeDuckDb(table, plan, file, rows + 1000);
            assertThat(awaitSettled(forms, file).kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(forms.stats().built()).isEqualTo(2);
            assertThat(table.files().get(0).path()).contains("forms");
            assertAnswersLikeDuckDb(table, plan, file, rows + 1000);
            // Only the new version's form is left on disk.
            try (var listing = Files.list(tmp.resolve("forms"))) {
                assertThat(listing.filter(p -> p.toString().endsWith(".parquet"))).hasSize(1);
            }
            assertThat(forms.stats().bytes()).isGreaterThan(firstBytes);
        }
    }

    /** The forms (data files) in {@code directory}. */
    private static List<String> forms(Path directory) throws IOException {
        try (var listing = Files.list(directory)) {
            return listing.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".parquet"))
                    .toList();
        }
    }

    @Test
    void aFileARefreshDropsLosesItsFormAtOnce() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        writeDuckDb(data.resolve("a.parquet"), 150_000, "a");
        writeDuckDb(data.resolve("b.parquet"), 150_000, "b");
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (RefreshingTable table =
                RefreshingTable.open(config(data, forms), RefreshOptions.defaults())) {
            for (String name : List.of("a.parquet", "b.parquet")) {
                assertThat(awaitSettled(forms, data.resolve(name)).kind())
                        .isEqualTo(LocalForms.Kind.READY);
            }
            assertThat(forms(tmp.resolve("forms"))).hasSize(2);
            long both = forms.stats().bytes();

            Files.delete(data.resolve("b.parquet"));
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            assertThat(forms(tmp.resolve("forms"))).hasSize(1);
            assertThat(forms.stats().bytes()).isLessThan(both);
            LookupPlan plan = table.plan(List.of("id"), List.of("name", "amount", "bucket"));
            assertAnswersLikeDuckDb(table, plan, data.resolve("a.parquet"), 150_000);
        }
    }

    /**
     * A form whose build is under way (here: not started, held back by a table being opened) when a
     * refresh drops its file is deleted when the build ends, never served nor counted.
     */
    @Test
    void aFormBuiltAfterItsFileLeftTheTableIsDeleted() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path kept = data.resolve("kept.parquet");
        duck.writeParquet(
                "SELECT i * 2 AS id, 'k-' || i AS name, (i * 0.25)::DECIMAL(18,2) AS amount, i % 3"
                        + " AS bucket FROM range(20000) t(i) ORDER BY i",
                kept, "ROW_GROUP_SIZE 2048"); // small pages: served as it is
        Path dropped = data.resolve("dropped.parquet");
        writeDuckDb(dropped, 150_000, "d");
        // The table's listing stops naming the file; the file itself stays readable.
        java.util.Set<String> hidden = java.util.concurrent.ConcurrentHashMap.newKeySet();
        HadoopFileStore files = HadoopFileStore.create(Map.of());
        dev.parquetlookup.io.FileStore store =
                new dev.parquetlookup.io.ForwardingFileStore(files) {
                    @Override
                    public List<FileId> list(String path) throws IOException {
                        return super.list(path).stream()
                                .filter(
                                        f ->
                                                !hidden.contains(
                                                        Path.of(f.path()).getFileName().toString()))
                                .toList();
                    }
                };
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        LocalForms.Hold opening =
                forms.opening(new dev.parquetlookup.metadata.MetadataCache(1 << 20));
        try (RefreshingTable table =
                RefreshingTable.open(config(data, forms), RefreshOptions.defaults(), store)) {
            hidden.add("dropped.parquet");
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            opening.close(); // the held-back checks and builds run now
            // One more settle on the same single thread: done after the held-back ones.
            Path probe = data.resolve(".probe.parquet");
            duck.writeParquet("SELECT 1 AS id", probe, "ROW_GROUP_SIZE 2048");
            try (HadoopFileStore s = HadoopFileStore.create(Map.of())) {
                forms.settle(s.stat(probe.toString()), s, List.of("id")).get(2, TimeUnit.MINUTES);
            }
            assertThat(forms.stats().built()).isEqualTo(1);
            assertThat(forms(tmp.resolve("forms"))).isEmpty();
            assertThat(forms.stats().bytes()).isZero();
            assertThat(table.files())
                    .extracting(FileId::path)
                    .containsExactly(files.stat(kept.toString()).path());
        } finally {
            opening.close();
        }
    }

    @Test
    void damagedOrTruncatedFormIsRebuiltNeverBelieved() throws Exception {
        int rows = 150_000;
        Path file = tmp.resolve("duck.parquet");
        writeDuckDb(file, rows, "v1");
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toString());
            LocalForms forms =
                    LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
            assertThat(forms.settle(id, store, List.of("id")).get(2, TimeUnit.MINUTES).kind())
                    .isEqualTo(LocalForms.Kind.READY);
            Path data = LocalFormFile.of(forms.directory(), id).data();
            long length = Files.size(data);

            // One byte flipped in the middle: same length, another CRC.
            try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
                f.seek(length / 2);
                int b = f.read();
                f.seek(length / 2);
                f.write(b ^ 0x5a);
            }
            LocalForms afterFlip =
                    LocalForms.open(forms.directory(), 1L << 30, LocalFormBuilder.DEFAULT);
            assertThat(afterFlip.settle(id, store, List.of("id")).get(2, TimeUnit.MINUTES).kind())
                    .isEqualTo(LocalForms.Kind.READY);
            assertThat(afterFlip.stats().damaged()).isEqualTo(1);
            assertThat(afterFlip.stats().built()).isEqualTo(1);
            assertThat(LocalFormFile.crc32c(data))
                    .isEqualTo(LocalFormFile.of(forms.directory(), id).manifest().crc32c());

            // Truncated.
            try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
                f.setLength(length / 3);
            }
            LocalForms afterCut =
                    LocalForms.open(forms.directory(), 1L << 30, LocalFormBuilder.DEFAULT);
            assertThat(afterCut.settle(id, store, List.of("id")).get(2, TimeUnit.MINUTES).kind())
                    .isEqualTo(LocalForms.Kind.READY);
            assertThat(afterCut.stats().damaged()).isEqualTo(1);
            assertThat(afterCut.stats().built()).isEqualTo(1);
            assertThat(Files.size(data)).isEqualTo(length);
        }
    }

    @Test
    void concurrentFirstCallersShareOneBuild() throws Exception {
        Path file = tmp.resolve("duck.parquet");
        writeDuckDb(file, 150_000, "v1");
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        int callers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.stat(file.toString());
            CyclicBarrier start = new CyclicBarrier(callers);
            List<Future<CompletableFuture<LocalForms.Outcome>>> asked = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                asked.add(
                        pool.submit(
                                () -> {
                                    start.await();
                                    forms.servedFile(id, store, List.of("id"));
                                    return forms.settle(id, store, List.of("id"));
                                }));
            }
            CompletableFuture<LocalForms.Outcome> first = asked.get(0).get();
            for (Future<CompletableFuture<LocalForms.Outcome>> f : asked) {
                assertThat(f.get()).isSameAs(first);
            }
            assertThat(first.get(2, TimeUnit.MINUTES).kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(forms.stats().built()).isEqualTo(1);
            assertThat(forms.servedFile(id, store, List.of("id")).path()).contains("forms");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void parquetJavaFileWithHugePagesAnswersLikeTheRowsWritten() throws Exception {
        Path file = tmp.resolve("huge-pages.parquet");
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        "message t { required int64 id; optional binary name (STRING);"
                                + " required double price; }");
        int rows = 200_000;
        List<Object[]> written = new ArrayList<>();
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        Random random = new Random(SEED);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(file))
                        .withType(schema)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(CompressionCodecName.ZSTD)
                        .withDictionaryEncoding(false)
                        .withPageRowCountLimit(Integer.MAX_VALUE)
                        .withPageSize(512 << 20)
                        .withRowGroupRowCountLimit(rows)
                        .build()) {
            for (int i = 0; i < rows; i++) {
                long id = 3L * i;
                String name = i % 9 == 0 ? null : "n" + random.nextInt(1_000_000);
                double price = random.nextDouble();
                Group g = groups.newGroup().append("id", id).append("price", price);
                if (name != null) {
                    g.append("name", name);
                }
                writer.write(g);
                written.add(new Object[] {id, name, price});
            }
        }
        LocalForms forms =
                LocalForms.open(tmp.resolve("forms"), 1L << 30, LocalFormBuilder.DEFAULT);
        try (RefreshingTable table =
                RefreshingTable.open(
                        TableConfig.builder(file.toString())
                                .sortKey(List.of("id"))
                                .localForms(forms)
                                .build(),
                        RefreshOptions.defaults())) {
            LookupPlan plan = table.plan(List.of("id"), List.of("id", "name", "price"));
            assertAnswersLikeWritten(table, plan, written);
            assertThat(awaitSettled(forms, file).kind()).isEqualTo(LocalForms.Kind.READY);
            assertThat(table.files().get(0).path()).contains("forms");
            assertAnswersLikeWritten(table, plan, written);
            assertThat(forms.stats().built()).isEqualTo(1);
            assertThat(forms.outcome(source(file)).kind()).isEqualTo(LocalForms.Kind.READY);
        }
    }

    private static FileId source(Path file) throws IOException {
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            return store.stat(file.toString());
        }
    }

    private static void assertAnswersLikeWritten(
            RefreshingTable table, LookupPlan plan, List<Object[]> written) throws IOException {
        Random random = new Random(SEED);
        for (int i = 0; i < 200; i++) {
            int row = random.nextInt(written.size());
            Object[] expected = written.get(row);
            List<Object[]> found = table.lookup(plan, new Object[] {expected[0]});
            assertThat(found).as("id %s (seed %d)", expected[0], SEED).hasSize(1);
            Object[] got = found.get(0);
            assertThat(got[0]).isEqualTo(expected[0]);
            assertThat(got[1] == null ? null : new String((byte[]) got[1], StandardCharsets.UTF_8))
                    .isEqualTo(expected[1]);
            assertThat(got[2]).isEqualTo(expected[2]);
            assertThat(table.lookup(plan, new Object[] {(long) expected[0] + 1})).isEmpty();
        }
    }

    @Test
    void smallPagesAreServedAsTheyAreAndAFormOverBudgetIsNotBuilt() throws Exception {
        Path small = tmp.resolve("small-pages.parquet");
        // 2,048-row row groups: one page each, but small ones.
        duck.writeParquet("SELECT i AS id FROM range(20000) t(i)", small, "ROW_GROUP_SIZE 2048");
        Path large = tmp.resolve("large.parquet");
        writeDuckDb(large, 150_000, "v1");
        LocalForms forms = LocalForms.open(tmp.resolve("forms"), 100_000, LocalFormBuilder.DEFAULT);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId smallId = store.stat(small.toString());
            LocalForms.Outcome o = forms.settle(smallId, store, List.of()).get(2, TimeUnit.MINUTES);
            assertThat(o.kind()).isEqualTo(LocalForms.Kind.NOT_NEEDED);
            assertThat(o.reason()).contains("2,048 rows per page");
            assertThat(forms.servedFile(smallId, store, List.of())).isEqualTo(smallId);

            FileId largeId = store.stat(large.toString());
            LocalForms.Outcome over =
                    forms.settle(largeId, store, List.of()).get(2, TimeUnit.MINUTES);
            assertThat(over.kind()).isEqualTo(LocalForms.Kind.OVER_BUDGET);
            assertThat(forms.servedFile(largeId, store, List.of())).isEqualTo(largeId);
            assertThat(forms.stats().overBudget()).isEqualTo(1);
            assertThat(forms.stats().built()).isZero();
            assertThat(forms.stats().bytes()).isZero();
        }
    }
}
