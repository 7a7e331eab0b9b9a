package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.GeneratedTable;
import dev.parquetlookup.testing.TableGenerator;
import dev.parquetlookup.testing.TableSpec;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.PrimitiveType;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every data page of randomly generated files (all value types, codecs, dictionary and PLAIN, delta
 * and byte-stream-split, nulls, page v1 and v2, parquet-java and our writer) decoded as a prefix
 * for random row counts ({@link PagePrefix}, from heap and direct buffers, into buffers full of
 * garbage) gives exactly the rows of the whole-page decode ({@link PageDecoder}); reading past the
 * rows a prefix holds fails instead of reading stale bytes.
 *
 * <p>One seed is re-run alone with {@code -Dparquetlookup.seed=N}.
 */
class PagePrefixTest {

    private static final int SEEDS = 30;

    /** Prefixes asked for fewer rows than their page has, by value encoding. */
    private static final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> ASKED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Prefixes shorter than their page, by value encoding: the early stop was exercised. */
    private static final java.util.Map<String, java.util.concurrent.atomic.AtomicLong> PARTIAL =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Prefixes of PLAIN byte strings that kept where their last value starts. */
    private static final java.util.concurrent.atomic.AtomicLong HINTED =
            new java.util.concurrent.atomic.AtomicLong();

    @TempDir Path tmp;

    @org.junit.jupiter.api.AfterAll
    static void prefixesOfPlainAndDictionaryPagesWereShorter() {
        if (System.getProperty("parquetlookup.seed") == null) {
            // Dictionary ids stop at a run: parquet-java bit-packs up to 504 ids per run, so the
            // generated pages (a few hundred rows) are mostly one run and read whole.
            assertThat(ASKED)
                    .as("asked: " + ASKED + " shorter: " + PARTIAL)
                    .containsKeys("PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY");
            assertThat(PARTIAL)
                    .as("asked: " + ASKED + " shorter: " + PARTIAL)
                    .containsKeys("PLAIN");
            assertThat(HINTED.get())
                    .as("prefixes that skip by their walk's last value")
                    .isPositive();
        }
    }

    static LongStream seeds() {
        String one = System.getProperty("parquetlookup.seed");
        return one != null ? LongStream.of(Long.parseLong(one)) : LongStream.range(0, SEEDS);
    }

    @ParameterizedTest(name = "seed={0}")
    @MethodSource("seeds")
    void prefixesDecodeLikeWholePages(long seed) throws Exception {
        TableSpec spec = TableGenerator.randomSpec(seed, TableGenerator.ALL_WRITERS);
        GeneratedTable ref = TableGenerator.generate(spec, tmp.resolve("table"));
        Random r = new Random(seed * 31 + 7);
        int pages = 0;
        try (DimensionTable table = DimensionTable.open(ref.config().build());
                HadoopFileStore store = HadoopFileStore.create(java.util.Map.of(), true)) {
            for (FileMetadata meta : table.fileMetadata()) {
                ColumnDescriptor[] leaves =
                        meta.schema().getColumns().toArray(new ColumnDescriptor[0]);
                try (RangeSource source = store.open(meta.file())) {
                    for (RowGroupInfo rg : meta.rowGroups()) {
                        for (int leaf = 0; leaf < leaves.length; leaf++) {
                            pages +=
                                    checkChunk(
                                            source,
                                            rg,
                                            leaf,
                                            leaves[leaf],
                                            r,
                                            spec.describe() + "\n  seed " + seed);
                        }
                    }
                }
            }
        }
        assertThat(pages).as("pages checked").isPositive();
    }

    private static int checkChunk(
            RangeSource source,
            RowGroupInfo rg,
            int leaf,
            ColumnDescriptor column,
            Random r,
            String context)
            throws IOException {
        ColumnChunkInfo chunk = rg.columns()[leaf];
        PageLocations locations = chunk.pages();
        PrimitiveType type = column.getPrimitiveType();
        if (locations == null
                || column.getMaxRepetitionLevel() > 0
                || ColumnTypes.valueType(type).kind() == ValueType.Kind.UNSUPPORTED) {
            return 0;
        }
        ColumnTypes.ValueReader reader = ColumnTypes.reader(type);
        Dictionary dictionary = null;
        if (chunk.hasDictionaryPage()) {
            byte[] bytes =
                    source.read(
                            new dev.parquetlookup.io.RangeSource.FileRange(
                                    chunk.startOffset(),
                                    (int) (chunk.firstDataPageOffset() - chunk.startOffset())));
            dictionary =
                    PageDecoder.dictionary(
                            bytes,
                            PageDecoder.header(bytes, 0, bytes.length),
                            chunk.codec(),
                            column);
        }
        for (int p = 0; p < locations.pageCount(); p++) {
            byte[] bytes = source.read(locations.range(p));
            PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
            DataPage whole = PageDecoder.dataPage(bytes, header, chunk.codec());
            List<Object[]> expected = rows(whole, column, dictionary, reader, whole.valueCount());
            String where =
                    context
                            + "\n  row group "
                            + rg.ordinal()
                            + " leaf "
                            + column
                            + " page "
                            + p
                            + " "
                            + header.encoding()
                            + " v2="
                            + whole.v2()
                            + " "
                            + chunk.codec();
            for (int attempt = 0; attempt < 4; attempt++) {
                int n = whole.valueCount();
                int wanted = attempt == 0 ? n : r.nextInt(n + 1);
                ByteBuffer in = ByteBuffer.wrap(bytes);
                if (r.nextBoolean()) {
                    in = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
                }
                byte[] out =
                        new byte[PagePrefix.decodedSize(header, chunk.codec()) + r.nextInt(64)];
                r.nextBytes(out);
                DataPage prefix =
                        PagePrefix.decode(
                                in, header, chunk.codec(), column, wanted, out, true, null);
                if (wanted < n) {
                    ASKED.computeIfAbsent(
                                    header.encoding().name(),
                                    e -> new java.util.concurrent.atomic.AtomicLong())
                            .incrementAndGet();
                }
                assertThat(prefix.rowsAvailable())
                        .as("rows decoded for %d wanted%s", wanted, where)
                        .isBetween(wanted, n);
                List<Object[]> got =
                        rows(prefix, column, dictionary, reader, prefix.rowsAvailable());
                if (!Values.rowListsEqual(expected.subList(0, got.size()), got)) {
                    throw new AssertionError(
                            "prefix of "
                                    + prefix.rowsAvailable()
                                    + " rows differs"
                                    + where
                                    + "\n  expected "
                                    + Values.describe(expected.subList(0, got.size()), 8)
                                    + "\n  actual   "
                                    + Values.describe(got, 8));
                }
                if (prefix.lastValueIndex() >= 0) {
                    HINTED.incrementAndGet();
                }
                if (wanted > 0) {
                    // A lookup skips to its row: the last wanted one (where the prefix's walk
                    // ended), or one before it; in one skip or two.
                    for (int row : new int[] {wanted - 1, r.nextInt(wanted)}) {
                        int first = r.nextInt(row + 1);
                        PageCursor cursor = new PageCursor(prefix, column, dictionary);
                        cursor.skipRows(first);
                        cursor.skipRows(row - first);
                        Object value = cursor.isNextNull() ? null : cursor.read(reader);
                        List<Object[]> expect = expected.subList(row, row + 1);
                        List<Object[]> read = new ArrayList<>();
                        read.add(new Object[] {value});
                        if (!Values.rowListsEqual(expect, read)) {
                            throw new AssertionError(
                                    "row "
                                            + row
                                            + " after skips of "
                                            + first
                                            + " and "
                                            + (row - first)
                                            + where
                                            + "\n  expected "
                                            + Values.describe(expect, 1)
                                            + "\n  actual   "
                                            + Values.describe(read, 1));
                        }
                    }
                }
                if (prefix.rowsAvailable() < n) {
                    PARTIAL.computeIfAbsent(
                                    header.encoding().name(),
                                    e -> new java.util.concurrent.atomic.AtomicLong())
                            .incrementAndGet();
                    PageCursor cursor = new PageCursor(prefix, column, dictionary);
                    cursor.skipRows(prefix.rowsAvailable());
                    assertThatThrownBy(cursor::isNextNull)
                            .as("read past the prefix" + where)
                            .isInstanceOf(IllegalStateException.class);
                }
            }
        }
        return locations.pageCount();
    }

    private static List<Object[]> rows(
            DataPage page,
            ColumnDescriptor column,
            Dictionary dictionary,
            ColumnTypes.ValueReader reader,
            int count)
            throws IOException {
        PageCursor cursor = new PageCursor(page, column, dictionary);
        List<Object[]> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rows.add(new Object[] {cursor.isNextNull() ? null : cursor.read(reader)});
        }
        return rows;
    }
}
