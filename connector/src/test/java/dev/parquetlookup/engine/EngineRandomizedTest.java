package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
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
        String context = "\n" + spec.describe() + "\n  rows=" + ref.rowCount();

        try (DimensionTable table = DimensionTable.open(ref.config().build())) {
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
                List<Object[]> actual = table.lookup(plan, asLookupKey(spec, probe.key, r));
                if (!Values.rowListsEqual(expected, actual)) {
                    throw new AssertionError(
                            "lookup #"
                                    + i
                                    + " ("
                                    + probe.kind
                                    + ") key "
                                    + Values.describe(probe.key)
                                    + " on "
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
                (expected.isEmpty() ? MISSES : HITS).incrementAndGet();
            }
            checkScan(table, spec, ref, context);
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

    /** A scan returns every row once, in key order (exactly file order for one file). */
    private static void checkScan(
            DimensionTable table, TableSpec spec, GeneratedTable ref, String context)
            throws Exception {
        List<String> all = spec.columns().stream().map(ColumnSpec::name).toList();
        LookupPlan plan = table.plan(spec.sortKey(), all);
        List<Object[]> scanned = new ArrayList<>();
        table.scan(plan, scanned::add);
        List<Object[]> rows = new ArrayList<>();
        ref.files().forEach(f -> rows.addAll(f.rows()));
        if (ref.files().size() == 1) {
            assertThat(Values.rowListsEqual(rows, scanned))
                    .as("scan of one file equals its rows in order" + context)
                    .isTrue();
            return;
        }
        Comparator<Object[]> byKey = Values.rowKeyOrder(spec.keyIndexes());
        for (int i = 1; i < scanned.size(); i++) {
            assertThat(byKey.compare(scanned.get(i - 1), scanned.get(i)))
                    .as("scan row %d is in key order%s", i, context)
                    .isLessThanOrEqualTo(0);
        }
        assertThat(scanned.stream().map(Values::describe).sorted().toList())
                .as("scan returns every row once" + context)
                .isEqualTo(rows.stream().map(Values::describe).sorted().toList());
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
        Object[] key = ref.randomExistingKey(r, prefix);
        key[r.nextInt(prefix)] = null;
        return new Probe("null component", key);
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

    /** STRING key components are sometimes given as {@code String}, which the engine accepts. */
    private static Object[] asLookupKey(TableSpec spec, Object[] key, Random r) {
        Object[] out = key.clone();
        for (int k = 0; k < out.length; k++) {
            ColumnSpec c = spec.column(spec.sortKey().get(k));
            if (c.type().kind() == ValueType.Kind.STRING
                    && out[k] instanceof byte[] bytes
                    && r.nextInt(3) == 0) {
                try {
                    out[k] =
                            StandardCharsets.UTF_8
                                    .newDecoder()
                                    .decode(java.nio.ByteBuffer.wrap(bytes))
                                    .toString();
                } catch (CharacterCodingException notUtf8) {
                    // Keep the bytes: a neighbour key need not be valid UTF-8.
                }
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
