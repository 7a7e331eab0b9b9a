package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.local.LocalForms;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.flink.table.TestDimension;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.flink.configuration.MemorySize;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The async function on real files, with a file store that observes or breaks the reads: lookups
 * really overlap (no lock around the engine), failures and closing complete every future.
 */
class ParquetAsyncLookupFunctionTest {

    @TempDir static Path dir;
    private static TestDimension data;

    private static final List<String> NAMES = List.of("g", "v");
    private static final List<LogicalType> TYPES = List.of(new IntType(), new BigIntType());

    @BeforeAll
    static void writeFiles() throws Exception {
        data = TestDimension.generate(11L, 40, 0);
        data.write(dir, 2);
    }

    /** Data reads, once armed, pass through {@code onRead} first. */
    private interface ReadHook {
        void onRead() throws IOException;
    }

    /**
     * Sources with a hook on every data read. Synchronous by default (like local files: an async
     * lookup reads in the calling thread); {@code remote} answers asynchronous reads on threads of
     * its own, like an object store's client, so a hook that blocks holds no lookup's thread.
     */
    private static final class HookedStore extends ForwardingFileStore {
        private final ReadHook hook;
        private final ExecutorService answers;
        volatile boolean armed;

        HookedStore(ReadHook hook) {
            this(hook, false);
        }

        HookedStore(ReadHook hook, boolean remote) {
            super(HadoopFileStore.create(Map.of()));
            this.hook = hook;
            this.answers = remote ? Executors.newCachedThreadPool() : null;
        }

        @Override
        public void close() throws IOException {
            if (answers != null) {
                answers.shutdownNow();
            }
            super.close();
        }

        @Override
        public RangeSource open(FileId file) throws IOException {
            RangeSource source = super.open(file);
            return new RangeSource() {
                @Override
                public FileId file() {
                    return source.file();
                }

                @Override
                public void readFully(long position, byte[] buffer, int offset, int length)
                        throws IOException {
                    if (armed) {
                        hook.onRead();
                    }
                    source.readFully(position, buffer, offset, length);
                }

                @Override
                public byte[][] readAll(List<FileRange> ranges) throws IOException {
                    if (armed) {
                        hook.onRead();
                    }
                    return source.readAll(ranges);
                }

                @Override
                public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
                    if (answers == null) {
                        return RangeSource.super.readAllAsync(ranges);
                    }
                    CompletableFuture<byte[][]> result = new CompletableFuture<>();
                    answers.execute(
                            () -> {
                                try {
                                    result.complete(readAll(ranges));
                                } catch (IOException | RuntimeException e) {
                                    result.completeExceptionally(e);
                                }
                            });
                    return result;
                }

                @Override
                public void close() throws IOException {
                    source.close();
                }
            };
        }
    }

    private static ParquetAsyncLookupFunction function(
            HookedStore store, int threads, int retries, long metadataCacheBytes) {
        // A metadata cache of its own (odd size) so no other test's parsed footers are shared,
        // and no page cache: these tests count reads, and the JVM-wide page cache (on by default,
        // admitting a page on its second touch) would answer some of them depending on what other
        // tests touched before. No local forms either: their background check of a file reads
        // through the store too, and would be counted.
        ParquetLookupConfig config =
                ParquetLookupConfig.builder("t", dir.toUri().toString())
                        .set(
                                ParquetLookupOptions.METADATA_CACHE_MAX_BYTES,
                                new MemorySize(metadataCacheBytes))
                        .set(ParquetLookupOptions.PAGE_CACHE_MAX_BYTES, new MemorySize(0))
                        .set(ParquetLookupOptions.MAX_RETRIES, retries)
                        .set(ParquetLookupOptions.REPAGE, LocalForms.Mode.OFF)
                        .build();
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("g"), List.of("g"));
        return new ParquetAsyncLookupFunction(
                config,
                spec,
                (tableConfig, refresh, shared) ->
                        RefreshingTable.open(tableConfig, refresh, store));
    }

    private static List<RowData> expected(int g) {
        List<RowData> rows = new ArrayList<>();
        for (TestDimension.Dim d : data.rows) {
            if (d.g() == g) {
                rows.add(GenericRowData.of(d.g(), d.v()));
            }
        }
        return rows;
    }

    /**
     * Four cold lookups have their reads out at once, with no thread of the function's: each
     * lookup's first wave is two requests (its key page, and the value page under the key page's
     * rows read ahead), so eight reads are blocked together before any is answered.
     */
    @Test
    void lookupsRunConcurrently() throws Exception {
        int threads = 4;
        int reads = 2 * threads;
        CountDownLatch allInFlight = new CountDownLatch(reads);
        HookedStore store =
                new HookedStore(
                        () -> {
                            allInFlight.countDown();
                            try {
                                if (!allInFlight.await(30, TimeUnit.SECONDS)) {
                                    throw new IOException(
                                            "only "
                                                    + (reads - allInFlight.getCount())
                                                    + " of "
                                                    + reads
                                                    + " reads were out at once");
                                }
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new InterruptedIOException();
                            }
                        },
                        true);
        // A metadata cache far larger than the files' footers and page indexes: an index evicted
        // between the warm-up lookups and the armed ones would be read again (it is only weakly
        // held then, so whether depends on the GC), and that read would count as one of the eight.
        ParquetAsyncLookupFunction function = function(store, threads, 0, 64_000_001);
        function.open(new FunctionContext(null));
        try {
            // Four different existing keys: each needs its own page reads.
            int[] keys = {0, 12, 25, 38};
            // Their row groups' page indexes first (read once, on the first lookup into a row
            // group, shared): the armed lookups below then read pages only.
            for (int g : keys) {
                function.asyncLookup(GenericRowData.of(g)).get(60, TimeUnit.SECONDS);
            }
            store.armed = true;
            List<CompletableFuture<Collection<RowData>>> futures = new ArrayList<>();
            for (int g : keys) {
                futures.add(function.asyncLookup(GenericRowData.of(g)));
            }
            for (int i = 0; i < keys.length; i++) {
                assertThat(futures.get(i).get(60, TimeUnit.SECONDS))
                        .containsExactlyInAnyOrderElementsOf(expected(keys[i]));
            }
            assertThat(allInFlight.getCount()).isZero();
            // A key with a null component matches nothing and reads nothing.
            assertThat(function.asyncLookup(GenericRowData.of((Object) null)).get()).isEmpty();
        } finally {
            function.close();
        }
    }

    @Test
    void failuresAreRetriedThenCompleteTheFutureExceptionally() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        HookedStore store =
                new HookedStore(
                        () -> {
                            reads.incrementAndGet();
                            throw new IOException("disk on fire");
                        });
        ParquetAsyncLookupFunction function = function(store, 2, 2, 1_000_003);
        function.open(new FunctionContext(null));
        try {
            store.armed = true;
            CompletableFuture<Collection<RowData>> future =
                    function.asyncLookup(GenericRowData.of(12));
            assertThatThrownBy(() -> future.get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Lookup in table 't' (")
                    .hasMessageContaining("failed after 3 attempts")
                    .hasMessageContaining("disk on fire");
            assertThat(reads.get()).isEqualTo(3);
        } finally {
            function.close();
        }
    }

    /**
     * A lost page of a memory-mapped file surfaces as the JVM's InternalError: the lookup fails
     * with an IOException saying what happened (Flink would take the InternalError as fatal).
     */
    @Test
    void aLostMappedPageFailsTheLookupNotTheTaskManager() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        HookedStore store =
                new HookedStore(
                        () -> {
                            reads.incrementAndGet();
                            throw new InternalError(
                                    "a fault occurred in a recent unsafe memory access operation"
                                            + " in compiled Java code");
                        });
        ParquetAsyncLookupFunction function = function(store, 2, 2, 1_000_007);
        function.open(new FunctionContext(null));
        try {
            store.armed = true;
            CompletableFuture<Collection<RowData>> future =
                    function.asyncLookup(GenericRowData.of(12));
            assertThatThrownBy(() -> future.get(60, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Lookup in table 't' (")
                    .hasMessageContaining("a memory-mapped file changed in place")
                    .hasMessageContaining("'local-files.mmap' = 'false'")
                    .hasCauseInstanceOf(InternalError.class);
            assertThat(reads.get()).as("not retried").isEqualTo(1);
        } finally {
            function.close();
        }
    }

    /**
     * Closing with lookups whose reads are out (and a 1,000 more waiting for the in-flight bound)
     * fails every future at once; the reads answered later change nothing, and no thread of the
     * function is left.
     */
    @Test
    void closingCompletesEveryLookupInFlight() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        HookedStore store =
                new HookedStore(
                        () -> {
                            entered.countDown();
                            try {
                                released.await(60, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                throw new InterruptedIOException("read interrupted");
                            }
                        },
                        true);
        ParquetAsyncLookupFunction function = function(store, 1, 3, 1_000_007);
        function.open(new FunctionContext(null));
        store.armed = true;
        List<CompletableFuture<Collection<RowData>>> futures = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            futures.add(function.asyncLookup(GenericRowData.of(i % 40)));
        }
        assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();
        function.close();
        for (CompletableFuture<Collection<RowData>> future : futures) {
            assertThat(future).isDone();
            assertThatThrownBy(() -> future.get(60, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(RejectedExecutionException.class)
                    .hasMessage("lookup function of table 't' closed before the lookup ran");
        }
        released.countDown();
        // After close, new lookups fail at once instead of hanging.
        assertThat(function.asyncLookup(GenericRowData.of(1))).isCompletedExceptionally();
        assertThat(
                        Thread.getAllStackTraces().keySet().stream()
                                .map(Thread::getName)
                                .filter(n -> n.startsWith("parquet-lookup-t")))
                .as("threads of the function")
                .isEmpty();
    }
}
