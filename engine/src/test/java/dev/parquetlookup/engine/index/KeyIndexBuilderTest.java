package dev.parquetlookup.engine.index;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The builder's key reading against parquet-java's record API: for every page layout (PLAIN,
 * dictionary, dictionary falling back to PLAIN, data pages v1 and v2 with their encodings), every
 * key type and composite keys with NULL parts, the index holds exactly the rows with a non-NULL
 * key, each under {@link KeyCodes#code} of the key as the record API reads it.
 */
class KeyIndexBuilderTest {

    @TempDir Path tmp;

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
                KeyIndexes indexes = new KeyIndexes(1000);
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
                }
            }
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
