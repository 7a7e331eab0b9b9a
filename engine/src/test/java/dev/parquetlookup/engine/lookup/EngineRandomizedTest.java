package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.TimestampValue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lookups on randomly generated tables (every value type and storage, codecs, dictionary, writer
 * v1/v2, BYTE_STREAM_SPLIT, 1-row pages, tiny row groups, runs of equal keys across page, row-group
 * and file boundaries, composite keys) compared exactly with the in-memory reference.
 *
 * <p>One seed is re-run alone with {@code -Dparquetlookup.seed=N}.
 */
class EngineRandomizedTest {

    /** Bounded so the class stays well under 90 s on a loaded 2-core machine. */
    private static final int SEEDS = 60;

    private static final int LOOKUPS_PER_SEED = 150;

    private static final AtomicLong HITS = new AtomicLong();
    private static final AtomicLong MISSES = new AtomicLong();

    @TempDir Path tmp;

    static LongStream seeds() {
        String one = System.getProperty("parquetlookup.seed");
        return one != null ? LongStream.of(Long.parseLong(one)) : LongStream.range(0, SEEDS);
    }

    @AfterAll
    static void bothHitsAndMissesWereExercised() {
        assertThat(HITS.get()).as("lookups that found rows").isPositive();
        assertThat(MISSES.get()).as("lookups that found nothing").isPositive();
    }

    @ParameterizedTest(name = "seed={0}")
    @MethodSource("seeds")
    void lookupsMatchReference(long seed) throws Exception {
        TableSpec spec = TableGenerator.randomSpec(seed, TableGenerator.ALL_WRITERS);
        GeneratedTable ref = TableGenerator.generate(spec, tmp.resolve("table"));
        // Every third seed reads through a small page cache, so pages are evicted and re-read.
        PageCache pageCache = seed % 3 == 2 ? new PageCache(64 << 10) : null;
        String context =
                "\n"
                        + spec.describe()
                        + "\n  rows="
                        + ref.rowCount()
                        + (pageCache == null ? "" : " pageCache=64KiB");

        TableConfig config = ref.config().pageCache(pageCache).build();
        try (DimensionTable table = DimensionTable.open(config);
                // The same files read like an object store's: asynchronous lookups take waves.
                DimensionTable remote =
                        DimensionTable.open(
                                config,
                                new AsyncFileStore(
                                        HadoopFileStore.create(
                                                config.hadoopOptions(), config.mapLocalFiles())))) {
            assertThat(table.sortKey()).as("sort key" + context).isEqualTo(spec.sortKey());
            List<String> fileOrder = table.files().stream().map(FileId::fileName).toList();
            assertThat(fileOrder)
                    .as("data files (junk files skipped)" + context)
                    .containsExactlyInAnyOrderElementsOf(ref.fileNames());
            checkSchema(table, spec, context);

            Random r = new Random(seed ^ 0x5DEECE66DL);
            int keyCount = spec.sortKey().size();
            for (int i = 0; i < LOOKUPS_PER_SEED; i++) {
                int prefix = r.nextInt(10) < 6 ? keyCount : 1 + r.nextInt(keyCount);
                int[] projection = randomProjection(spec, r);
                Probe probe = probe(ref, r, prefix);
                LookupPlan plan =
                        table.plan(
                                spec.sortKey().subList(0, prefix),
                                IntStream.of(projection)
                                        .mapToObj(c -> spec.columns().get(c).name())
                                        .toList());
                List<Object[]> expected = ref.expected(fileOrder, probe.key, projection);
                Object[] given = asLookupKey(spec, probe.key, r);
                List<Object[]> actual = table.lookup(plan, given);
                // Asynchronous lookups: complete in the calling thread on local files, agree on
                // remote-like ones.
                CompletableFuture<List<Object[]>> local =
                        table.lookupAsync(plan, given, RequestLimiter.unbounded());
                assertThat(local).as("local async lookup completed inline" + context).isDone();
                check(
                        i,
                        probe,
                        given,
                        plan,
                        fileOrder,
                        expected,
                        local.get(),
                        context + " (async)");
                check(
                        i,
                        probe,
                        given,
                        plan,
                        fileOrder,
                        expected,
                        remote.lookupAsync(plan, given, new RequestLimiter(1 + r.nextInt(4)))
                                .get(30, TimeUnit.SECONDS),
                        context + " (async, remote-like)");
                check(i, probe, given, plan, fileOrder, expected, actual, context);
                (expected.isEmpty() ? MISSES : HITS).incrementAndGet();
            }
            checkScan(table, spec, ref, context);
        }
    }

    private static void check(
            int i,
            Probe probe,
            Object[] given,
            LookupPlan plan,
            List<String> fileOrder,
            List<Object[]> expected,
            List<Object[]> actual,
            String context) {
        if (!Values.rowListsEqual(expected, actual)) {
            throw new AssertionError(
                    "lookup #"
                            + i
                            + " ("
                            + probe.kind
                            + ") key "
                            + Values.describe(probe.key)
                            + " (given as "
                            + Values.describe(given)
                            + ") on "
                            + plan.keyColumns()
                            + " projecting "
                            + plan.projectedColumns()
                            + " in files "
                            + fileOrder
                            + "\n  expected "
                            + Values.describe(expected, 8)
                            + "\n  actual   "
                            + Values.describe(actual, 8)
                            + context);
        }
    }

    /** Column names, order, nullability and types as written. */
    private static void checkSchema(DimensionTable table, TableSpec spec, String context) {
        List<ColumnSchema> columns = table.columns();
        assertThat(columns.stream().map(ColumnSchema::name).toList())
                .as("columns" + context)
                .isEqualTo(spec.columns().stream().map(ColumnSpec::name).toList());
        for (int i = 0; i < columns.size(); i++) {
            ColumnSpec want = spec.columns().get(i);
            ColumnSchema got = columns.get(i);
            assertThat(got.nullable())
                    .as("nullable of " + want + context)
                    .isEqualTo(want.nullable());
            // INT96 is read as TIMESTAMP(9), like the spec says.
            assertThat(got.type()).as("type of " + want + context).isEqualTo(want.type());
        }
    }

    /** A scan returns every row once: file by file in path order, each file in file order. */
    private static void checkScan(
            DimensionTable table, TableSpec spec, GeneratedTable ref, String context)
            throws Exception {
        List<String> all = spec.columns().stream().map(ColumnSpec::name).toList();
        LookupPlan plan = table.plan(spec.sortKey(), all);
        List<Object[]> scanned = new ArrayList<>();
        table.scan(plan, scanned::add);
        List<Object[]> rows = new ArrayList<>();
        ref.files().stream()
                .sorted(Comparator.comparing(f -> f.path().toString()))
                .forEach(f -> rows.addAll(f.rows()));
        if (!Values.rowListsEqual(rows, scanned)) {
            throw new AssertionError(
                    "scan differs from the files' rows in path order"
                            + "\n  expected "
                            + Values.describe(rows, 5)
                            + "\n  actual   "
                            + Values.describe(scanned, 5)
                            + context);
        }
    }

    private record Probe(String kind, Object[] key) {}

    /** A hit, a miss below/above/between existing keys, or a key with a null component. */
    static Probe probe(GeneratedTable ref, Random r, int prefix) {
        TableSpec spec = ref.spec();
        List<Object[]> keys = ref.distinctKeys();
        ColumnSpec last = spec.column(spec.sortKey().get(prefix - 1));
        int dice = r.nextInt(100);
        if (dice < 50) {
            return new Probe("hit", ref.randomExistingKey(r, prefix));
        }
        if (dice < 60) {
            Object[] key = truncate(keys.get(0), prefix);
            if (hasNull(key)) {
                return new Probe("null component", key);
            }
            key[prefix - 1] = TableGenerator.below(last, key[prefix - 1]);
            return key[prefix - 1] == null ? probe(ref, r, prefix) : new Probe("below min", key);
        }
        if (dice < 70) {
            Object[] key = truncate(keys.get(keys.size() - 1), prefix);
            if (hasNull(key)) {
                return new Probe("null component", key);
            }
            key[prefix - 1] = TableGenerator.above(last, key[prefix - 1]);
            return key[prefix - 1] == null ? probe(ref, r, prefix) : new Probe("above max", key);
        }
        if (dice < 93) {
            Object[] key = truncate(keys.get(r.nextInt(keys.size())), prefix);
            if (hasNull(key)) {
                return new Probe("null component", key);
            }
            key[prefix - 1] =
                    r.nextBoolean()
                            ? TableGenerator.above(last, key[prefix - 1])
                            : TableGenerator.below(last, key[prefix - 1]);
            return key[prefix - 1] == null ? probe(ref, r, prefix) : new Probe("between", key);
        }
        if (dice < 96) {
            // A value finer than the column holds (a decimal digit more, a nanosecond more):
            // equal to no stored value, however the engine rounds.
            Object[] key = ref.randomExistingKey(r, prefix);
            Object finer = finer(last, key[prefix - 1]);
            if (finer == null) {
                return new Probe("hit", key);
            }
            key[prefix - 1] = finer;
            return new Probe("finer than column", key);
        }
        Object[] key = ref.randomExistingKey(r, prefix);
        key[r.nextInt(prefix)] = null;
        return new Probe("null component", key);
    }

    private static Object finer(ColumnSpec c, Object v) {
        if (v instanceof BigDecimal d) {
            return d.add(BigDecimal.ONE.movePointLeft(d.scale() + 1));
        }
        if (v instanceof TimestampValue ts && c.type().precision() < 9) {
            return new TimestampValue(ts.epochMillis(), ts.nanoOfMillisecond() + 1);
        }
        return null;
    }

    private static boolean hasNull(Object[] key) {
        for (Object k : key) {
            if (k == null) {
                return true;
            }
        }
        return false;
    }

    private static Object[] truncate(Object[] key, int prefix) {
        Object[] out = new Object[prefix];
        System.arraycopy(key, 0, out, 0, prefix);
        return out;
    }

    /**
     * Key components in the other forms the engine accepts: STRING as {@code String}, DECIMAL with
     * a larger scale, BIGINT as {@code Integer}, INT and DATE as {@code Long}.
     */
    private static Object[] asLookupKey(TableSpec spec, Object[] key, Random r) {
        Object[] out = key.clone();
        for (int k = 0; k < out.length; k++) {
            ColumnSpec c = spec.column(spec.sortKey().get(k));
            Object v = out[k];
            if (v == null || r.nextInt(3) > 0) {
                continue;
            }
            switch (c.type().kind()) {
                case STRING -> {
                    try {
                        out[k] =
                                StandardCharsets.UTF_8
                                        .newDecoder()
                                        .decode(java.nio.ByteBuffer.wrap((byte[]) v))
                                        .toString();
                    } catch (CharacterCodingException notUtf8) {
                        // Keep the bytes: a neighbour key need not be valid UTF-8.
                    }
                }
                // Same value, more trailing zeros: decimals match by value.
                case DECIMAL -> out[k] = ((BigDecimal) v).setScale(((BigDecimal) v).scale() + 2);
                case BIGINT -> {
                    long l = (Long) v;
                    if (l == (int) l) {
                        out[k] = (int) l;
                    }
                }
                case INT, DATE -> out[k] = (long) (Integer) v;
                default -> {}
            }
        }
        return out;
    }

    static int[] randomProjection(TableSpec spec, Random r) {
        int n = spec.columns().size();
        if (r.nextInt(5) == 0) {
            return IntStream.range(0, n).toArray();
        }
        List<Integer> all = new ArrayList<>(IntStream.range(0, n).boxed().toList());
        Collections.shuffle(all, r);
        return all.subList(0, 1 + r.nextInt(Math.min(n, 6))).stream()
                .mapToInt(Integer::intValue)
                .toArray();
    }
}
