package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.index.KeyIndexBuilder.Parallel;
import dev.parquetlookup.io.ForwardingRangeSource;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The builder's key reading against parquet-java's record API: for every page layout (PLAIN,
 * dictionary, dictionary falling back to PLAIN, data pages v1 and v2 with their encodings), every
 * key type and composite keys with NULL parts, the index holds exactly the rows with a non-NULL
 * key, each under {@link KeyCodes#code} of the key as the record API reads it; built in ranges of
 * row groups on several threads, it is the same file byte for byte as built on one.
 */
class KeyIndexBuilderTest {

    @TempDir Path tmp;

    private static ExecutorService pool;

    @BeforeAll
    static void startPool() {
        pool = Executors.newFixedThreadPool(2);
    }

    @AfterAll
    static void stopPool() {
        pool.shutdownNow();
    }

    /** Ranges of any size, each on a thread of its own: the test files' row groups one by one. */
    private static KeyIndexBuilder.Parallel parallel() {
        return new KeyIndexBuilder.Parallel(3, 1, pool);
    }

    private static final ColumnSpec S = column("s", ValueType.of(ValueType.Kind.STRING));
    private static final ColumnSpec K = column("k", ValueType.of(ValueType.Kind.BIGINT));
    private static final ColumnSpec I = column("i", ValueType.of(ValueType.Kind.INT));
    private static final ColumnSpec FIXED =
            new ColumnSpec(
                    "f",
                    new ValueType(ValueType.Kind.DECIMAL, 20, 2),
                    ColumnSpec.Storage.DECIMAL_FIXED,
                    true);
    private static final ColumnSpec BINARY =
            new ColumnSpec(
                    "b",
                    new ValueType(ValueType.Kind.DECIMAL, 30, 0),
                    ColumnSpec.Storage.DECIMAL_BINARY,
                    true);
    private static final List<ColumnSpec> COLUMNS = List.of(S, K, I, FIXED, BINARY);

    private static ColumnSpec column(String name, ValueType type) {
        return new ColumnSpec(name, type, ColumnSpec.Storage.PLAIN, true);
    }

    static Stream<Arguments> layouts() {
        WriterOptions plain = WriterOptions.defaults().withRowsPerRowGroup(1500);
        WriterOptions dictionary =
                plain.withDictionary(true).withCodec(CompressionCodecName.SNAPPY);
        // A dictionary page too small for the chunk: dictionary pages, then PLAIN ones.
        WriterOptions fallback =
                new WriterOptions(
                        CompressionCodecName.UNCOMPRESSED,
                        true,
                        false,
                        false,
                        64,
                        1 << 20,
                        600,
                        1500,
                        true);
        WriterOptions v2 =
                new WriterOptions(
                        CompressionCodecName.SNAPPY,
                        false,
                        true,
                        false,
                        100,
                        1 << 20,
                        1 << 20,
                        1500,
                        true);
        WriterOptions v2Dictionary =
                new WriterOptions(
                        CompressionCodecName.SNAPPY,
                        true,
                        true,
                        false,
                        100,
                        1 << 20,
                        600,
                        1500,
                        true);
        List<Arguments> cases = new ArrayList<>();
        for (WriterOptions options : List.of(plain, dictionary, fallback, v2, v2Dictionary)) {
            for (List<String> key :
                    List.of(
                            List.of("s"),
                            List.of("k"),
                            List.of("i"),
                            List.of("f"),
                            List.of("b"),
                            List.of("s", "k"),
                            List.of("i", "s", "b"))) {
                cases.add(Arguments.of(options, key));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void everyRowWithANonNullKeyIsIndexedUnderTheCodeOfItsKey(
            WriterOptions options, List<String> keyColumns) throws IOException {
        long seed = 20261206L;
        Random random = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int r = 0; r < 4000; r++) {
            int v = random.nextInt(700);
            rows.add(
                    new Object[] {
                        r % 17 == 0
                                ? null
                                : ("key-" + Integer.toHexString(v) + "-".repeat(v % 23))
                                        .getBytes(StandardCharsets.UTF_8),
                        r % 13 == 0 ? null : random.nextLong() % 1000,
                        r % 11 == 0 ? null : v - 350,
                        r % 7 == 0 ? null : BigDecimal.valueOf(v * 1_000_003L - 4000, 2),
                        r % 5 == 0
                                ? null
                                : new BigDecimal(BigInteger.valueOf(v - 300).shiftLeft(70))
                    });
        }
        Path file = tmp.resolve("keys.parquet");
        ParquetJavaFiles.write(file, COLUMNS, options, rows);
        List<Object[]> read = ParquetJavaFiles.readRows(file, COLUMNS);
        try (var store = HadoopFileStore.create(Map.of())) {
            var id = store.list(file.toString()).get(0);
            try (var source = store.open(id)) {
                var meta =
                        MetadataReader.readForIndex(
                                source, schema -> keyColumns, PageIndexOptions.OWN);
                List<KeyType> types = meta.keyTypes();
                var leaves =
                        keyColumns.stream()
                                .map(
                                        name ->
                                                meta.schema()
                                                        .getColumnDescription(new String[] {name}))
                                .toList();
                KeyIndexes indexes = new KeyIndexes(1000, parallel());
                try (KeyIndexes.Handle handle =
                        indexes.acquire(
                                new KeyIndexes.Request(
                                        id,
                                        keyColumns,
                                        types,
                                        leaves,
                                        meta.rowCount(),
                                        tmp.resolve("index"),
                                        source))) {
                    KeyIndex index = handle.index();
                    long expected = 0;
                    for (int r = 0; r < read.size(); r++) {
                        Object[] key = new Object[keyColumns.size()];
                        boolean isNull = false;
                        for (int k = 0; k < key.length; k++) {
                            Object value = read.get(r)[COLUMNS.indexOf(column(keyColumns.get(k)))];
                            isNull |= value == null;
                            key[k] = comparable(value);
                        }
                        if (isNull) {
                            continue;
                        }
                        expected++;
                        assertThat(index.rows(KeyCodes.code(types, key)))
                                .as("row %d of %s by %s, seed %d", r, options, keyColumns, seed)
                                .contains(r);
                    }
                    assertThat(index.entries()).isEqualTo(expected).isGreaterThan(2000);
                    // Built in three ranges on three threads: the bytes of a build on one thread.
                    Path serial = tmp.resolve("serial.pli");
                    KeyIndexBuilder.build(
                            new KeyIndexBuilder.Input(source, index.header(), leaves, types),
                            serial,
                            1 << 20,
                            KeyIndexBuilder.Parallel.SERIAL);
                    assertThat(Files.readAllBytes(index.path()))
                            .as("parallel build of %s by %s", options, keyColumns)
                            .isEqualTo(Files.readAllBytes(serial));
                }
            }
        }
    }

    @Test
    void rowGroupsAreCutIntoRangesOfAboutAsManyRowsEach() {
        List<BlockMetaData> blocks = blocks(1500, 1500, 1000);
        var three = new KeyIndexBuilder.Parallel(3, 1, Runnable::run);
        assertThat(KeyIndexBuilder.ranges(blocks, three))
                .containsExactly(
                        new KeyIndexBuilder.Range(0, 1, 0),
                        new KeyIndexBuilder.Range(1, 2, 1500),
                        new KeyIndexBuilder.Range(2, 3, 3000));
        // Two threads: the first range takes the row groups up to half the rows.
        assertThat(KeyIndexBuilder.ranges(blocks(10, 10, 10, 10, 0, 10), new Parallel(2, 1, null)))
                .containsExactly(
                        new KeyIndexBuilder.Range(0, 3, 0), new KeyIndexBuilder.Range(3, 6, 30));
        // Empty row groups never make a range of their own; ranges hold the minimum of rows.
        assertThat(KeyIndexBuilder.ranges(blocks(0, 0, 5, 0, 5), three))
                .containsExactly(
                        new KeyIndexBuilder.Range(0, 3, 0), new KeyIndexBuilder.Range(3, 5, 5));
        assertThat(KeyIndexBuilder.ranges(blocks, new Parallel(3, 2000, null)))
                .containsExactly(
                        new KeyIndexBuilder.Range(0, 2, 0), new KeyIndexBuilder.Range(2, 3, 3000));
        assertThat(KeyIndexBuilder.ranges(blocks, KeyIndexBuilder.Parallel.SERIAL))
                .containsExactly(new KeyIndexBuilder.Range(0, 3, 0));
        assertThat(KeyIndexBuilder.ranges(blocks(4000), three))
                .containsExactly(new KeyIndexBuilder.Range(0, 1, 0));
    }

    private static List<BlockMetaData> blocks(long... rows) {
        List<BlockMetaData> blocks = new ArrayList<>();
        for (long n : rows) {
            BlockMetaData block = new BlockMetaData();
            block.setRowCount(n);
            blocks.add(block);
        }
        return blocks;
    }

    /**
     * A read failing in any row group (the first range's, on the building thread, or another's, on
     * a helper) fails the build with that failure, once every range stopped, and leaves no file:
     * neither the index, its temporary file, nor a range's spilled runs.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void aFailingRangeFailsTheBuildAndLeavesNothing(int failing) throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (long r = 0; r < 4000; r++) {
            rows.add(new Object[] {null, (r * 7919) % 4000, null, null, null});
        }
        Path file = tmp.resolve("keys.parquet");
        ParquetJavaFiles.write(
                file, COLUMNS, WriterOptions.defaults().withRowsPerRowGroup(1500), rows);
        long from;
        long to;
        try (ParquetFileReader footer = ParquetFileReader.open(new LocalInputFile(file))) {
            assertThat(footer.getRowGroups()).hasSize(3);
            BlockMetaData block = footer.getRowGroups().get(failing);
            from = block.getStartingPos();
            to = from + block.getCompressedSize();
        }
        Path directory = Files.createDirectories(tmp.resolve("index"));
        try (var store = HadoopFileStore.create(Map.of())) {
            var id = store.list(file.toString()).get(0);
            try (RangeSource source = store.open(id)) {
                var meta =
                        MetadataReader.readForIndex(
                                source, schema -> List.of("k"), PageIndexOptions.OWN);
                RangeSource broken =
                        new ForwardingRangeSource(source) {
                            @Override
                            public void readFully(
                                    long position, byte[] buffer, int offset, int length)
                                    throws IOException {
                                check(position, length);
                                super.readFully(position, buffer, offset, length);
                            }

                            @Override
                            public <T> T readWith(long position, int length, RangeReader<T> reader)
                                    throws IOException {
                                check(position, length);
                                return super.readWith(position, length, reader);
                            }

                            private void check(long position, int length) throws IOException {
                                if (position < to && position + length > from) {
                                    throw new IOException(
                                            "injected failure in row group " + failing);
                                }
                            }
                        };
                var input =
                        new KeyIndexBuilder.Input(
                                broken,
                                IndexHeader.of(id, List.of("k"), List.of("k"), meta.rowCount()),
                                List.of(meta.schema().getColumnDescription(new String[] {"k"})),
                                meta.keyTypes());
                // Small chunks: the ranges that read spill runs before the build fails.
                assertThatThrownBy(
                                () ->
                                        KeyIndexBuilder.build(
                                                input, directory.resolve("k.pli"), 300, parallel()))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("injected failure in row group " + failing);
            }
        }
        try (Stream<Path> left = Files.list(directory)) {
            assertThat(left).as("files left by the failed build").isEmpty();
        }
    }

    private static ColumnSpec column(String name) {
        return COLUMNS.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    /** A value as the record API reads it in the comparable form of its key type. */
    private static Object comparable(Object value) {
        if (value instanceof Integer i) {
            return (long) i;
        }
        if (value instanceof BigDecimal d) {
            return d.unscaledValue();
        }
        return value;
    }
}
