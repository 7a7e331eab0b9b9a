package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.source.RefreshOptions.SnapshotMode;
import dev.parquetlookup.metadata.MetadataCache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random lookups on four threads while the files are replaced many times under a background
 * refresh. Every value encodes its version, so each result must come from exactly one version, and
 * per file the versions a thread sees never go back. Bounded: stops after {@value #VERSIONS}
 * versions or {@value #MAX_SECONDS} s, whichever is first.
 */
class RefreshingTableStressTest {

    private static final long SEED = 20261129L;
    private static final int THREADS = 4;
    private static final int VERSIONS = 30;
    private static final int MAX_SECONDS = 15;
    private static final int ROWS_PER_KEY = 3;
    private static final int FILES = 3;
    private static final long KEYS_PER_FILE = 300;

    @TempDir Path dir;

    @Test
    void atomicallyReplacedFilesNeverMixVersions() throws Exception {
        MetadataCache metadata = new MetadataCache(64L << 20);
        PageCache pages = new PageCache(8L << 20);
        AtomicIntegerArray latest = new AtomicIntegerArray(FILES);
        for (int f = 0; f < FILES; f++) {
            latest.set(f, 1);
            VersionedFiles.replaceAtomically(
                    part(f),
                    f * KEYS_PER_FILE,
                    (f + 1) * KEYS_PER_FILE,
                    1,
                    ROWS_PER_KEY,
                    mtimeOf(1) - f);
        }
        TableConfig config =
                TableConfig.builder(dir.toString())
                        .metadataCache(metadata)
                        .pageCache(pages)
                        .build();
        RefreshOptions options = RefreshOptions.defaults().withInterval(Duration.ofMillis(20));
        try (RefreshingTable table = RefreshingTable.open(config, options)) {
            // Versions are written ahead into a skipped '_staging' directory so that the run
            // itself only publishes (renames) and the readers do not starve the writer.
            Random writerRandom = new Random(SEED);
            int[] fileOfVersion = new int[VERSIONS + 1];
            Path staging = Files.createDirectories(dir.resolve("_staging"));
            for (int version = 2; version <= VERSIONS; version++) {
                int f = writerRandom.nextInt(FILES);
                fileOfVersion[version] = f;
                Path staged = staging.resolve("part-" + f + ".v" + version);
                VersionedFiles.write(
                        staged,
                        f * KEYS_PER_FILE,
                        (f + 1) * KEYS_PER_FILE,
                        version,
                        ROWS_PER_KEY,
                        0,
                        1);
                Files.setLastModifiedTime(staged, FileTime.fromMillis(mtimeOf(version)));
            }
            Result result =
                    runReaders(
                            table,
                            FILES * KEYS_PER_FILE,
                            k -> (int) (k / KEYS_PER_FILE),
                            latest,
                            () -> {
                                int version = 2;
                                long deadline = deadline();
                                for (; version <= VERSIONS && System.nanoTime() < deadline; ) {
                                    int f = fileOfVersion[version];
                                    latest.set(f, version);
                                    Files.move(
                                            staging.resolve("part-" + f + ".v" + version),
                                            part(f),
                                            StandardCopyOption.ATOMIC_MOVE,
                                            StandardCopyOption.REPLACE_EXISTING);
                                    String name = part(f).getFileName().toString();
                                    long mt = mtimeOf(version);
                                    awaitSwap(table, () -> serves(table, name, mt));
                                    version++;
                                }
                                return version - 1;
                            });
            assertThat(result.versions).as(result.describe()).isGreaterThanOrEqualTo(10);
            assertEndState(table, metadata, result);
        }
    }

    @Test
    void snapshotDirectoriesNeverMixVersions() throws Exception {
        MetadataCache metadata = new MetadataCache(64L << 20);
        AtomicIntegerArray latest = new AtomicIntegerArray(1);
        long keys = 400;
        writeSnapshot(1, keys);
        latest.set(0, 1);
        TableConfig config = TableConfig.builder(dir.toString()).metadataCache(metadata).build();
        RefreshOptions options =
                RefreshOptions.defaults()
                        .withInterval(Duration.ofMillis(20))
                        .withSnapshotMode(SnapshotMode.LATEST_SUCCESS);
        try (RefreshingTable table = RefreshingTable.open(config, options)) {
            Path staging = Files.createDirectories(dir.resolve("_staging"));
            for (int version = 2; version <= VERSIONS; version++) {
                writeSnapshotFiles(staging.resolve(snapshotName(version)), version, keys);
            }
            Result result =
                    runReaders(
                            table,
                            keys,
                            k -> 0,
                            latest,
                            () -> {
                                int version = 2;
                                long deadline = deadline();
                                for (; version <= VERSIONS && System.nanoTime() < deadline; ) {
                                    latest.set(0, version);
                                    // Publish: the files one by one, the marker last.
                                    Path from = staging.resolve(snapshotName(version));
                                    Path to =
                                            Files.createDirectories(
                                                    dir.resolve(snapshotName(version)));
                                    for (String file :
                                            List.of("part-a.parquet", "part-b.parquet")) {
                                        Files.move(from.resolve(file), to.resolve(file));
                                    }
                                    Files.write(
                                            to.resolve(RefreshOptions.SUCCESS_MARKER), new byte[0]);
                                    String location = "/" + snapshotName(version);
                                    awaitSwap(
                                            table,
                                            () -> table.status().location().endsWith(location));
                                    // Keep the two newest older snapshots, delete the rest.
                                    if (version > 3) {
                                        RefreshingTableTest.deleteRecursively(
                                                dir.resolve(snapshotName(version - 3)));
                                    }
                                    version++;
                                }
                                return version - 1;
                            });
            assertThat(result.versions).as(result.describe()).isGreaterThanOrEqualTo(10);
            assertEndState(table, metadata, result);
        }
    }

    // ------------------------------------------------------------------ harness

    private interface Writer {
        int run() throws Exception;
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private record Result(
            int versions, long lookups, int distinctVersionsSeen, Queue<Throwable> errors) {
        String describe() {
            return "seed="
                    + SEED
                    + " versions="
                    + versions
                    + " lookups="
                    + lookups
                    + " versionsSeen="
                    + distinctVersionsSeen
                    + " errors="
                    + errors;
        }
    }

    private Result runReaders(
            RefreshingTable table,
            long keyCount,
            LongToIntFunction fileOf,
            AtomicIntegerArray latest,
            Writer writer)
            throws Exception {
        LookupPlan plan = table.plan(List.of("k"), VersionedFiles.PROJECTED);
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicLong lookups = new AtomicLong();
        Map<Integer, Boolean> seen = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = SEED + t;
            Thread thread =
                    new Thread(
                            () -> {
                                Random random = new Random(seed);
                                int[] lastSeen = new int[latest.length()];
                                try {
                                    while (!stop.get()) {
                                        long k = random.nextLong(keyCount);
                                        int file = fileOf.applyAsInt(k);
                                        List<Object[]> rows = table.lookup(plan, new Object[] {k});
                                        int v = VersionedFiles.versionOf(rows, k, ROWS_PER_KEY);
                                        if (v > latest.get(file) || v < lastSeen[file]) {
                                            throw new AssertionError(
                                                    "key "
                                                            + k
                                                            + " answered by version "
                                                            + v
                                                            + " after version "
                                                            + lastSeen[file]
                                                            + " (newest written "
                                                            + latest.get(file)
                                                            + ")");
                                        }
                                        lastSeen[file] = v;
                                        seen.put(v, true);
                                        lookups.incrementAndGet();
                                    }
                                } catch (Throwable e) {
                                    errors.add(e);
                                    stop.set(true);
                                }
                            },
                            "stress-reader-" + t);
            threads.add(thread);
            thread.start();
        }
        int versions;
        try {
            versions = writer.run();
        } finally {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
        Result result = new Result(versions, lookups.get(), seen.size(), errors);
        System.out.println("stress: " + result.describe());
        assertThat(errors).as(result.describe()).isEmpty();
        assertThat(threads).noneMatch(Thread::isAlive);
        return result;
    }

    private static void awaitSwap(RefreshingTable table, Condition swapped) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!swapped.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "the new version was not served within 20 s: " + table.status());
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static long deadline() {
        return System.nanoTime() + Duration.ofSeconds(MAX_SECONDS).toNanos();
    }

    private static void assertEndState(
            RefreshingTable table, MetadataCache metadata, Result result) {
        RefreshStatus status = table.status();
        assertThat(status.version()).as(result.describe()).isGreaterThanOrEqualTo(result.versions);
        assertThat(result.lookups).as(result.describe()).isPositive();
        // Every older snapshot was closed when its last lookup finished, and the metadata of
        // every file that left the table left the cache with it.
        assertThat(table.liveSnapshots()).isEqualTo(1);
        // (footers and the row-group indexes read since, of the current files only)
        assertThat(metadata.files())
                .as("files with metadata entries after %s", result.describe())
                .hasSize(status.fileCount());
    }

    private Path part(int f) {
        return dir.resolve("part-" + f + ".parquet");
    }

    private static String snapshotName(int version) {
        return "v" + version;
    }

    private void writeSnapshot(int version, long keys) throws IOException {
        writeSnapshotFiles(dir.resolve(snapshotName(version)), version, keys);
        Files.write(
                dir.resolve(snapshotName(version)).resolve(RefreshOptions.SUCCESS_MARKER),
                new byte[0]);
    }

    private static void writeSnapshotFiles(Path d, int version, long keys) throws IOException {
        Files.createDirectories(d);
        // Each key's rows are dealt to both files: a result mixes files, never versions.
        VersionedFiles.write(d.resolve("part-a.parquet"), 0, keys, version, ROWS_PER_KEY, 0, 2);
        VersionedFiles.write(d.resolve("part-b.parquet"), 0, keys, version, ROWS_PER_KEY, 1, 2);
    }

    private static long mtimeOf(int version) {
        return 1_700_000_000_000L + 1000L * version;
    }

    private static boolean serves(RefreshingTable table, String name, long mtime) {
        return table.files().stream()
                .anyMatch(id -> id.fileName().equals(name) && id.modificationTime() == mtime);
    }
}
