package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.lookup.TableColumns.KeyValues;
import dev.parquetlookup.engine.page.KeyPageBounds;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.DuckDbExtension;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.TimestampValue;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Page indexes synthesized for DuckDB files (DuckDB writes none): every key type of the type table,
 * NULL keys sorted first or last, keys repeated across pages and row groups, Parquet v1 and v2
 * pages, plain and dictionary encodings. Each page's location and bounds are checked against
 * DuckDB's own reading of those rows ({@code file_row_number}), and every lookup on the synthesized
 * index must equal the row-group fallback's answer (which {@link DuckDbInteropTest} checks against
 * DuckDB's answers).
 */
class SynthesizedPageIndexDuckDbTest {

    @TempDir static Path tmp;

    @RegisterExtension static final DuckDbExtension duck = new DuckDbExtension();

    /**
     * One file: the SQL type of the key, the expression giving key {@code j} (keys repeat: {@code j
     * = i / 3}), Parquet version, codec, and where NULL keys sort.
     */
    record Case(String type, String expression, String version, String codec, String nulls) {
        @Override
        public String toString() {
            return type + " " + version + " " + codec + " nulls " + nulls;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("INTEGER", "(j * 2 - 30000)::INTEGER", "V1", "snappy", "FIRST"),
                new Case("BIGINT", "(j * 2)::BIGINT", "V2", "zstd", "LAST"),
                new Case(
                        "VARCHAR",
                        "'key-' || lpad((j * 2)::VARCHAR, 6, '0')",
                        "V1",
                        "zstd",
                        "LAST"),
                new Case(
                        "VARCHAR",
                        "CASE WHEN j % 7 = 0 THEN 'ключ-' ELSE 'key-' END"
                                + " || lpad((j * 2)::VARCHAR, 6, '0')",
                        "V2",
                        "uncompressed",
                        "FIRST"),
                new Case(
                        "BLOB",
                        "encode('b' || lpad((j * 2)::VARCHAR, 6, '0'))",
                        "V1",
                        "snappy",
                        "FIRST"),
                new Case("DATE", "DATE '1960-01-01' + (j * 2)::INTEGER", "V2", "snappy", "LAST"),
                new Case(
                        "TIMESTAMP",
                        "TIMESTAMP '1969-12-31 00:00:00' + to_microseconds((j * 2000002)::BIGINT)",
                        "V1",
                        "zstd",
                        "FIRST"),
                new Case(
                        "DECIMAL(9,2)",
                        "((j * 2 - 9000) * 0.25)::DECIMAL(9,2)",
                        "V1",
                        "zstd",
                        "LAST"),
                new Case(
                        "DECIMAL(18,3)",
                        "((j * 2 - 9000) * 0.125)::DECIMAL(18,3)",
                        "V2",
                        "snappy",
                        "FIRST"),
                new Case(
                        "DECIMAL(30,4)",
                        "((j * 2 - 9000) * 12345678901.0625)::DECIMAL(30,4)",
                        "V1",
                        "zstd",
                        "LAST"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void synthesizedIndexLocatesPagesAndAnswersLikeTheFallback(Case c) throws Exception {
        Path file = tmp.resolve(c.toString().replaceAll("[^A-Za-z0-9]+", "_") + ".parquet");
        // 60,000 rows, keys repeated 3 times (runs cross row groups), every 41st key NULL;
        // DuckDB's smallest row groups (2,048 rows). DuckDB writes one page per column chunk.
        duck.writeParquet(
                "SELECT CASE WHEN j % 41 = 5 THEN NULL ELSE "
                        + c.expression
                        + " END AS k, i, 'v-' || i AS v FROM (SELECT i, i // 3 AS j FROM"
                        + " range(60000) t(i)) ORDER BY k NULLS "
                        + c.nulls
                        + ", i",
                file,
                "ROW_GROUP_SIZE 2048, PARQUET_VERSION " + c.version + ", COMPRESSION " + c.codec);
        FileMetadata meta;
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source = store.open(store.stat(file.toString()))) {
            meta =
                    MetadataReader.read(
                            source,
                            List.of("k"),
                            PageIndexOptions.synthesized(KeyPageBounds.INSTANCE));
        }
        assertThat(meta.pageIndex().kind())
                .as(c + " index")
                .isEqualTo(PageIndexOrigin.Kind.SYNTHESIZED);
        assertThat(meta.hasPageIndex()).as(c + " every row group has key pages").isTrue();
        checkPagesAgainstDuckDb(c, file, meta);

        try (DimensionTable synthesized =
                        DimensionTable.open(
                                TableConfig.builder(file.toString())
                                        .sortKey(List.of("k"))
                                        .build());
                DimensionTable fallback =
                        DimensionTable.open(
                                TableConfig.builder(file.toString())
                                        .sortKey(List.of("k"))
                                        .synthesizePageIndex(false)
                                        .build())) {
            LookupPlan a = synthesized.plan(List.of("k"), List.of("k", "i", "v"));
            LookupPlan b = fallback.plan(List.of("k"), List.of("k", "i", "v"));
            int hits = 0;
            for (Object key : probes(c, file)) {
                List<Object[]> expected = fallback.lookup(b, new Object[] {key});
                List<Object[]> actual = synthesized.lookup(a, new Object[] {key});
                if (!Values.rowListsEqual(expected, actual)) {
                    throw new AssertionError(
                            c
                                    + ": lookup of "
                                    + Values.describe(new Object[] {key})
                                    + "\n  fallback    "
                                    + Values.describe(expected, 8)
                                    + "\n  synthesized "
                                    + Values.describe(actual, 8));
                }
                hits += expected.isEmpty() ? 0 : 1;
            }
            assertThat(hits).as(c + " hits").isGreaterThan(100);
        }
    }

    /**
     * Each page's first row, row count and key bounds as DuckDB reads them: {@code min(k)}, {@code
     * max(k)} over the page's rows by {@code file_row_number}.
     */
    private static void checkPagesAgainstDuckDb(Case c, Path file, FileMetadata meta)
            throws SQLException {
        KeyType type = meta.keyTypes().get(0);
        try (PreparedStatement q =
                duck.prepareStatement(
                        "SELECT count(*), count(k), "
                                + bound(c, "min")
                                + ", "
                                + bound(c, "max")
                                + " FROM"
                                + " read_parquet('"
                                + file
                                + "', file_row_number = true) WHERE file_row_number >= ? AND"
                                + " file_row_number < ?")) {
            int pages = 0;
            for (RowGroupInfo rg : meta.rowGroups()) {
                PageLocations locations = rg.columns()[meta.keyLeaves()[0]].pages();
                KeyRanges bounds = rg.keyPages()[0];
                int entry = 0;
                for (int p = 0; p < locations.pageCount(); p++) {
                    long from = rg.firstRow() + locations.firstRows()[p];
                    long to = rg.firstRow() + locations.endRow(p, rg.rowCount());
                    q.setLong(1, from);
                    q.setLong(2, to);
                    try (ResultSet rs = q.executeQuery()) {
                        rs.next();
                        String where = c + " row group " + rg.ordinal() + " page " + p;
                        assertThat(rs.getLong(1)).as(where + " rows").isEqualTo(to - from);
                        boolean allNull = rs.getLong(2) == 0;
                        boolean hasBounds = entry < bounds.size() && bounds.entry(entry) == p;
                        assertThat(hasBounds).as(where + " has bounds").isEqualTo(!allNull);
                        if (hasBounds) {
                            assertThat(format(type, bounds.min(entry)))
                                    .as(where + " min")
                                    .isEqualTo(duckText(c, rs.getString(3)));
                            assertThat(format(type, bounds.max(entry)))
                                    .as(where + " max")
                                    .isEqualTo(duckText(c, rs.getString(4)));
                            entry++;
                        }
                    }
                    pages++;
                }
            }
            assertThat(pages).as(c + " pages").isGreaterThanOrEqualTo(meta.rowGroups().size());
        }
    }

    /** DuckDB's text of a page bound; timestamps as epoch microseconds. */
    private static String bound(Case c, String function) {
        return c.type.equals("TIMESTAMP")
                ? "epoch_us(" + function + "(k))::VARCHAR"
                : function + "(k)::VARCHAR";
    }

    /** Keys to look up: every distinct key and a neighbour below each (mostly misses). */
    private static List<Object> probes(Case c, Path file) throws SQLException {
        List<Object> keys = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT DISTINCT k::VARCHAR FROM read_parquet('"
                                        + file
                                        + "') WHERE k IS NOT NULL ORDER BY 1 LIMIT 400")) {
            while (rs.next()) {
                keys.add(engineKey(c, rs.getString(1), false));
                keys.add(engineKey(c, rs.getString(1), true));
            }
        }
        return keys;
    }

    /** DuckDB's text of a key as a lookup key; {@code near} gives a key just below it. */
    private static Object engineKey(Case c, String text, boolean near) {
        String t = c.type.replaceAll("\\(.*", "");
        return switch (t) {
            case "INTEGER" -> Integer.parseInt(text) - (near ? 1 : 0);
            case "BIGINT" -> Long.parseLong(text) - (near ? 1 : 0);
            case "VARCHAR" ->
                    (near ? text.substring(0, text.length() - 1) : text)
                            .getBytes(StandardCharsets.UTF_8);
            case "BLOB" -> near ? new byte[] {'b'} : blob(text);
            case "DATE" -> (int) java.time.LocalDate.parse(text).toEpochDay() - (near ? 1 : 0);
            case "TIMESTAMP" -> {
                java.time.LocalDateTime ts = java.time.LocalDateTime.parse(text.replace(' ', 'T'));
                if (near) {
                    ts = ts.minusNanos(1000);
                }
                long s = ts.toEpochSecond(java.time.ZoneOffset.UTC);
                yield new TimestampValue(
                        s * 1000 + ts.getNano() / 1_000_000, ts.getNano() % 1_000_000);
            }
            case "DECIMAL" -> {
                BigDecimal d = new BigDecimal(text);
                yield near ? d.subtract(BigDecimal.ONE.movePointLeft(d.scale())) : d;
            }
            default -> throw new IllegalArgumentException(c.type);
        };
    }

    /** DuckDB's VARCHAR cast of a BLOB escapes non-printable bytes as \xNN. */
    private static byte[] blob(String text) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\\' && i + 3 < text.length() && text.charAt(i + 1) == 'x') {
                out.write(Integer.parseInt(text.substring(i + 2, i + 4), 16));
                i += 3;
            } else {
                out.write(text.charAt(i));
            }
        }
        return out.toByteArray();
    }

    /** A synthesized bound in the text DuckDB's {@code ::VARCHAR} gives. */
    private static String format(KeyType type, Object bound) {
        if (bound instanceof byte[] b) {
            return new String(b, StandardCharsets.UTF_8);
        }
        if (bound instanceof BigInteger unscaled) {
            int scale =
                    ((org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation)
                                    type.type().getLogicalTypeAnnotation())
                            .getScale();
            return new BigDecimal(unscaled, scale).toPlainString();
        }
        Object engine = KeyValues.engineValue(type, bound);
        if (engine instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (engine instanceof TimestampValue ts) {
            return String.valueOf(ts.epochMillis() * 1000 + ts.nanoOfMillisecond() / 1000);
        }
        if (type.type().getLogicalTypeAnnotation()
                instanceof
                org.apache.parquet.schema.LogicalTypeAnnotation.DateLogicalTypeAnnotation) {
            return java.time.LocalDate.ofEpochDay((Integer) engine).toString();
        }
        return String.valueOf(engine);
    }

    /** DuckDB's text, normalised where it differs from ours only in form. */
    private static String duckText(Case c, String text) {
        if (c.type.equals("BLOB")) {
            return new String(blob(text), StandardCharsets.UTF_8);
        }
        return text;
    }
}
