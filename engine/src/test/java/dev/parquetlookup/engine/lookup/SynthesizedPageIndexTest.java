package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageBoundsDecoder;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file's own page index against the one synthesized from its page headers: random tables (every
 * key type, codecs, dictionary, v1/v2 pages, nulls, runs of equal keys across pages and row groups,
 * composite keys) are written with a page index, then rewritten without it, with and without
 * statistics in the page headers. The synthesized index must equal the own one (offsets, sizes,
 * first rows, key bounds) and lookups on all three (own, synthesized, synthesis off) must give the
 * reference's answers.
 *
 * <p>One seed is re-run alone with {@code -Dparquetlookup.seed=N}.
 */
class SynthesizedPageIndexTest {

    private static final int SEEDS = 40;
    private static final int LOOKUPS_PER_SEED = 60;

    /** parquet-java truncates ColumnIndex bounds of binary values to this many bytes. */
    private static final int TRUNCATION = 64;

    @TempDir Path tmp;

    static LongStream seeds() {
        String one = System.getProperty("parquetlookup.seed");
        return one != null ? LongStream.of(Long.parseLong(one)) : LongStream.range(0, SEEDS);
    }

    @ParameterizedTest(name = "seed={0}")
    @MethodSource("seeds")
    void synthesizedIndexEqualsOwnIndexAndAnswersTheSame(long seed) throws Exception {
        TableSpec random = TableGenerator.randomSpec(1000 + seed, TableGenerator.ALL_WRITERS);
        TableSpec spec = withPageIndex(random);
        GeneratedTable ref = TableGenerator.generate(spec, tmp.resolve("own"));
        boolean headerStatistics = seed % 2 == 1;
        Path stripped = Files.createDirectories(tmp.resolve("stripped"));
        for (GeneratedTable.GeneratedFile f : ref.files()) {
            PageIndexRewriter.rewrite(
                    f.path(), stripped.resolve(f.path().getFileName()), headerStatistics);
        }
        String context =
                "\n  seed="
                        + seed
                        + " headerStatistics="
                        + headerStatistics
                        + "\n"
                        + spec.describe();

        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            for (GeneratedTable.GeneratedFile f : ref.files()) {
                FileMetadata own = read(store, f.path(), spec, PageIndexOptions.OWN);
                CountingDecoder decoder = new CountingDecoder();
                FileMetadata synthesized =
                        read(
                                store,
                                stripped.resolve(f.path().getFileName()),
                                spec,
                                PageIndexOptions.synthesized(decoder));
                FileMetadata none =
                        read(
                                store,
                                stripped.resolve(f.path().getFileName()),
                                spec,
                                PageIndexOptions.OWN);
                String where = context + "\n  file " + f.path().getFileName();
                assertThat(own.pageIndex().kind())
                        .as("own" + where)
                        .isEqualTo(PageIndexOrigin.Kind.OWN);
                if (own.rowCount() > 0) {
                    assertThat(none.pageIndex().kind())
                            .as("stripped, synthesis off" + where)
                            .isEqualTo(PageIndexOrigin.Kind.NONE);
                    assertThat(synthesized.pageIndex().kind())
                            .as("stripped, synthesis on" + where)
                            .isEqualTo(PageIndexOrigin.Kind.SYNTHESIZED);
                }
                assertSameIndex(own, synthesized, !headerStatistics, where);
                assertSameLazily(store, stripped.resolve(f.path().getFileName()), spec, own, where);
                if (headerStatistics) {
                    assertThat(decoder.pages.get())
                            .as("key pages decoded although their headers carry statistics" + where)
                            .isZero();
                } else if (hasMultiPageKeyChunk(own)) {
                    // Single-page chunks take their bounds from the footer's chunk statistics.
                    assertThat(decoder.pages.get())
                            .as("key pages decoded without header statistics" + where)
                            .isPositive();
                }
            }
        }

        List<String> fileOrder = null;
        try (DimensionTable ownTable = DimensionTable.open(configFor(spec, ref.dir(), true));
                DimensionTable synthesized = DimensionTable.open(configFor(spec, stripped, true));
                DimensionTable fallback = DimensionTable.open(configFor(spec, stripped, false))) {
            fileOrder = ownTable.files().stream().map(FileId::fileName).toList();
            Random r = new Random(seed);
            int keyCount = spec.sortKey().size();
            for (int i = 0; i < LOOKUPS_PER_SEED; i++) {
                int prefix = r.nextInt(10) < 6 ? keyCount : 1 + r.nextInt(keyCount);
                int[] projection = EngineRandomizedTest.randomProjection(spec, r);
                Object[] key = probe(ref, spec, r, prefix);
                List<String> keyColumns = spec.sortKey().subList(0, prefix);
                List<String> columns =
                        IntStream.of(projection)
                                .mapToObj(c -> spec.columns().get(c).name())
                                .toList();
                List<Object[]> expected = ref.expected(fileOrder, key, projection);
                for (DimensionTable table : List.of(ownTable, synthesized, fallback)) {
                    String name =
                            table == ownTable
                                    ? "own index"
                                    : table == synthesized ? "synthesized index" : "no index";
                    List<Object[]> actual;
                    try {
                        actual = table.lookup(table.plan(keyColumns, columns), key);
                    } catch (RuntimeException e) {
                        throw new AssertionError(
                                "lookup #"
                                        + i
                                        + " key "
                                        + Values.describe(key)
                                        + " on "
                                        + name
                                        + context,
                                e);
                    }
                    if (!Values.rowListsEqual(expected, actual)) {
                        throw new AssertionError(
                                "lookup #"
                                        + i
                                        + " key "
                                        + Values.describe(key)
                                        + " on "
                                        + name
                                        + "\n  expected "
                                        + Values.describe(expected, 8)
                                        + "\n  actual   "
                                        + Values.describe(actual, 8)
                                        + context);
                    }
                }
            }
        }
    }

    /** The engine's decoder, counting the data pages it decodes. */
    private static final class CountingDecoder implements PageBoundsDecoder {
        final AtomicInteger pages = new AtomicInteger();

        @Override
        public Object dictionary(
                byte[] page,
                int offset,
                int length,
                ColumnDescriptor column,
                CompressionCodecName codec)
                throws IOException {
            return KeyPageBounds.INSTANCE.dictionary(page, offset, length, column, codec);
        }

        @Override
        public Object[] bounds(
                byte[] page,
                int offset,
                int length,
                Object dictionary,
                ColumnDescriptor column,
                KeyType type,
                CompressionCodecName codec)
                throws IOException {
            pages.incrementAndGet();
            return KeyPageBounds.INSTANCE.bounds(
                    page, offset, length, dictionary, column, type, codec);
        }
    }

    /** An existing key, or one just above or below an existing key (mostly a miss). */
    private static Object[] probe(GeneratedTable ref, TableSpec spec, Random r, int prefix) {
        Object[] key = ref.randomExistingKey(r, prefix);
        if (r.nextBoolean() || key[prefix - 1] == null) {
            return key;
        }
        ColumnSpec last = spec.column(spec.sortKey().get(prefix - 1));
        Object near =
                r.nextBoolean()
                        ? TableGenerator.above(last, key[prefix - 1])
                        : TableGenerator.below(last, key[prefix - 1]);
        if (near != null) {
            key[prefix - 1] = near;
        }
        return key;
    }

    private static boolean hasMultiPageKeyChunk(FileMetadata meta) {
        for (RowGroupInfo rg : meta.rowGroups()) {
            for (int leaf : meta.keyLeaves()) {
                PageLocations pages = rg.columns()[leaf].pages();
                if (pages != null && pages.pageCount() > 1) {
                    return true;
                }
            }
        }
        return false;
    }

    private static TableConfig configFor(TableSpec spec, Path dir, boolean synthesize) {
        return TableConfig.builder(dir.toString())
                .sortKey(spec.sortKey())
                .synthesizePageIndex(synthesize)
                .build();
    }

    private static FileMetadata read(
            HadoopFileStore store, Path file, TableSpec spec, PageIndexOptions options)
            throws IOException {
        try (RangeSource source = store.open(store.stat(file.toString()))) {
            return MetadataReader.read(source, spec.sortKey(), options);
        }
    }

    /**
     * The index synthesized row group by row group on first use (as tables read it) equals the one
     * synthesized at open, and so the file's own.
     */
    private static void assertSameLazily(
            HadoopFileStore store, Path stripped, TableSpec spec, FileMetadata own, String where)
            throws IOException {
        try (RangeSource source = store.open(store.stat(stripped.toString()))) {
            FileMetadata eager =
                    MetadataReader.read(
                            source,
                            spec.sortKey(),
                            PageIndexOptions.synthesized(KeyPageBounds.INSTANCE));
            FileMetadata lazy =
                    MetadataReader.read(
                            source,
                            spec.sortKey(),
                            PageIndexOptions.synthesized(KeyPageBounds.INSTANCE).lazily());
            if (own.rowCount() > 0) {
                assertThat(lazy.pageIndex().onFirstUse()).as("lazy" + where).isTrue();
                assertThat(lazy.rowGroupIndexes()).as("lazy" + where).isNotNull();
            }
            // Row group by row group: each get(r) synthesizes row group r.
            assertSameIndex(eager, lazy, true, "\n  lazily" + where);
        }
    }

    /** Same row groups, same page locations of every flat column, same key bounds. */
    static void assertSameIndex(
            FileMetadata own, FileMetadata synthesized, boolean sameOffsets, String where) {
        assertThat(synthesized.rowGroups()).as("row groups" + where).hasSameSizeAs(own.rowGroups());
        for (int r = 0; r < own.rowGroups().size(); r++) {
            RowGroupInfo a = own.rowGroups().get(r);
            RowGroupInfo b = synthesized.rowGroups().get(r);
            String rg = where + "\n  row group " + r;
            for (int c = 0; c < a.columns().length; c++) {
                ColumnChunkInfo ca = a.columns()[c];
                ColumnChunkInfo cb = b.columns()[c];
                if (ca.pages() == null) {
                    continue; // no page index of its own (a repeated column, an empty chunk)
                }
                String col = rg + " column " + c;
                assertThat(cb.pages()).as("synthesized pages" + col).isNotNull();
                PageLocations pa = ca.pages();
                PageLocations pb = cb.pages();
                assertThat(pb.firstRows()).as("first rows" + col).isEqualTo(pa.firstRows());
                if (sameOffsets) {
                    assertThat(pb.offsets()).as("offsets" + col).isEqualTo(pa.offsets());
                    assertThat(pb.sizes()).as("sizes" + col).isEqualTo(pa.sizes());
                    assertThat(cb.startOffset())
                            .as("chunk start" + col)
                            .isEqualTo(ca.startOffset());
                    assertThat(cb.firstDataPageOffset())
                            .as("first data page" + col)
                            .isEqualTo(ca.firstDataPageOffset());
                    assertThat(cb.hasDictionaryPage())
                            .as("dictionary" + col)
                            .isEqualTo(ca.hasDictionaryPage());
                } else {
                    // Headers grew by their statistics: pages moved, still back to back.
                    assertThat(pb.offsets()).as("page count" + col).hasSameSizeAs(pa.offsets());
                    assertThat(pb.offsets()[0])
                            .as("first page" + col)
                            .isEqualTo(cb.firstDataPageOffset());
                    for (int p = 1; p < pb.pageCount(); p++) {
                        assertThat(pb.offsets()[p])
                                .as("offsets follow sizes, page " + p + col)
                                .isEqualTo(pb.offsets()[p - 1] + pb.sizes()[p - 1]);
                    }
                }
            }
            for (int k = 0; k < own.sortKey().size(); k++) {
                KeyRanges ka = a.keyPages()[k];
                KeyRanges kb = b.keyPages()[k];
                if (ka == null) {
                    continue;
                }
                String key = rg + " key column " + own.sortKey().get(k);
                assertThat(kb).as("synthesized bounds" + key).isNotNull();
                assertThat(kb.size()).as("pages with bounds" + key).isEqualTo(ka.size());
                KeyType type = ka.type();
                for (int e = 0; e < ka.size(); e++) {
                    String page = key + " page " + ka.entry(e);
                    assertThat(kb.entry(e)).as("entry" + page).isEqualTo(ka.entry(e));
                    assertBound(type, ka.min(e), kb.min(e), true, "min" + page);
                    assertBound(type, ka.max(e), kb.max(e), false, "max" + page);
                }
            }
        }
    }

    /**
     * Equal bounds; a binary bound the writer truncated need only contain the synthesized one (a
     * truncated min is below the real min, a truncated max above the real max).
     */
    private static void assertBound(
            KeyType type, Object own, Object synthesized, boolean min, String what) {
        if (own instanceof byte[] bytes && bytes.length >= TRUNCATION) {
            int c = type.compare(own, synthesized);
            assertThat(min ? c <= 0 : c >= 0).as(what + " within the truncated bound").isTrue();
            return;
        }
        assertThat(type.compare(own, synthesized))
                .as(
                        what
                                + ": own "
                                + type.format(own)
                                + ", synthesized "
                                + type.format(synthesized))
                .isZero();
    }

    /** The spec with the page index on (the writer's default), so there is an own index. */
    private static TableSpec withPageIndex(TableSpec s) {
        return new TableSpec(
                s.seed(),
                s.columns(),
                s.sortKey(),
                s.options().withPageIndex(true),
                s.writer(),
                s.sortKeyInConfig(),
                s.distinctKeys(),
                s.fileCount(),
                s.overlappingFiles(),
                s.longKeyPrefix(),
                false,
                s.nullKeys());
    }
}
