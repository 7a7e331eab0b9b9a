package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several threads look up random keys on one shared {@link DimensionTable} (shared file sources,
 * metadata and page caches) from the very first lookup on; every answer is checked against the
 * reference. A barrier, not a sleep, makes the threads start together.
 */
class ConcurrentLookupTest {

    private static final int THREADS = 6;
    private static final int LOOKUPS_PER_THREAD = 500;

    @TempDir Path tmp;

    @Test
    void concurrentLookupsAllMatchTheReference() throws Exception {
        check(spec(1, TableSpec.Writer.LOOKUP_FILE_WRITER, false), null);
    }

    @Test
    void concurrentLookupsWithPageCacheAndDictionaryAllMatchTheReference() throws Exception {
        check(spec(2, TableSpec.Writer.PARQUET_JAVA, true), new PageCache(4 << 20));
    }

    /** A composite key (BIGINT, STRING) over every value kind, three overlapping files. */
    private static TableSpec spec(long seed, TableSpec.Writer writer, boolean dictionary) {
        Random r = new Random(seed);
        List<ColumnSpec> columns = new ArrayList<>();
        columns.add(
                new ColumnSpec("id", ValueType.of(ValueType.Kind.BIGINT), Storage.PLAIN, false));
        columns.add(
                new ColumnSpec("name", ValueType.of(ValueType.Kind.STRING), Storage.PLAIN, false));
        for (ColumnSpec v : TableGenerator.allValueColumns(r)) {
            columns.add(new ColumnSpec(v.name(), v.type(), v.storage(), true));
        }
        WriterOptions options =
                WriterOptions.defaults()
                        .withCodec(CompressionCodecName.ZSTD)
                        .withDictionary(dictionary)
                        .withRowsPerPage(16)
                        .withRowsPerRowGroup(300);
        return new TableSpec(
                seed,
                columns,
                List.of("id", "name"),
                options,
                writer,
                true,
                700,
                3,
                true,
                false,
                false,
                false);
    }

    private void check(TableSpec spec, PageCache pageCache) throws Exception {
        GeneratedTable ref = TableGenerator.generate(spec, tmp.resolve("t" + spec.seed()));
        TableConfig config =
                ref.config()
                        .metadataCache(new MetadataCache(64 << 20))
                        .pageCache(pageCache)
                        .build();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (DimensionTable table = DimensionTable.open(config)) {
            List<String> fileOrder = table.files().stream().map(FileId::fileName).toList();
            List<Callable<int[]>> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long threadSeed = spec.seed() * 100 + t;
                tasks.add(() -> lookups(table, ref, fileOrder, threadSeed, start, failures));
            }
            List<Future<int[]>> results = pool.invokeAll(tasks, 5, TimeUnit.MINUTES);
            int hits = 0;
            int misses = 0;
            for (Future<int[]> f : results) {
                int[] counts = f.get();
                hits += counts[0];
                misses += counts[1];
            }
            assertThat(failures).as(spec.describe()).isEmpty();
            assertThat(hits).isGreaterThan(THREADS * LOOKUPS_PER_THREAD / 3);
            assertThat(misses).isGreaterThan(THREADS * LOOKUPS_PER_THREAD / 10);
        } finally {
            pool.shutdownNow();
        }
    }

    private static int[] lookups(
            DimensionTable table,
            GeneratedTable ref,
            List<String> fileOrder,
            long seed,
            CyclicBarrier start,
            Queue<String> failures)
            throws Exception {
        TableSpec spec = ref.spec();
        Random r = new Random(seed);
        int[] counts = new int[2];
        start.await(1, TimeUnit.MINUTES);
        for (int i = 0; i < LOOKUPS_PER_THREAD && failures.size() < 20; i++) {
            int prefix = 1 + r.nextInt(2);
            Object[] key = ref.randomExistingKey(r, prefix);
            if (r.nextInt(3) == 0) {
                ColumnSpec last = spec.column(spec.sortKey().get(prefix - 1));
                Object moved =
                        r.nextBoolean()
                                ? TableGenerator.above(last, key[prefix - 1])
                                : TableGenerator.below(last, key[prefix - 1]);
                key[prefix - 1] = moved != null ? moved : key[prefix - 1];
            }
            int[] projection = EngineRandomizedTest.randomProjection(spec, r);
            LookupPlan plan =
                    table.plan(
                            spec.sortKey().subList(0, prefix),
                            IntStream.of(projection)
                                    .mapToObj(c -> spec.columns().get(c).name())
                                    .toList());
            List<Object[]> expected = ref.expected(fileOrder, key, projection);
            List<Object[]> actual;
            try {
                actual = table.lookup(plan, key);
            } catch (Exception | AssertionError e) {
                failures.add("seed " + seed + " lookup " + Values.describe(key) + " threw " + e);
                continue;
            }
            if (!Values.rowListsEqual(expected, actual)) {
                failures.add(
                        "seed "
                                + seed
                                + " lookup "
                                + Values.describe(key)
                                + " projecting "
                                + plan.projectedColumns()
                                + "\n  expected "
                                + Values.describe(expected, 4)
                                + "\n  actual   "
                                + Values.describe(actual, 4));
            }
            counts[expected.isEmpty() ? 1 : 0]++;
        }
        return counts;
    }
}
