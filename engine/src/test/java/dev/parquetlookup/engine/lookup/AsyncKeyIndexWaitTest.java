package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.ForwardingRangeSource;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.MetadataCache;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An asynchronous lookup on a secondary key whose files' indexes are still building returns its
 * thread: its future completes when the builds are done (every lookup waiting shares each file's
 * one build), with the rows a synchronous lookup finds; whether planning started the builds or the
 * first lookup does. The builds are held back by a gate on the files' reads, opened only after
 * every lookup call returned. A lookup by the sort key of unsorted files waits only for their
 * indexes on that key, not for another key's index of the same files.
 */
class AsyncKeyIndexWaitTest {

    @TempDir Path tmp;

    /** Reads that wait while the gate is shut. */
    private static final class Gate {
        private volatile CountDownLatch shut = new CountDownLatch(0);

        void shut() {
            shut = new CountDownLatch(1);
        }

        void open() {
            shut.countDown();
        }

        /** Whether only the index builders' threads wait at the gate (lookups' own reads pass). */
        private volatile boolean buildersOnly;

        /** The reads that reached the last 8 bytes of a file (a footer's), by thread name. */
        private final List<String> footerReaders = new CopyOnWriteArrayList<>();

        void read(RangeSource source, long position, long length) throws IOException {
            if (position + length >= source.file().length() - 8) {
                footerReaders.add(Thread.currentThread().getName());
            }
            pass();
        }

        void pass() throws IOException {
            if (buildersOnly
                    && !Thread.currentThread().getName().startsWith("parquet-lookup-index")) {
                return;
            }
            try {
                shut.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException();
            }
        }
    }

    private static final class GatedSource extends ForwardingRangeSource {
        private final Gate gate;

        GatedSource(RangeSource delegate, Gate gate) {
            super(delegate);
            this.gate = gate;
        }

        @Override
        public void readFully(long position, byte[] buffer, int offset, int length)
                throws IOException {
            gate.read(delegate(), position, length);
            super.readFully(position, buffer, offset, length);
        }

        @Override
        public <T> T readWith(long position, int length, RangeSource.RangeReader<T> reader)
                throws IOException {
            gate.read(delegate(), position, length);
            return super.readWith(position, length, reader);
        }

        @Override
        public byte[] read(FileRange range) throws IOException {
            gate.read(delegate(), range.offset(), range.length());
            return super.read(range);
        }

        @Override
        public byte[][] readAll(List<FileRange> ranges) throws IOException {
            for (FileRange range : ranges) {
                gate.read(delegate(), range.offset(), range.length());
            }
            return super.readAll(ranges);
        }
    }

    @ParameterizedTest(name = "builds started by planning: {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // a lookup parked on the gate would hang
    void lookupsReturnTheirThreadWhileTheIndexBuildsAndShareOneBuildPerFile(boolean planned)
            throws Exception {
        Path dir = writeTable("table", "'user' || (i % 5000) || '@example.org'", "i");
        Gate gate = new Gate();
        try (DimensionTable table = openGated(dir, gate)) {
            LookupPlan plan = table.plan(List.of("email"), List.of("id"));
            long builtBefore = KeyIndexes.shared().statistics().filesIndexed();
            List<Object[]> keys = new ArrayList<>();
            List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
            gate.shut();
            try {
                if (planned) {
                    table.prepare(plan); // both builds start, and wait at the gate
                }
                for (int k = 0; k < 20; k++) {
                    Object[] key = {"user" + (k * 37) + "@example.org"};
                    keys.add(key);
                    futures.add(table.lookupAsync(plan, key, RequestLimiter.unbounded()));
                }
                // Every call returned while the builds cannot have finished.
                assertThat(futures).allSatisfy(f -> assertThat(f).isNotDone());
            } finally {
                gate.open();
            }
            for (int k = 0; k < keys.size(); k++) {
                List<Object[]> async = futures.get(k).get(2, TimeUnit.MINUTES);
                List<Object[]> sync = table.lookup(plan, keys.get(k));
                assertThat(ids(async)).isEqualTo(ids(sync)).hasSize(8);
            }
            assertThat(KeyIndexes.shared().statistics().filesIndexed() - builtBefore)
                    .as("one build per file, shared by every lookup")
                    .isEqualTo(2);
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aLookupByTheSortKeyDoesNotWaitForAnotherKeysIndexOfTheSameFile() throws Exception {
        // Two files whose rows are shuffled: served through their indexes on id.
        Path dir = writeTable("shuffled", "'user' || i || '@example.org'", "hash(i)");
        Gate gate = new Gate();
        gate.buildersOnly = true;
        try (DimensionTable table = openGated(dir, gate)) {
            LookupPlan byId = table.plan(List.of("id"), List.of("email"));
            // Both files' indexes on id, built (a synchronous lookup waits for its file's).
            assertThat(table.lookup(byId, new Object[] {7L})).hasSize(1);
            assertThat(table.lookup(byId, new Object[] {20_001L})).hasSize(1);
            LookupPlan byEmail = table.plan(List.of("email"), List.of("id"));
            gate.shut();
            try {
                table.prepare(byEmail); // both files' email indexes start, and wait at the gate
                CompletableFuture<List<Object[]>> byIdAsync =
                        table.lookupAsync(byId, new Object[] {20_007L}, RequestLimiter.unbounded());
                CompletableFuture<List<Object[]>> byEmailAsync =
                        table.lookupAsync(
                                byEmail,
                                new Object[] {"user20007@example.org"},
                                RequestLimiter.unbounded());
                // The id lookup reads the built id indexes; only the email lookup waits.
                assertThat(byIdAsync).isDone();
                assertThat(byIdAsync.get().get(0)[0])
                        .isEqualTo("user20007@example.org".getBytes(StandardCharsets.UTF_8));
                assertThat(byEmailAsync).isNotDone();
                gate.open();
                assertThat(byEmailAsync.get(2, TimeUnit.MINUTES).get(0)[0]).isEqualTo(20_007L);
            } finally {
                gate.open();
            }
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // a lookup parked on the gate would hang
    void anAsyncLookupThatFindsAFileUnsortedWaitsForItsIndexWithoutReadingOrBuildingOnItsThread()
            throws Exception {
        // Row groups in key order, rows shuffled inside them: found unsorted at the first lookup.
        Path dir =
                writeTable(
                        "inside", "'user' || i || '@example.org'", "(i % 20000) // 4096, hash(i)");
        Gate gate = new Gate();
        gate.buildersOnly = true;
        try (DimensionTable table = openGated(dir, gate)) {
            LookupPlan byId = table.plan(List.of("id"), List.of("email"));
            String caller = Thread.currentThread().getName();
            gate.footerReaders.clear();
            CompletableFuture<List<Object[]>> found;
            gate.shut();
            try {
                found = table.lookupAsync(byId, new Object[] {7L}, RequestLimiter.unbounded());
                // It returned its thread: the metadata read again and the index built by the
                // engine's threads (held at the gate), none of it by the lookup's caller, which
                // in a job may be a client's event loop.
                assertThat(found).isNotDone();
                assertThat(gate.footerReaders)
                        .as("footer reads on the caller")
                        .doesNotContain(caller);
            } finally {
                gate.open();
            }
            assertThat(found.get(2, TimeUnit.MINUTES))
                    .singleElement()
                    .satisfies(
                            row ->
                                    assertThat(row[0])
                                            .isEqualTo(
                                                    "user7@example.org"
                                                            .getBytes(StandardCharsets.UTF_8)));
            assertThat(gate.footerReaders).as("the footer read again, for the index").isNotEmpty();
            try (Stream<Path> files = Files.walk(tmp.resolve("indexes"))) {
                // The JVM's build counter would also count other tests' builds still running.
                assertThat(files.filter(f -> f.toString().endsWith(".pli")))
                        .as("index files: the one file found unsorted, indexed once")
                        .hasSize(1);
            }
            // Later lookups, asynchronous or not, find it indexed.
            assertThat(
                            table.lookupAsync(
                                            byId, new Object[] {4_100L}, RequestLimiter.unbounded())
                                    .get(2, TimeUnit.MINUTES))
                    .hasSize(1);
            assertThat(table.lookup(byId, new Object[] {19_999L})).hasSize(1);
        }
    }

    /**
     * Two DuckDB files in {@code name}: a (ids 0 to 19,999) and b (20,000 to 39,999), with {@code
     * email} (a SQL expression of {@code i}), rows ordered by {@code order}, 4,096-row row groups.
     */
    private Path writeTable(String name, String email, String order) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            for (String part : List.of("a", "b")) {
                int from = part.equals("a") ? 0 : 20_000;
                st.execute(
                        "COPY (SELECT i AS id, "
                                + email
                                + " AS email FROM range("
                                + from
                                + ", "
                                + (from + 20_000)
                                + ") t(i) ORDER BY "
                                + order
                                + ") TO '"
                                + dir.resolve(part + ".parquet")
                                + "' (FORMAT parquet, ROW_GROUP_SIZE 4096)");
            }
        }
        return dir;
    }

    /** The table of {@code dir} (sort key id), every file read through {@code gate}. */
    private DimensionTable openGated(Path dir, Gate gate) throws IOException {
        FileStore gated =
                new ForwardingFileStore(HadoopFileStore.create(Map.of())) {
                    @Override
                    public RangeSource open(FileId file) throws IOException {
                        return new GatedSource(super.open(file), gate);
                    }
                };
        TableConfig config =
                TableConfig.builder(dir.toString())
                        .sortKey(List.of("id"))
                        .metadataCache(new MetadataCache(16 << 20))
                        .indexDirectory(tmp.resolve("indexes"))
                        .build();
        return DimensionTable.open(config, gated);
    }

    private static List<Long> ids(List<Object[]> rows) {
        List<Long> ids = new ArrayList<>();
        for (Object[] row : rows) {
            ids.add((Long) row[0]);
        }
        return ids;
    }
}
