package dev.parquetlookup.testing;

import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * The one test-data generator: random table specs from a seed, random sorted rows with runs of
 * equal keys, the files written with the chosen writer and layout, and the in-memory reference
 * ({@link GeneratedTable}) that answers the same lookups.
 *
 * <p>Example:
 *
 * <pre>{@code
 * GeneratedTable t = TableGenerator.generate(TableGenerator.randomSpec(42), tempDir);
 * List<Object[]> expected = t.expected(fileOrder, 1, new Object[] {7}, new int[] {0, 2});
 * }</pre>
 */
public final class TableGenerator {

    /** Codecs every reader must handle. */
    public static final List<CompressionCodecName> CODECS =
            List.of(
                    CompressionCodecName.UNCOMPRESSED,
                    CompressionCodecName.SNAPPY,
                    CompressionCodecName.GZIP,
                    CompressionCodecName.ZSTD,
                    CompressionCodecName.LZ4_RAW);

    /** Both writers: what the randomized engine tests draw from. */
    public static final List<TableSpec.Writer> ALL_WRITERS =
            List.of(TableSpec.Writer.PARQUET_JAVA, TableSpec.Writer.LOOKUP_FILE_WRITER);

    private static final int[] ROWS_PER_PAGE = {1, 2, 3, 7, 20, 64, 1000, 20_000};
    private static final int[] ROWS_PER_ROW_GROUP = {5, 13, 100, 400, 1_000, 100_000};
    private static final int[] DISTINCT_KEYS = {1, 2, 9, 60, 250, 700};

    private static final String[] ALPHABET = {
        "a", "b", "c", "z", "A", "0", " ", "~", "é", "ß", "日本", "\u0001", "\uD83D\uDE00"
    };
    private static final byte[] EDGE_BYTES = {0, 1, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
    private static final byte[] LONG_PREFIX =
            "a-long-common-prefix-that-is-longer-than-the-64-byte-index-truncation!"
                    .getBytes(StandardCharsets.UTF_8);

    private TableGenerator() {}

    // ---------------------------------------------------------------- specs

    /** Every value column variant the engine reads: each kind in each Parquet storage. */
    public static List<ColumnSpec> allValueColumns(Random r) {
        List<ColumnSpec> c = new ArrayList<>();
        c.add(col("v_bool", ValueType.of(Kind.BOOLEAN), Storage.PLAIN));
        c.add(col("v_tinyint", ValueType.of(Kind.TINYINT), Storage.PLAIN));
        c.add(col("v_smallint", ValueType.of(Kind.SMALLINT), Storage.PLAIN));
        c.add(col("v_int", ValueType.of(Kind.INT), Storage.PLAIN));
        c.add(col("v_bigint", ValueType.of(Kind.BIGINT), Storage.PLAIN));
        c.add(col("v_float", ValueType.of(Kind.FLOAT), Storage.PLAIN));
        c.add(col("v_double", ValueType.of(Kind.DOUBLE), Storage.PLAIN));
        c.add(col("v_dec_i32", decimal(r, 1, 9), Storage.DECIMAL_INT32));
        c.add(col("v_dec_i64", decimal(r, 10, 18), Storage.DECIMAL_INT64));
        c.add(col("v_dec_fixed", decimal(r, 1, 38), Storage.DECIMAL_FIXED));
        c.add(col("v_dec_bin", decimal(r, 1, 38), Storage.DECIMAL_BINARY));
        c.add(col("v_string", ValueType.of(Kind.STRING), Storage.PLAIN));
        c.add(col("v_binary", ValueType.of(Kind.BINARY), Storage.PLAIN));
        c.add(col("v_date", ValueType.of(Kind.DATE), Storage.PLAIN));
        for (int p : new int[] {3, 6, 9}) {
            c.add(col("v_time" + p, new ValueType(Kind.TIME, p, 0), Storage.UNIT));
            c.add(col("v_ts" + p, new ValueType(Kind.TIMESTAMP, p, 0), Storage.UNIT));
            c.add(col("v_ltz" + p, new ValueType(Kind.TIMESTAMP_LTZ, p, 0), Storage.UNIT));
        }
        c.add(col("v_ts_int96", new ValueType(Kind.TIMESTAMP, 9, 0), Storage.INT96));
        return c;
    }

    /** Every sort-key column variant: INT, BIGINT, STRING, BINARY, DATE, TIMESTAMP, DECIMAL. */
    public static List<ColumnSpec> allKeyColumns(Random r) {
        List<ColumnSpec> c = new ArrayList<>();
        c.add(col("int", ValueType.of(Kind.INT), Storage.PLAIN));
        c.add(col("bigint", ValueType.of(Kind.BIGINT), Storage.PLAIN));
        c.add(col("string", ValueType.of(Kind.STRING), Storage.PLAIN));
        c.add(col("binary", ValueType.of(Kind.BINARY), Storage.PLAIN));
        c.add(col("date", ValueType.of(Kind.DATE), Storage.PLAIN));
        for (int p : new int[] {3, 6, 9}) {
            c.add(col("ts" + p, new ValueType(Kind.TIMESTAMP, p, 0), Storage.UNIT));
        }
        c.add(col("dec_i32", decimal(r, 1, 9), Storage.DECIMAL_INT32));
        c.add(col("dec_i64", decimal(r, 10, 18), Storage.DECIMAL_INT64));
        c.add(col("dec_fixed", decimal(r, 1, 38), Storage.DECIMAL_FIXED));
        c.add(col("dec_bin", decimal(r, 1, 38), Storage.DECIMAL_BINARY));
        return c;
    }

    /**
     * A random table spec. Seed 0 holds every value column variant at once; other seeds a random
     * handful. {@code writers} lists the writers to choose from.
     */
    public static TableSpec randomSpec(long seed, List<TableSpec.Writer> writers) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + 17);
        List<ColumnSpec> keyChoices = allKeyColumns(r);
        Collections.shuffle(keyChoices, r);
        int keyCount = 1 + (r.nextInt(10) < 5 ? 0 : r.nextInt(10) < 6 ? 1 : 2);
        List<ColumnSpec> columns = new ArrayList<>();
        List<String> sortKey = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            ColumnSpec k = keyChoices.get(i);
            ColumnSpec key =
                    new ColumnSpec(
                            "k" + i + "_" + k.name(), k.type(), k.storage(), r.nextBoolean());
            columns.add(key);
            sortKey.add(key.name());
        }
        List<ColumnSpec> values = allValueColumns(r);
        Collections.shuffle(values, r);
        int valueCount = seed == 0 ? values.size() : 1 + r.nextInt(6);
        for (ColumnSpec v : values.subList(0, valueCount)) {
            columns.add(new ColumnSpec(v.name(), v.type(), v.storage(), r.nextInt(3) > 0));
        }
        // Key columns anywhere in the file, not only first.
        Collections.shuffle(columns, r);

        WriterOptions options =
                new WriterOptions(
                        CODECS.get(r.nextInt(CODECS.size())),
                        r.nextBoolean(),
                        r.nextBoolean(),
                        r.nextBoolean(),
                        ROWS_PER_PAGE[r.nextInt(ROWS_PER_PAGE.length)],
                        r.nextInt(4) == 0 ? 300 : 1 << 20,
                        r.nextInt(4) == 0 ? 200 : 1 << 20,
                        ROWS_PER_ROW_GROUP[r.nextInt(ROWS_PER_ROW_GROUP.length)],
                        true);
        TableSpec.Writer writer = writers.get(r.nextInt(writers.size()));
        if (writer == TableSpec.Writer.LOOKUP_FILE_WRITER && r.nextInt(6) == 0) {
            options = options.withPageIndex(false);
        }
        boolean sortKeyInConfig = writer == TableSpec.Writer.PARQUET_JAVA || r.nextBoolean();
        int fileCount = r.nextInt(2) == 0 ? 1 : 2 + r.nextInt(2);
        return new TableSpec(
                seed,
                columns,
                sortKey,
                options,
                writer,
                sortKeyInConfig,
                DISTINCT_KEYS[r.nextInt(DISTINCT_KEYS.length)],
                fileCount,
                fileCount > 1 && r.nextInt(3) == 0,
                r.nextInt(5) == 0,
                r.nextInt(4) == 0,
                r.nextInt(4) == 0);
    }

    private static ColumnSpec col(String name, ValueType type, Storage storage) {
        return new ColumnSpec(name, type, storage, false);
    }

    private static ValueType decimal(Random r, int minPrecision, int maxPrecision) {
        int p = minPrecision + r.nextInt(maxPrecision - minPrecision + 1);
        return new ValueType(Kind.DECIMAL, p, r.nextInt(p + 1));
    }

    // ---------------------------------------------------------------- tables

    /** Draws rows for {@code spec}, writes its files into {@code dir} and returns the reference. */
    public static GeneratedTable generate(TableSpec spec, Path dir) throws IOException {
        Random r = new Random(spec.seed());
        List<Object[]> rows = sortedRows(spec, r);
        List<List<Object[]>> parts = split(rows, spec, r);
        Files.createDirectories(dir);
        List<GeneratedTable.GeneratedFile> files = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            Path file = dir.resolve(String.format("part-%05d.parquet", i));
            writeFile(file, spec, parts.get(i));
            files.add(new GeneratedTable.GeneratedFile(file, parts.get(i)));
        }
        if (spec.junkFiles()) {
            Files.write(dir.resolve("_SUCCESS"), new byte[0]);
            Files.write(dir.resolve(".part-00000.parquet.crc"), new byte[] {1, 2, 3});
            Files.createDirectories(dir.resolve("_temporary"));
            Files.write(dir.resolve("_temporary/part-00099.parquet"), new byte[] {'P', 'A', 'R'});
        }
        return new GeneratedTable(spec, dir, files);
    }

    /** Writes {@code rows} (already sorted as the test wants them) with the spec's writer. */
    public static void writeFile(Path file, TableSpec spec, List<Object[]> rows)
            throws IOException {
        switch (spec.writer()) {
            case PARQUET_JAVA -> ParquetJavaFiles.write(file, spec.columns(), spec.options(), rows);
            case LOOKUP_FILE_WRITER -> LookupWriterFiles.write(file, spec, rows);
        }
    }

    /**
     * Rows sorted by the key: distinct key tuples (the leading component drawn from a smaller pool
     * so prefix lookups match several tuples), each repeated 1 to a few times, some runs long
     * enough to cross pages and row groups.
     */
    public static List<Object[]> sortedRows(TableSpec spec, Random r) {
        int[] keyIdx = spec.keyIndexes();
        List<ColumnSpec> keyCols = spec.sortKey().stream().map(spec::column).toList();
        List<Object[]> tuples = distinctTuples(spec, keyCols, r);
        WriterOptions o = spec.options();
        int maxRows = o.rowsPerRowGroup() < 20 || o.rowsPerPage() < 3 ? 600 : 3000;
        int longRun = Math.min(400, Math.max(o.rowsPerPage() * 2 + 1, o.rowsPerRowGroup() + 1));
        int forcedRun = r.nextInt(tuples.size());
        List<Object[]> rows = new ArrayList<>();
        for (int t = 0; t < tuples.size() && rows.size() < maxRows; t++) {
            int count;
            int dice = r.nextInt(100);
            if (t == forcedRun) {
                count = longRun;
            } else if (dice < 75) {
                count = 1;
            } else if (dice < 95) {
                count = 2 + r.nextInt(3);
            } else {
                count = 1 + r.nextInt(longRun);
            }
            for (int i = 0; i < count; i++) {
                Object[] row = new Object[spec.columns().size()];
                for (int c = 0; c < row.length; c++) {
                    ColumnSpec col = spec.columns().get(c);
                    row[c] = col.nullable() && r.nextInt(5) == 0 ? null : randomValue(col, r);
                }
                Object[] tuple = tuples.get(t);
                for (int k = 0; k < keyIdx.length; k++) {
                    row[keyIdx[k]] = tuple[k];
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static List<Object[]> distinctTuples(
            TableSpec spec, List<ColumnSpec> keyCols, Random r) {
        int n = spec.distinctKeys();
        List<List<Object>> pools = new ArrayList<>();
        for (int k = 0; k < keyCols.size() - 1; k++) {
            // Leading components repeat: a prefix lookup matches several tuples.
            int poolSize = Math.max(1, n / (k == 0 ? 5 : 2));
            List<Object> pool = new ArrayList<>();
            for (int i = 0; i < poolSize; i++) {
                pool.add(keyOrNull(spec, keyCols.get(k), r));
            }
            pools.add(pool);
        }
        TreeSet<Object[]> set = new TreeSet<>(Values::compareKeys);
        for (int attempt = 0; set.size() < n && attempt < n * 20; attempt++) {
            Object[] tuple = new Object[keyCols.size()];
            for (int k = 0; k < tuple.length; k++) {
                tuple[k] =
                        k < pools.size()
                                ? pools.get(k).get(r.nextInt(pools.get(k).size()))
                                : keyOrNull(spec, keyCols.get(k), r);
            }
            set.add(tuple);
        }
        return new ArrayList<>(set);
    }

    private static Object keyOrNull(TableSpec spec, ColumnSpec c, Random r) {
        return spec.nullKeys() && c.nullable() && r.nextInt(12) == 0
                ? null
                : randomKey(c, r, spec.longKeyPrefix());
    }

    /** Splits sorted rows into the spec's files, each file sorted and non-empty. */
    private static List<List<Object[]>> split(List<Object[]> rows, TableSpec spec, Random r) {
        int files = Math.min(spec.fileCount(), rows.size());
        List<List<Object[]>> parts = new ArrayList<>();
        for (int i = 0; i < files; i++) {
            parts.add(new ArrayList<>());
        }
        if (spec.overlappingFiles()) {
            // Every file gets one row first so none is empty, then the rest at random.
            for (int i = 0; i < rows.size(); i++) {
                int f = i < files ? i : r.nextInt(files);
                parts.get(f).add(rows.get(i));
            }
            parts.forEach(p -> p.sort(Values.rowKeyOrder(spec.keyIndexes())));
        } else {
            TreeSet<Integer> cuts = new TreeSet<>();
            while (cuts.size() < files - 1) {
                cuts.add(1 + r.nextInt(rows.size() - 1));
            }
            int start = 0;
            int f = 0;
            for (int cut : cuts) {
                parts.get(f++).addAll(rows.subList(start, cut));
                start = cut;
            }
            parts.get(f).addAll(rows.subList(start, rows.size()));
        }
        return parts;
    }

    // ---------------------------------------------------------------- values

    /** A random value of {@code c}'s type, edge values included, never null. */
    public static Object randomValue(ColumnSpec c, Random r) {
        ValueType t = c.type();
        boolean edge = r.nextInt(10) == 0;
        return switch (t.kind()) {
            case BOOLEAN -> r.nextBoolean();
            case TINYINT -> r.nextInt(256) - 128;
            case SMALLINT -> r.nextInt(65536) - 32768;
            case INT -> edge ? pick(r, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1) : r.nextInt();
            case BIGINT -> edge ? pick(r, Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L) : r.nextLong();
            case FLOAT ->
                    edge
                            ? pick(
                                    r,
                                    Float.NaN,
                                    -0.0f,
                                    Float.POSITIVE_INFINITY,
                                    Float.NEGATIVE_INFINITY,
                                    Float.MIN_VALUE,
                                    Float.MAX_VALUE)
                            : (r.nextFloat() - 0.5f) * 1e6f;
            case DOUBLE ->
                    edge
                            ? pick(
                                    r,
                                    Double.NaN,
                                    -0.0d,
                                    Double.POSITIVE_INFINITY,
                                    Double.NEGATIVE_INFINITY,
                                    Double.MIN_VALUE,
                                    Double.MAX_VALUE)
                            : (r.nextDouble() - 0.5d) * 1e12;
            case DECIMAL -> randomDecimal(t, r, edge);
            case STRING -> randomString(r, 12, false);
            case BINARY -> randomBytes(r, 10, false);
            case DATE -> r.nextInt(200_000) - 100_000;
            case TIME ->
                    switch (t.precision()) {
                        case 3 -> r.nextLong(86_400_000L) * 1_000_000L;
                        case 6 -> r.nextLong(86_400_000_000L) * 1_000L;
                        default -> r.nextLong(86_400_000_000_000L);
                    };
            case TIMESTAMP, TIMESTAMP_LTZ ->
                    c.storage() == Storage.INT96
                            ? TimestampValue.ofEpochNanos(
                                    r.nextLong(
                                            -4_000_000_000_000_000_000L,
                                            4_000_000_000_000_000_000L))
                            : randomTimestamp(t.precision(), r);
            case ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException("not generated: " + c);
        };
    }

    /** A random key value: drawn from a range narrow enough to repeat and leave gaps. */
    public static Object randomKey(ColumnSpec c, Random r, boolean longPrefix) {
        ValueType t = c.type();
        boolean edge = r.nextInt(40) == 0;
        return switch (t.kind()) {
            case INT ->
                    edge
                            ? pick(r, Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0)
                            : r.nextInt(-5_000, 5_000) * 3;
            case BIGINT ->
                    edge
                            ? pick(r, Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L)
                            : r.nextLong(-5_000_000_000L, 5_000_000_000L) * 3;
            case DATE -> r.nextInt(-20_000, 20_000) * 2;
            case STRING -> prefixed(randomString(r, 6, true), longPrefix);
            case BINARY -> prefixed(randomBytes(r, 5, true), longPrefix);
            case DECIMAL -> randomDecimal(t, r, edge);
            case TIMESTAMP -> randomTimestamp(t.precision(), r);
            default -> throw new IllegalArgumentException("not a key type: " + c);
        };
    }

    private static byte[] prefixed(byte[] value, boolean longPrefix) {
        if (!longPrefix) {
            return value;
        }
        byte[] out = Arrays.copyOf(LONG_PREFIX, LONG_PREFIX.length + value.length);
        System.arraycopy(value, 0, out, LONG_PREFIX.length, value.length);
        return out;
    }

    @SafeVarargs
    private static <T> T pick(Random r, T... choices) {
        return choices[r.nextInt(choices.length)];
    }

    private static BigDecimal randomDecimal(ValueType t, Random r, boolean edge) {
        BigInteger bound = BigInteger.TEN.pow(t.precision());
        BigInteger unscaled;
        if (edge) {
            unscaled = pick(r, bound.subtract(BigInteger.ONE), BigInteger.ZERO, BigInteger.ONE);
        } else {
            unscaled = new BigInteger(bound.bitLength() + 8, r).mod(bound);
            if (r.nextInt(4) > 0) {
                // Mostly small magnitudes so keys repeat and signs mix.
                unscaled = unscaled.mod(BigInteger.valueOf(100_000).min(bound));
            }
        }
        return new BigDecimal(r.nextBoolean() ? unscaled.negate() : unscaled, t.scale());
    }

    private static TimestampValue randomTimestamp(int precision, Random r) {
        return switch (precision) {
            case 3 -> new TimestampValue(r.nextLong(-4_000_000_000_000L, 4_000_000_000_000L), 0);
            case 6 ->
                    TimestampValue.ofEpochMicros(
                            r.nextLong(-4_000_000_000_000_000L, 4_000_000_000_000_000L));
            default ->
                    TimestampValue.ofEpochNanos(
                            r.nextLong(-4_000_000_000_000_000_000L, 4_000_000_000_000_000_000L));
        };
    }

    private static byte[] randomString(Random r, int maxChars, boolean keyLike) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(maxChars + 1);
        for (int i = 0; i < n; i++) {
            sb.append(
                    keyLike && r.nextInt(3) > 0
                            ? ALPHABET[r.nextInt(4)]
                            : ALPHABET[r.nextInt(ALPHABET.length)]);
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomBytes(Random r, int maxLength, boolean keyLike) {
        byte[] b = new byte[r.nextInt(maxLength + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] =
                    keyLike || r.nextBoolean()
                            ? EDGE_BYTES[r.nextInt(EDGE_BYTES.length)]
                            : (byte) r.nextInt();
        }
        return b;
    }

    // ---------------------------------------------------------------- neighbours of keys

    /**
     * A key value just above {@code v} in the column's order (the immediate successor where one
     * exists), or {@code null} if {@code v} is the largest value.
     */
    public static Object above(ColumnSpec c, Object v) {
        return step(c, v, 1);
    }

    /** A key value just below {@code v}, or {@code null} if {@code v} is the smallest value. */
    public static Object below(ColumnSpec c, Object v) {
        return step(c, v, -1);
    }

    private static Object step(ColumnSpec c, Object v, int dir) {
        if (v == null) {
            return null;
        }
        ValueType t = c.type();
        return switch (t.kind()) {
            case INT, DATE -> {
                long n = (long) (Integer) v + dir;
                yield n < Integer.MIN_VALUE || n > Integer.MAX_VALUE ? null : (int) n;
            }
            case BIGINT -> {
                long x = (Long) v;
                yield (dir > 0 && x == Long.MAX_VALUE) || (dir < 0 && x == Long.MIN_VALUE)
                        ? null
                        : x + dir;
            }
            case STRING, BINARY -> {
                byte[] b = (byte[]) v;
                if (dir > 0) {
                    yield Arrays.copyOf(b, b.length + 1); // v + 0x00: the immediate successor
                }
                if (b.length == 0) {
                    yield null;
                }
                if (b[b.length - 1] == 0) {
                    yield Arrays.copyOf(b, b.length - 1);
                }
                byte[] out = Arrays.copyOf(b, b.length + 1);
                out[b.length - 1]--;
                out[b.length] = (byte) 0xff;
                yield out;
            }
            case DECIMAL -> {
                BigDecimal d = (BigDecimal) v;
                BigInteger u = d.unscaledValue().add(BigInteger.valueOf(dir));
                yield u.abs().compareTo(BigInteger.TEN.pow(t.precision())) >= 0
                        ? null
                        : new BigDecimal(u, t.scale());
            }
            case TIMESTAMP -> {
                TimestampValue ts = (TimestampValue) v;
                yield switch (t.precision()) {
                    case 3 -> new TimestampValue(ts.epochMillis() + dir, 0);
                    case 6 ->
                            TimestampValue.ofEpochMicros(
                                    ts.epochMillis() * 1_000
                                            + ts.nanoOfMillisecond() / 1_000
                                            + dir);
                    default ->
                            TimestampValue.ofEpochNanos(
                                    ts.epochMillis() * 1_000_000 + ts.nanoOfMillisecond() + dir);
                };
            }
            default -> throw new IllegalArgumentException("not a key type: " + c);
        };
    }
}
