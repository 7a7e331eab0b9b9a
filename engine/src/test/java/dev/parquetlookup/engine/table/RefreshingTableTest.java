package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.annotation.Nullable;

import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RefreshingTableTest {

    private static final int ROWS_PER_KEY = 3;

    @TempDir Path dir;

    private final MetadataCache metadata = new MetadataCache(64L << 20);
    private final PageCache pages = new PageCache(16L << 20);
    private final List<RefreshingTable> opened = new ArrayList<>();
    private long mtime = 1_700_000_000_000L;

    @AfterEach
    void closeTables() throws IOException {
        for (RefreshingTable t : opened) {
            t.close();
        }
    }

    private TableConfig config(Path path) {
        return TableConfig.builder(path.toString())
                .metadataCache(metadata)
                .pageCache(pages)
                .build();
    }

    private RefreshingTable open(Path path, RefreshOptions options) throws IOException {
        RefreshingTable t = RefreshingTable.open(config(path), options);
        opened.add(t);
        return t;
    }

    private RefreshingTable open(Path path, RefreshOptions options, FileStore store)
            throws IOException {
        RefreshingTable t = RefreshingTable.open(config(path), options, store);
        opened.add(t);
        return t;
    }

    /** Files part-0..part-{n-1}, file i holding keys [i*100, i*100+100) of {@code version}. */
    private void writeParts(Path into, int n, int version) throws IOException {
        Files.createDirectories(into);
        for (int i = 0; i < n; i++) {
            replace(into.resolve("part-" + i + ".parquet"), i, version);
        }
    }

    private void replace(Path file, int part, int version) throws IOException {
        mtime += 1000;
        VersionedFiles.replaceAtomically(
                file, part * 100L, part * 100L + 100, version, ROWS_PER_KEY, mtime);
    }

    private static int versionAt(RefreshingTable table, long key) throws IOException {
        LookupPlan plan = table.plan(List.of("k"), VersionedFiles.PROJECTED);
        return VersionedFiles.versionOf(table.lookup(plan, new Object[] {key}), key, ROWS_PER_KEY);
    }

    /** Whether the metadata cache holds {@code file}: a miss calls a loader that refuses. */
    private boolean cached(FileId file) throws IOException {
        try {
            metadata.get(
                    file,
                    List.of(),
                    () -> {
                        throw new NotCached();
                    });
            return true;
        } catch (NotCached e) {
            return false;
        }
    }

    private static final class NotCached extends IOException {}

    @Test
    void aReplacedFileIsSwappedInAndUnchangedFilesReuseTheirMetadata() throws IOException {
        writeParts(dir, 3, 1);
        RefreshingTable table = open(dir, RefreshOptions.defaults());
        assertThat(versionAt(table, 150)).isEqualTo(1);
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        FileId oldPart1 =
                table.files().stream()
                        .filter(f -> f.fileName().equals("part-1.parquet"))
                        .findFirst()
                        .orElseThrow();

        long missesBefore = metadata.stats().misses();
        replace(dir.resolve("part-1.parquet"), 1, 2);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);

        // Only the replaced file's metadata was parsed again.
        assertThat(metadata.stats().misses() - missesBefore).isEqualTo(1);
        assertThat(versionAt(table, 150)).isEqualTo(2);
        assertThat(versionAt(table, 50)).isEqualTo(1);
        assertThat(versionAt(table, 250)).isEqualTo(1);
        RefreshStatus status = table.status();
        assertThat(status.version()).isEqualTo(2);
        assertThat(status.fileCount()).isEqualTo(3);
        assertThat(status.lastError()).isNull();
        assertThat(status.newestFileMillis()).isEqualTo(mtime);
        // The old version of part-1 left the metadata cache with the old snapshot.
        assertThat(table.liveSnapshots()).isEqualTo(1);
        assertThat(cached(oldPart1)).isFalse();
        assertThat(table.files()).allSatisfy(f -> assertThat(cached(f)).isTrue());
    }

    @Test
    void lookupsInFlightKeepTheirSnapshotUntilReleased() throws IOException {
        writeParts(dir, 2, 1);
        RefreshingTable table = open(dir, RefreshOptions.defaults());
        LookupPlan plan = table.plan(List.of("k"), VersionedFiles.PROJECTED);
        List<FileId> version1Files = table.files();

        RefreshingTable.Lease lease = table.acquire();
        writeParts(dir, 2, 2);
        Files.delete(dir.resolve("part-1.parquet"));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);

        // The held snapshot still answers with version 1, from both files (one since deleted).
        assertThat(lease.version()).isEqualTo(1);
        for (long k : new long[] {5, 150}) {
            List<Object[]> rows = lease.table().lookup(plan, new Object[] {k});
            assertThat(VersionedFiles.versionOf(rows, k, ROWS_PER_KEY)).isEqualTo(1);
        }
        assertThat(versionAt(table, 5)).isEqualTo(2);
        assertThat(table.lookup(plan, new Object[] {150L})).isEmpty();
        assertThat(table.liveSnapshots()).isEqualTo(2);
        assertThat(cached(version1Files.get(0))).isTrue();

        lease.close();
        lease.close(); // idempotent
        assertThat(table.liveSnapshots()).isEqualTo(1);
        for (FileId f : version1Files) {
            assertThat(cached(f)).as("%s still cached", f).isFalse();
        }
    }

    @Test
    void aFileLeavesTheSharedCacheOnlyWhenNoTableUsesItAnyMore() throws IOException {
        // Two lookup functions of one job in a TaskManager: two tables, one shared cache.
        writeParts(dir, 1, 1);
        RefreshingTable a = open(dir, RefreshOptions.defaults());
        RefreshingTable b = open(dir, RefreshOptions.defaults());
        FileId old = a.files().get(0);
        replace(dir.resolve("part-0.parquet"), 0, 2);

        assertThat(a.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(cached(old)).as("b still serves the old file").isTrue();
        assertThat(versionAt(b, 1)).isEqualTo(1);

        assertThat(b.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(cached(old)).isFalse();
        assertThat(cached(a.files().get(0))).isTrue();
        assertThat(versionAt(b, 1)).isEqualTo(2);
    }

    /**
     * Two lookup functions of a TaskManager share the metadata cache and the JVM's key indexes
     * (here of a secondary key): when one table's refresh drops a file, its index stays while the
     * other table serves the file, and goes when that one lets go of it, here by closing (a
     * cancelled job) rather than refreshing.
     */
    @Test
    void theIndexOfADroppedFileGoesWhenTheLastTableServingItCloses() throws IOException {
        Path table = dir.resolve("table");
        Path indexes = dir.resolve("indexes");
        writeParts(table, 2, 1);
        TableConfig config =
                TableConfig.builder(table.toString())
                        .metadataCache(metadata)
                        .pageCache(pages)
                        .indexDirectory(indexes)
                        .build();
        RefreshingTable a = RefreshingTable.open(config, RefreshOptions.defaults());
        opened.add(a);
        RefreshingTable b = RefreshingTable.open(config, RefreshOptions.defaults());
        opened.add(b);
        for (RefreshingTable t : List.of(a, b)) {
            LookupPlan byLabel = t.plan(List.of("label"), List.of("k"));
            assertThat(t.lookup(byLabel, new Object[] {"150/0/1"})).hasSize(1);
            assertThat(t.lookup(byLabel, new Object[] {"50/2/1"})).hasSize(1);
        }
        assertThat(indexFiles(indexes)).hasSize(2);

        Files.delete(table.resolve("part-1.parquet"));
        assertThat(a.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(indexFiles(indexes)).as("b still serves part-1").hasSize(2);
        b.close();
        assertThat(indexFiles(indexes)).hasSize(1).allMatch(n -> n.startsWith("part-0.parquet-"));
    }

    /** A table whose files are replaced at every refresh keeps one index per file it serves. */
    @Test
    void rotatingFilesKeepOnlyTheIndexesOfTheFilesServed() throws IOException {
        Path table = dir.resolve("table");
        Path indexes = dir.resolve("indexes");
        writeParts(table, 2, 1);
        RefreshingTable t =
                RefreshingTable.open(
                        TableConfig.builder(table.toString())
                                .metadataCache(metadata)
                                .indexDirectory(indexes)
                                .build(),
                        RefreshOptions.defaults());
        opened.add(t);
        LookupPlan byLabel = t.plan(List.of("label"), List.of("ver"));
        for (int version = 2; version <= 7; version++) {
            int v = version;
            replace(table.resolve("part-1.parquet"), 1, version);
            assertThat(t.refresh()).isEqualTo(RefreshResult.SWAPPED);
            assertThat(t.lookup(byLabel, new Object[] {"150/0/" + version}))
                    .singleElement()
                    .satisfies(row -> assertThat(row[0]).isEqualTo(v));
            assertThat(indexFiles(indexes)).as("version %d", version).hasSize(2);
        }
    }

    private static List<String> indexFiles(Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".pli"))
                    .toList();
        }
    }

    @Test
    void aHalfWrittenFileKeepsTheLastGoodSnapshotUntilItIsComplete() throws IOException {
        writeParts(dir, 2, 1);
        RefreshingTable table = open(dir, RefreshOptions.defaults());

        // A writer that writes in place: the file is listed while only half of it exists.
        Path elsewhere = Files.createDirectory(dir.resolve("_staging"));
        Path complete = elsewhere.resolve("part-2.parquet");
        VersionedFiles.write(complete, 200, 300, 2, ROWS_PER_KEY, 0, 1);
        byte[] bytes = Files.readAllBytes(complete);
        Path half = dir.resolve("part-2.parquet");
        Files.write(half, java.util.Arrays.copyOf(bytes, bytes.length / 2));

        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        RefreshStatus failed = table.status();
        assertThat(failed.version()).isEqualTo(1);
        assertThat(failed.failedRefreshes()).isEqualTo(1);
        assertThat(failed.lastError()).contains("part-2.parquet");
        assertThat(failed.lastErrorMillis()).isPositive();
        assertThat(versionAt(table, 50)).isEqualTo(1);
        LookupPlan plan = table.plan(List.of("k"), VersionedFiles.PROJECTED);
        assertThat(table.lookup(plan, new Object[] {250L})).isEmpty();

        Files.write(half, bytes);
        Files.setLastModifiedTime(half, FileTime.fromMillis(mtime + 10_000));
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(versionAt(table, 250)).isEqualTo(2);
        assertThat(table.status().lastError()).isNull();
        assertThat(table.status().failedRefreshes()).isEqualTo(1);
    }

    @Test
    void aListingErrorKeepsTheLastGoodSnapshot() throws IOException {
        writeParts(dir, 1, 1);
        FlakyStore store = new FlakyStore();
        RefreshingTable table = open(dir, RefreshOptions.defaults(), store);
        replace(dir.resolve("part-0.parquet"), 0, 2);

        store.listFailure = new SocketException("Connection reset while listing");
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError()).contains("Connection reset while listing");
        assertThat(versionAt(table, 7)).isEqualTo(1);

        store.listFailure = null;
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(versionAt(table, 7)).isEqualTo(2);
    }

    @Test
    void aSnapshotThatNoLongerFitsThePlansIsRefused() throws IOException {
        writeParts(dir, 1, 1);
        RefreshingTable table = open(dir, RefreshOptions.defaults());
        // Rewrite with 'ver' as a STRING column.
        List<ColumnSpec> changed =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("seq", ValueType.of(Kind.INT)),
                        ColumnSpec.required("ver", ValueType.of(Kind.STRING)));
        Path tmp = dir.resolve(".part-0.parquet.tmp");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        tmp.toString(), changed, List.of("k"), WriterOptions.defaults())) {
            w.write(new Object[] {900L, 0, "two".getBytes()});
        }
        Files.move(tmp, dir.resolve("part-0.parquet"), StandardCopyOption.REPLACE_EXISTING);
        assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
        assertThat(table.status().lastError())
                .contains("Column 'ver' was required int32 ver")
                .contains("required binary ver (STRING)");
        assertThat(versionAt(table, 42)).isEqualTo(1);
        assertThat(table.liveSnapshots()).isEqualTo(1);
    }

    @Test
    void latestSuccessServesTheNewestCompleteSnapshotDirectory() throws IOException {
        writeSnapshot("v9", 9, true);
        writeSnapshot("v10", 10, true);
        writeSnapshot("v11", 11, false); // still being written: no _SUCCESS yet
        writeSnapshot("v1", 1, true);
        RefreshingTable table =
                open(dir, RefreshOptions.defaults().withSnapshotMode(SnapshotMode.LATEST_SUCCESS));
        assertThat(versionAt(table, 3)).isEqualTo(10);
        assertThat(table.status().location()).endsWith("/v10");
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);

        Files.write(dir.resolve("v11/_SUCCESS"), new byte[0]);
        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
        assertThat(versionAt(table, 3)).isEqualTo(11);
        assertThat(versionAt(table, 199)).isEqualTo(11);
        assertThat(table.status().location()).endsWith("/v11");
        assertThat(table.files()).allSatisfy(f -> assertThat(f.path()).contains("/v11/"));

        // Older snapshots may be deleted once nothing serves them.
        deleteRecursively(dir.resolve("v9"));
        deleteRecursively(dir.resolve("v10"));
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
    }

    @Test
    void latestSuccessWithoutACompleteDirectoryFailsToOpenWithAnExplanation() throws IOException {
        writeSnapshot("v1", 1, false);
        assertThatThrownBy(
                        () ->
                                open(
                                        dir,
                                        RefreshOptions.defaults()
                                                .withSnapshotMode(SnapshotMode.LATEST_SUCCESS)))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("No complete snapshot directory under " + dir)
                .hasMessageContaining("none of [v1] has one");
    }

    @Test
    void theBackgroundTaskSwapsWithinTheInterval() throws Exception {
        writeParts(dir, 1, 1);
        RefreshingTable table =
                open(dir, RefreshOptions.defaults().withInterval(Duration.ofMillis(20)));
        assertThat(table.interval()).isEqualTo(Duration.ofMillis(20));
        replace(dir.resolve("part-0.parquet"), 0, 2);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (table.status().version() < 2) {
            assertThat(System.nanoTime()).as("no swap within 20 s").isLessThan(deadline);
            Thread.onSpinWait();
            Thread.yield();
        }
        assertThat(versionAt(table, 1)).isEqualTo(2);

        table.close();
        assertThatThrownBy(table::acquire).isInstanceOf(IllegalStateException.class);
        assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
        long threads =
                Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().startsWith("parquet-lookup-refresh " + dir))
                        .filter(Thread::isAlive)
                        .count();
        assertThat(threads).isZero();
    }

    @Test
    void optionsParseAndValidate() {
        assertThat(SnapshotMode.LATEST_SUCCESS).hasToString("latest-success");
        assertThat(SnapshotMode.ALL_FILES).hasToString("all-files");
        assertThat(RefreshOptions.defaults().withInterval(Duration.ZERO).refreshes()).isFalse();
        assertThatThrownBy(
                        () ->
                                new RefreshOptions(
                                        Duration.ofSeconds(-1),
                                        SnapshotMode.ALL_FILES,
                                        RetryPolicy.defaults()))
                .hasMessageContaining("refresh.interval");
    }

    private void writeSnapshot(String name, int version, boolean complete) throws IOException {
        Path d = Files.createDirectories(dir.resolve(name));
        // Keys 0..199, each key's rows dealt to two files (seq 0, 2 / seq 1).
        VersionedFiles.write(d.resolve("part-a.parquet"), 0, 200, version, ROWS_PER_KEY, 0, 2);
        VersionedFiles.write(d.resolve("part-b.parquet"), 0, 200, version, ROWS_PER_KEY, 1, 2);
        if (complete) {
            Files.write(d.resolve("_SUCCESS"), new byte[0]);
        }
    }

    static void deleteRecursively(Path path) throws IOException {
        try (var walk = Files.walk(path)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** A local store whose listings can be made to fail. */
    private static final class FlakyStore extends ForwardingFileStore {
        @Nullable volatile IOException listFailure;

        FlakyStore() {
            super(HadoopFileStore.create(Map.of()));
        }

        @Override
        public List<FileId> list(String path) throws IOException {
            IOException failure = listFailure;
            if (failure != null) {
                throw failure;
            }
            return super.list(path);
        }
    }
}
