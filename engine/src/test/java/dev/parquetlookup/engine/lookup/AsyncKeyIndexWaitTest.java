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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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
            gate.pass();
            super.readFully(position, buffer, offset, length);
        }

        @Override
        public <T> T readWith(long position, int length, RangeSource.RangeReader<T> reader)
                throws IOException {
            gate.pass();
            return super.readWith(position, length, reader);
        }

        @Override
        public byte[] read(FileRange range) throws IOException {
            gate.pass();
            return super.read(range);
        }

        @Override
        public byte[][] readAll(List<FileRange> ranges) throws IOException {
            gate.pass();
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
