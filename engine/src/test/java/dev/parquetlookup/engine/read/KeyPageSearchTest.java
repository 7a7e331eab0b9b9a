package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.engine.page.KeyPage;
import dev.parquetlookup.engine.page.PageDecoder;
import dev.parquetlookup.engine.page.PagePrefix;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key pages searched in their bytes ({@code DictionaryKeys}, {@code PlainKeys}) answer exactly like
 * the value-by-value decode ({@code KeyPage.Decoded}): every key page of random dictionary-encoded
 * files (every key type, nulls, runs of equal keys across pages, v1 and v2 pages, every codec,
 * dictionaries that fall back to PLAIN mid-chunk), whole and as prefixes, for keys on the page,
 * between them, below and above; then lookups through the table against the reference rows.
 *
 * <p>One seed is re-run alone with {@code -Dparquetlookup.seed=N}.
 */
class KeyPageSearchTest {

    private static final int SEEDS = 30;

    /** Key pages checked, by form and key kind ("DictionaryKeys LONG nulls", ...). */
    private static final Map<String, AtomicLong> FORMS = new ConcurrentHashMap<>();

    private static final AtomicLong HITS = new AtomicLong();
    private static final AtomicLong MISSES = new AtomicLong();

    @TempDir Path tmp;

    static LongStream seeds() {
        String one = System.getProperty("parquetlookup.seed");
        return one != null ? LongStream.of(Long.parseLong(one)) : LongStream.range(0, SEEDS);
    }

    @AfterAll
    static void everyFormWasExercised() {
        if (System.getProperty("parquetlookup.seed") == null) {
            assertThat(FORMS)
                    .as("forms: " + FORMS)
                    .containsKeys(
                            "DictionaryKeys LONG",
                            "DictionaryKeys BYTES",
                            "DictionaryKeys BIG_INTEGER",
                            "DictionaryKeys LONG nulls",
                            "PlainKeys BYTES",
                            "PlainKeys LONG");
            assertThat(HITS.get()).isPositive();
            assertThat(MISSES.get()).isPositive();
        }
    }

    /** A random spec with dictionary encoding on (sometimes with a small dictionary page). */
    static TableSpec dictionarySpec(long seed) {
        TableSpec s = TableGenerator.randomSpec(seed, TableGenerator.ALL_WRITERS);
        WriterOptions o = s.options();
        Random r = new Random(seed);
        WriterOptions dictionary =
                new WriterOptions(
                        o.codec(),
                        true,
                        o.v2(),
                        false,
                        o.rowsPerPage(),
                        o.pageBytes(),
                        r.nextInt(4) == 0 ? 300 : 1 << 20,
                        o.rowsPerRowGroup(),
                        o.pageIndex());
        // Every third seed makes its key columns nullable, with null keys.
        boolean nulls = seed % 3 == 0;
        List<ColumnSpec> columns = new ArrayList<>();
        for (ColumnSpec c : s.columns()) {
            boolean key = s.sortKey().contains(c.name());
            columns.add(nulls && key ? new ColumnSpec(c.name(), c.type(), c.storage(), true) : c);
        }
        return new TableSpec(
                s.seed(),
                columns,
                s.sortKey(),
                dictionary,
                s.writer(),
                s.sortKeyInConfig(),
                s.distinctKeys(),
                s.fileCount(),
                s.overlappingFiles(),
                s.longKeyPrefix(),
                false,
                s.nullKeys() || nulls);
    }

    @ParameterizedTest(name = "seed={0}")
    @MethodSource("seeds")
    void keyPagesSearchLikeTheFullDecode(long seed) throws Exception {
        TableSpec spec = dictionarySpec(seed);
        GeneratedTable ref = TableGenerator.generate(spec, tmp.resolve("table"));
        String context = "\n" + spec.describe() + "\n  seed " + seed;
        PageCache cache = seed % 2 == 0 ? new PageCache(1 << 20) : null;
        Random r = new Random(seed * 13 + 5);
        TableConfig config = ref.config().pageCache(cache).build();
        try (DimensionTable table = DimensionTable.open(config);
                HadoopFileStore store = HadoopFileStore.create(Map.of(), true)) {
            for (FileMetadata meta : table.fileMetadata()) {
                try (RangeSource source = store.open(meta.file())) {
                    checkFile(meta, source, cache, r, context);
                }
            }
            lookups(table, ref, spec, r, context);
        }
    }

    private static void checkFile(
            FileMetadata meta, RangeSource source, PageCache cache, Random r, String context)
            throws IOException {
        ColumnDescriptor[] leaves = meta.schema().getColumns().toArray(new ColumnDescriptor[0]);
        FileErrors errors = new FileErrors(meta, leaves);
        PageLoader loader = new PageLoader(meta, source, cache, null, leaves, errors);
        for (int g = 0; g < meta.rowGroups().size(); g++) {
            LookupContext ctx = new LookupContext();
            RowGroupInfo rg = ctx.rowGroup(meta, source, g);
            for (int k = 0; k < meta.keyLeaves().length; k++) {
                int leaf = meta.keyLeaves()[k];
                ColumnChunkInfo chunk = rg.columns()[leaf];
                PageLocations locations = chunk.pages();
                if (locations == null) {
                    continue; // no page index: the lookups below walk the chunk
                }
                for (int p = 0; p < locations.pageCount(); p++) {
                    byte[] bytes = source.read(locations.range(p));
                    PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
                    List<DataPage> forms = new ArrayList<>();
                    forms.add(PageDecoder.dataPage(bytes, header, chunk.codec()));
                    int rows = r.nextInt(header.valueCount() + 1);
                    byte[] out = new byte[PagePrefix.decodedSize(header, chunk.codec()) + 16];
                    r.nextBytes(out);
                    forms.add(
                            PagePrefix.decode(
                                    ByteBuffer.wrap(bytes),
                                    header,
                                    chunk.codec(),
                                    leaves[leaf],
                                    rows,
                                    out,
                                    true,
                                    null));
                    for (DataPage page : forms) {
                        LoadedPage loaded =
                                new LoadedPage(
                                        rg.ordinal(),
                                        leaf,
                                        p,
                                        locations.firstRows()[p],
                                        page,
                                        null);
                        String where =
                                context
                                        + "\n  row group "
                                        + g
                                        + " key "
                                        + k
                                        + " page "
                                        + p
                                        + " "
                                        + page.valueEncoding()
                                        + " v2="
                                        + page.v2()
                                        + " rows="
                                        + page.rowsAvailable()
                                        + " "
                                        + chunk.codec();
                        comparePage(meta, loader, errors, rg, k, leaf, loaded, ctx, r, where);
                    }
                    ctx.releaseScratch();
                }
            }
        }
    }

    private static void comparePage(
            FileMetadata meta,
            PageLoader loader,
            FileErrors errors,
            RowGroupInfo rg,
            int k,
            int leaf,
            LoadedPage loaded,
            LookupContext ctx,
            Random r,
            String where)
            throws IOException {
        ColumnDescriptor column = meta.schema().getColumns().get(leaf);
        KeyType type = meta.keyTypes().get(k);
        KeyPage fast = loader.keyPage(loaded, leaf, k, rg, ctx);
        Dictionary dictionary = loader.dictionaryFor(loaded, leaf, ctx);
        KeyPage reference =
                KeyPage.Decoded.read(
                        loaded.page,
                        column,
                        type,
                        dictionary,
                        new KeyPage.Order(
                                k,
                                (before, after) ->
                                        errors.unsortedPage(
                                                rg, k, loaded.pageNumber, before, after)));
        String form =
                fast.getClass().getSimpleName()
                        + " "
                        + type.kind()
                        + (fast instanceof KeyPage.Decoded ? " " + loaded.page.valueEncoding() : "")
                        + (column.getMaxDefinitionLevel() > 0
                                        && reference.size() < loaded.page.rowsAvailable()
                                ? " nulls"
                                : "");
        FORMS.computeIfAbsent(form, f -> new AtomicLong()).incrementAndGet();
        assertThat(fast.size()).as("keys" + where).isEqualTo(reference.size());
        for (int i = 0; i < reference.size(); i++) {
            assertThat(fast.row(i)).as("row of key " + i + where).isEqualTo(reference.row(i));
            assertThat(type.compare(fast.key(i), reference.key(i))).as("key " + i + where).isZero();
        }
        if (k > 0) {
            return; // later key columns are not searched, only read
        }
        List<Object> probes = new ArrayList<>();
        for (int i = 0; i < reference.size(); i++) {
            Object v = reference.key(i);
            probes.add(v);
            probes.add(neighbour(v, -1));
            probes.add(neighbour(v, 1));
        }
        probes.add(type.kind() == KeyType.Kind.LONG ? (Object) Long.MIN_VALUE : extreme(type, -1));
        probes.add(type.kind() == KeyType.Kind.LONG ? (Object) Long.MAX_VALUE : extreme(type, 1));
        for (int i = 0; i < 8 && reference.size() > 0; i++) {
            probes.add(reference.key(r.nextInt(reference.size())));
        }
        for (Object probe : probes) {
            assertThat(fast.lowerBound(probe))
                    .as("lower bound of " + type.format(probe) + where)
                    .isEqualTo(reference.lowerBound(probe));
            assertThat(fast.upperBound(probe))
                    .as("upper bound of " + type.format(probe) + where)
                    .isEqualTo(reference.upperBound(probe));
        }
    }

    /** A value just below ({@code -1}) or above ({@code 1}) {@code v} in key order. */
    private static Object neighbour(Object v, int direction) {
        if (v instanceof Long l) {
            return direction < 0 ? l - 1 : l + 1; // wraps at the extremes: still a valid probe
        }
        if (v instanceof BigInteger b) {
            return b.add(BigInteger.valueOf(direction));
        }
        byte[] bytes = (byte[]) v;
        if (direction > 0) {
            return java.util.Arrays.copyOf(bytes, bytes.length + 1); // v + "\0"
        }
        return bytes.length == 0 ? bytes : java.util.Arrays.copyOf(bytes, bytes.length - 1);
    }

    private static Object extreme(KeyType type, int direction) {
        if (type.kind() == KeyType.Kind.BIG_INTEGER) {
            return BigInteger.TEN.pow(40).multiply(BigInteger.valueOf(direction));
        }
        if (direction < 0) {
            return new byte[0];
        }
        byte[] high = new byte[80];
        java.util.Arrays.fill(high, (byte) 0xff);
        return high;
    }

    /** Lookups of existing keys and of misses next to them, against the reference rows. */
    private static void lookups(
            DimensionTable table, GeneratedTable ref, TableSpec spec, Random r, String context)
            throws Exception {
        List<String> fileOrder = table.files().stream().map(FileId::fileName).toList();
        int[] projection = IntStream.range(0, spec.columns().size()).toArray();
        LookupPlan plan =
                table.plan(spec.sortKey(), spec.columns().stream().map(ColumnSpec::name).toList());
        int keyCount = spec.sortKey().size();
        for (int i = 0; i < 100; i++) {
            Object[] key = ref.randomExistingKey(r, keyCount);
            if (r.nextInt(3) == 0 && key[keyCount - 1] != null) {
                ColumnSpec last = spec.column(spec.sortKey().get(keyCount - 1));
                Object moved =
                        r.nextBoolean()
                                ? TableGenerator.above(last, key[keyCount - 1])
                                : TableGenerator.below(last, key[keyCount - 1]);
                if (moved != null) {
                    key[keyCount - 1] = moved;
                }
            }
            List<Object[]> expected = ref.expected(fileOrder, key, projection);
            List<Object[]> actual = table.lookup(plan, key);
            if (!Values.rowListsEqual(expected, actual)) {
                throw new AssertionError(
                        "lookup of "
                                + Values.describe(key)
                                + "\n  expected "
                                + Values.describe(expected, 8)
                                + "\n  actual   "
                                + Values.describe(actual, 8)
                                + context);
            }
            (expected.isEmpty() ? MISSES : HITS).incrementAndGet();
        }
    }
}
