package dev.parquetlookup.engine.index;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ForwardingRangeSource;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lifetime of index files on disk: a refresh's {@link KeyIndexes#discard} deletes the index of
 * a dropped file however the build and the tables' holds interleave with it (a build not started, a
 * build still running, another table still holding it), and the sweep deletes what no process has
 * used for the retention, never a file this JVM or another live process maps. Builds run on a
 * hand-driven executor, a running build is held at a gate on its reads, and time is a counter.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES) // a build parked on a gate would hang
class KeyIndexesTest {

    @TempDir Path tmp;

    /** Background work, run only when the test says so. */
    private final Queue<Runnable> queued = new ArrayDeque<>();

    private final Executor byHand = queued::add;
    private final AtomicLong now = new AtomicLong(1_800_000_000_000L);
    private KeyIndexes indexes;
    private HadoopFileStore store;
    private FileId file;
    private FileMetadata meta;
    private final List<RangeSource> sources = new ArrayList<>();

    @BeforeEach
    void writeFile() throws IOException {
        Path path = tmp.resolve("data.parquet");
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 5000; i++) {
            rows.add(new Object[] {(i * 7919) % 5000}); // every key once, not in order
        }
        ColumnSpec k =
                new ColumnSpec(
                        "k", ValueType.of(ValueType.Kind.BIGINT), ColumnSpec.Storage.PLAIN, false);
        ParquetJavaFiles.write(
                path, List.of(k), WriterOptions.defaults().withRowsPerRowGroup(1000), rows);
        store = HadoopFileStore.create(Map.of());
        file = store.list(path.toString()).get(0);
        try (RangeSource source = store.open(file)) {
            meta =
                    MetadataReader.readForIndex(
                            source, schema -> List.of("k"), PageIndexOptions.OWN);
        }
        indexes = new KeyIndexes(1000, byHand, byHand, now::get);
    }

    @AfterEach
    void close() throws IOException {
        for (RangeSource s : sources) {
            s.close();
        }
        store.close();
    }

    private Path directory() {
        return tmp.resolve("indexes");
    }

    private KeyIndexes.Request request(RangeSource source) {
        sources.add(source);
        return new KeyIndexes.Request(
                file,
                List.of("k"),
                meta.keyTypes(),
                List.of(meta.schema().getColumns().get(0)),
                meta.rowCount(),
                directory(),
                source);
    }

    private KeyIndexes.Request request() throws IOException {
        return request(store.open(file));
    }

    private void runQueued() {
        while (!queued.isEmpty()) {
            queued.poll().run();
        }
    }

    private List<Path> indexFiles() throws IOException {
        if (!Files.isDirectory(directory())) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory())) {
            return files.filter(p -> p.toString().endsWith(".pli")).toList();
        }
    }

    @Test
    void aBuildNotStartedWhenItsFileIsDiscardedNeverRuns() throws IOException {
        KeyIndexes.Handle handle = indexes.acquire(request());
        handle.close(); // the table's snapshot closed before a builder took the build up
        assertThat(indexes.discard(Set.of(file))).isZero();
        runQueued();
        assertThat(indexFiles()).isEmpty();
        assertThat(indexes.statistics().filesIndexed()).isZero();
    }

    @Test
    void aBuildRunningWhenItsFileIsDiscardedIsDeletedWhenItEnds() throws Exception {
        CountDownLatch reading = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        RangeSource gated =
                new ForwardingRangeSource(store.open(file)) {
                    @Override
                    public <T> T readWith(long position, int length, RangeReader<T> reader)
                            throws IOException {
                        pass();
                        return super.readWith(position, length, reader);
                    }

                    @Override
                    public void readFully(long position, byte[] buffer, int offset, int length)
                            throws IOException {
                        pass();
                        super.readFully(position, buffer, offset, length);
                    }

                    @Override
                    public byte[] read(FileRange range) throws IOException {
                        pass();
                        return super.read(range);
                    }

                    @Override
                    public byte[][] readAll(List<FileRange> ranges) throws IOException {
                        pass();
                        return super.readAll(ranges);
                    }

                    private void pass() throws IOException {
                        reading.countDown();
                        try {
                            gate.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new InterruptedIOException();
                        }
                    }
                };
        KeyIndexes.Handle handle = indexes.acquire(request(gated));
        Thread builder = new Thread(this::runQueued, "builder");
        builder.start();
        reading.await(); // the build runs, held at the gate
        handle.close();
        assertThat(indexes.discard(Set.of(file))).isZero();
        gate.countDown();
        builder.join();
        assertThat(indexes.statistics().filesIndexed()).isEqualTo(1);
        assertThat(indexFiles()).as("deleted when the build ended").isEmpty();
    }

    @Test
    void anIndexHeldByAnotherTableAtDiscardIsDeletedWhenTheLastOneLetsGo() throws IOException {
        KeyIndexes.Handle first = indexes.acquire(request());
        KeyIndexes.Handle second = indexes.acquire(request());
        assertThat(second.index().rows(7)).hasSize(1);
        first.close(); // the refreshed table's old snapshot
        assertThat(indexes.discard(Set.of(file))).isZero();
        assertThat(indexFiles()).as("the other table still holds it").hasSize(1);
        assertThat(second.index().rows(7)).hasSize(1);
        second.close();
        assertThat(indexFiles()).isEmpty();
        runQueued();
        assertThat(indexes.statistics().filesIndexed()).isEqualTo(1);
    }

    @Test
    void aDiscardedIndexTakenUpAgainStaysUntilItIsDiscardedOnceMore() throws IOException {
        KeyIndexes.Handle first = indexes.acquire(request());
        first.index();
        indexes.discard(Set.of(file)); // held: only marked
        KeyIndexes.Handle again = indexes.acquire(request()); // a table serves the file again
        first.close();
        again.close();
        assertThat(indexFiles()).hasSize(1);
        assertThat(indexes.discard(Set.of(file))).isEqualTo(1);
        assertThat(indexFiles()).isEmpty();
    }

    @Test
    void theSweepDeletesWhatNoProcessUsedForTheRetentionAndNeverAHeldFile() throws IOException {
        try (KeyIndexes.Handle handle = indexes.acquire(request())) {
            handle.index();
        }
        Path index = indexFiles().get(0);
        Path leftover = Files.writeString(directory().resolve("building-1.tmp"), "cut off");
        Files.setLastModifiedTime(leftover, FileTime.fromMillis(now.get()));
        long retention = IndexFiles.RETENTION.toMillis();

        now.addAndGet(retention); // used (let go of) exactly a retention ago: kept
        assertThat(indexes.sweep(directory())).isEmpty();
        assertThat(index).exists();
        assertThat(leftover).exists();

        now.addAndGet(1);
        // Held by a table now: kept however old, and marked used by the sweep.
        try (KeyIndexes.Handle handle = indexes.acquire(request())) {
            handle.index();
            now.addAndGet(3 * retention);
            assertThat(indexes.sweep(directory())).isEmpty();
            assertThat(index).exists();
            assertThat(leftover).doesNotExist();
            now.addAndGet(retention);
        }
        assertThat(indexes.statistics().indexesReused()).isEqualTo(1);
        now.addAndGet(retention);
        assertThat(indexes.sweep(directory())).isEmpty(); // let go of a retention ago
        now.addAndGet(1);
        assertThat(indexes.sweep(directory())).containsExactly(index);
        assertThat(index).doesNotExist();
    }

    @Test
    void tidySweepsInTheBackgroundAtMostOnceAnInterval() throws IOException {
        try (KeyIndexes.Handle handle = indexes.acquire(request())) {
            handle.index();
        }
        runQueued(); // the build's background run: a no-op, the lookup ran it
        now.addAndGet(IndexFiles.RETENTION.toMillis() + 1);
        indexes.tidy(directory());
        indexes.tidy(directory());
        assertThat(queued).hasSize(1);
        assertThat(indexFiles()).hasSize(1);
        runQueued();
        assertThat(indexFiles()).isEmpty();
        now.addAndGet(IndexFiles.SWEEP_INTERVAL.toMillis() - 1);
        indexes.tidy(directory());
        assertThat(queued).isEmpty();
        now.addAndGet(1);
        indexes.tidy(directory());
        assertThat(queued).hasSize(1);
    }

    /**
     * An index file another live process maps (here: holds the shared lock that every process takes
     * on the files it maps) is neither swept nor discarded; once that process ends it is.
     */
    @Test
    void aFileAnotherLiveProcessHoldsIsNeverDeleted() throws Exception {
        try (KeyIndexes.Handle handle = indexes.acquire(request())) {
            handle.index();
        }
        Path index = indexFiles().get(0);
        Path holder = tmp.resolve("Holder.java");
        Files.writeString(
                holder,
                "import java.nio.channels.FileChannel;\n"
                        + "import java.nio.file.*;\n"
                        + "public class Holder { public static void main(String[] a) throws"
                        + " Exception {\n"
                        + "  try (FileChannel c = FileChannel.open(Path.of(a[0]),"
                        + " StandardOpenOption.READ)) {\n"
                        + "    c.lock(0, Long.MAX_VALUE, true);\n"
                        + "    System.out.println(\"locked\");\n"
                        + "    System.in.read();\n"
                        + "  }\n"
                        + "} }\n");
        Process other =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                holder.toString(),
                                index.toString())
                        .redirectErrorStream(true)
                        .start();
        try {
            BufferedReader out =
                    new BufferedReader(
                            new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");
            now.addAndGet(IndexFiles.RETENTION.toMillis() + 1);
            assertThat(indexes.sweep(directory())).isEmpty();
            assertThat(indexes.discard(Set.of(file))).isZero();
            assertThat(index).exists();
        } finally {
            other.getOutputStream().close(); // it reads end of input and ends
            assertThat(other.waitFor(2, TimeUnit.MINUTES)).isTrue();
        }
        assertThat(indexes.sweep(directory())).containsExactly(index);
    }

    @Test
    void theSweepKeepsFilesUsedWithinTheRetentionByAnyProcess() throws IOException {
        Files.createDirectories(directory());
        Path young = Files.writeString(directory().resolve("other-young.pli"), "x");
        Path old = Files.writeString(directory().resolve("other-old.pli"), "x");
        Files.setLastModifiedTime(young, FileTime.fromMillis(now.get()));
        Files.setLastModifiedTime(
                old, FileTime.fromMillis(now.get() - Duration.ofDays(2).toMillis()));
        assertThat(indexes.sweep(directory())).containsExactly(old);
        assertThat(young).exists();
    }
}
