package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.PageIndexOrigin;
import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.TimestampValue;

import org.apache.arrow.dataset.file.DatasetFileWriter;
import org.apache.arrow.dataset.file.FileFormat;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parquet written by Arrow C++ (the writer pyarrow, pandas and Polars' pyarrow path wrap), run here
 * through Arrow Java's JNI dataset writer ({@code arrow-dataset}, a native library inside the jar).
 *
 * <p>What Arrow C++ (arrow-dataset 18.3.0, {@code created_by} "parquet-cpp-arrow version
 * 21.0.0-SNAPSHOT") writes through the dataset writer, as checked here: a page index (ColumnIndex
 * and OffsetIndex; pyarrow's {@code write_table} writes none by default, {@code
 * write_page_index=False}, so each file is also served with its index stripped, synthesized and
 * not), one row group per record batch it is given, UNCOMPRESSED, dictionary encoding with PLAIN in
 * the chunk's encodings (the fallback for wide columns), every column OPTIONAL, TIME with {@code
 * isAdjustedToUTC} (DuckDB reads it as TIME WITH TIME ZONE), TINYINT/SMALLINT as annotated INT32,
 * DECIMAL as FIXED_LEN_BYTE_ARRAY. pyarrow's {@code write_table} differs in its defaults (SNAPPY,
 * 1M-row row groups) but not in the encodings.
 *
 * <p>The rows come from DuckDB (sorted by the key, keys repeated three times so runs cross page and
 * row-group boundaries, NULL keys first or last) through DuckDB's Arrow export; every lookup, with
 * the synthesized page index and with the row-group fallback, must equal DuckDB's own answer on the
 * Arrow-written file.
 */
class ArrowCppInteropTest {

    private static final int ROWS = 100_000;

    /** Rows per Arrow record batch; the dataset writer makes each batch a row group. */
    private static final int BATCH_ROWS = 10_000;

    @TempDir static Path tmp;

    private static Connection duck;
    private static BufferAllocator allocator;

    @BeforeAll
    static void open() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
        }
        allocator = new RootAllocator();
    }

    @AfterAll
    static void close() throws SQLException {
        if (duck != null) {
            duck.close();
        }
        if (allocator != null) {
            allocator.close();
        }
    }

    /** One file: the SQL type of the key, the expression for key {@code j}, where NULLs sort. */
    record Case(String type, String expression, String nulls) {
        @Override
        public String toString() {
            return type + " nulls " + nulls;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("TINYINT", "(j % 250 - 125)::TINYINT", "FIRST"),
                new Case("SMALLINT", "(j - 16000)::SMALLINT", "LAST"),
                new Case("INTEGER", "(j * 2 - 30000)::INTEGER", "FIRST"),
                new Case("BIGINT", "(j * 2)::BIGINT", "LAST"),
                // Wide keys: 2-3 key pages per row group, dictionary fallback to PLAIN.
                new Case(
                        "VARCHAR",
                        "CASE WHEN j % 7 = 0 THEN 'ключ-' ELSE 'key-' END"
                                + " || lpad((j * 2)::VARCHAR, 70, '0')",
                        "LAST"),
                new Case("BLOB", "encode('b' || lpad((j * 2)::VARCHAR, 6, '0'))", "FIRST"),
                new Case("DATE", "DATE '1960-01-01' + (j * 2)::INTEGER", "LAST"),
                new Case(
                        "TIME",
                        "TIME '00:00:00' + to_microseconds((j * 2000001)::BIGINT)",
                        "FIRST"),
                new Case(
                        "TIMESTAMP",
                        "TIMESTAMP '1969-12-31 00:00:00' + to_microseconds((j * 2000002)::BIGINT)",
                        "LAST"),
                new Case("DECIMAL(9,2)", "((j * 2 - 9000) * 0.25)::DECIMAL(9,2)", "FIRST"),
                new Case("DECIMAL(18,3)", "((j * 2 - 9000) * 0.125)::DECIMAL(18,3)", "LAST"),
                new Case(
                        "DECIMAL(30,4)",
                        "((j * 2 - 9000) * 12345678901.0625)::DECIMAL(30,4)",
                        "FIRST"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void lookupsMatchDuckDb(Case c) throws Exception {
        String name = c.toString().replaceAll("[^A-Za-z0-9]+", "_");
        Path file = writeWithArrowCpp(c, tmp.resolve(name));
        List<Object> keys = probes(c, file);
        List<List<Object[]>> answers = duckAnswers(c, file, keys);
        long hits = answers.stream().filter(a -> !a.isEmpty()).count();
        assertThat(hits).as(c + " hits").isGreaterThan(50);

        // As written (with its page index), then without it (pyarrow's default), served by a
        // synthesized index and by the row-group fallback.
        Path stripped = file.resolveSibling("part-0-no-index.parquet.tmp");
        PageIndexRewriter.rewrite(file, stripped, false);
        Path noIndexDir = Files.createDirectories(file.getParent().resolveSibling(name + "-bare"));
        Path noIndex = Files.move(stripped, noIndexDir.resolve("part-0.parquet"));
        check(c, file, true, PageIndexOrigin.Kind.OWN, keys, answers);
        check(c, noIndex, true, PageIndexOrigin.Kind.SYNTHESIZED, keys, answers);
        check(c, noIndex, false, PageIndexOrigin.Kind.NONE, keys, answers);
    }

    private static void check(
            Case c,
            Path file,
            boolean synthesize,
            PageIndexOrigin.Kind index,
            List<Object> keys,
            List<List<Object[]>> answers)
            throws Exception {
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .synthesizePageIndex(synthesize)
                        .build();
        try (DimensionTable table = DimensionTable.open(config)) {
            assertThat(table.fileMetadata().get(0).rowGroups())
                    .as(c + " row groups")
                    .hasSize(ROWS / BATCH_ROWS);
            assertThat(table.fileMetadata().get(0).pageIndex().kind())
                    .as(c + " page index")
                    .isEqualTo(index);
            LookupPlan plan = table.plan(List.of("k"), List.of("i", "v", "pad"));
            for (int p = 0; p < keys.size(); p++) {
                List<Object[]> actual = table.lookup(plan, new Object[] {keys.get(p)});
                if (!Values.rowListsEqual(answers.get(p), actual)) {
                    throw new AssertionError(
                            c
                                    + " page index "
                                    + index
                                    + ": lookup of "
                                    + Values.describe(new Object[] {keys.get(p)})
                                    + "\n  DuckDB "
                                    + Values.describe(answers.get(p), 8)
                                    + "\n  engine "
                                    + Values.describe(actual, 8));
                }
            }
        }
    }

    /**
     * 100,000 rows sorted by {@code k}: {@code j = i / 3}, every 41st key NULL, a 100-byte {@code
     * pad} column (1 MB per row group: a dictionary fallback to PLAIN and several pages). Arrow C++
     * writes {@code dir/data_0}.
     */
    private static Path writeWithArrowCpp(Case c, Path dir) throws Exception {
        try (Statement st = duck.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT CASE WHEN j % 41 = 5 THEN NULL ELSE "
                                        + c.expression
                                        + " END AS k, i, 'v-' || i AS v,"
                                        + " lpad(i::VARCHAR, 100, 'x') AS pad FROM (SELECT i,"
                                        + " i // 3 AS j FROM range("
                                        + ROWS
                                        + ") t(i)) ORDER BY k NULLS "
                                        + c.nulls
                                        + ", i")) {
            // The writer closes the reader (and with it DuckDB's stream).
            ArrowReader reader =
                    (ArrowReader) ((DuckDBResultSet) rs).arrowExportStream(allocator, BATCH_ROWS);
            DatasetFileWriter.write(allocator, reader, FileFormat.PARQUET, dir.toUri().toString());
        }
        Path written = dir.resolve("data_0");
        assertThat(written).as("Arrow C++ output").exists();
        Path file = dir.resolve("part-0.parquet");
        Files.move(written, file);
        return file;
    }

    /** About 60 distinct keys (first and last among them), and a key just below each. */
    private static List<Object> probes(Case c, Path file) throws SQLException {
        List<Object> keys = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT "
                                        + key(c)
                                        + "::VARCHAR FROM (SELECT DISTINCT k FROM read_parquet('"
                                        + file
                                        + "') WHERE k IS NOT NULL) ORDER BY k")) {
            List<String> distinct = new ArrayList<>();
            while (rs.next()) {
                distinct.add(rs.getString(1));
            }
            int step = Math.max(1, distinct.size() / 60);
            for (int n = 0; n < distinct.size(); n++) {
                if (n % step == 0 || n == distinct.size() - 1) {
                    keys.add(engineKey(c, distinct.get(n), false));
                    keys.add(engineKey(c, distinct.get(n), true));
                }
            }
        }
        return keys;
    }

    /**
     * The key as DuckDB should compare it: Arrow C++ writes TIME with {@code isAdjustedToUTC},
     * which DuckDB reads as TIME WITH TIME ZONE; the engine serves it as TIME (the wall-clock
     * value).
     */
    private static String key(Case c) {
        return c.type.equals("TIME") ? "k::TIME" : "k";
    }

    /** DuckDB's rows for each key, in file order. */
    private static List<List<Object[]>> duckAnswers(Case c, Path file, List<Object> keys)
            throws SQLException {
        List<List<Object[]>> answers = new ArrayList<>();
        try (PreparedStatement q =
                duck.prepareStatement(
                        "SELECT i, v, pad FROM read_parquet('"
                                + file
                                + "', file_row_number = true) WHERE "
                                + key(c)
                                + " = ? ORDER BY"
                                + " file_row_number")) {
            for (Object key : keys) {
                setKey(c, q, key);
                List<Object[]> rows = new ArrayList<>();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        rows.add(
                                new Object[] {
                                    rs.getLong(1),
                                    rs.getString(2).getBytes(StandardCharsets.UTF_8),
                                    rs.getString(3).getBytes(StandardCharsets.UTF_8)
                                });
                    }
                }
                answers.add(rows);
            }
        }
        return answers;
    }

    /** A lookup key (engine representation) as a DuckDB parameter of the column's type. */
    private static void setKey(Case c, PreparedStatement q, Object key) throws SQLException {
        String t = c.type.replaceAll("\\(.*", "");
        switch (t) {
            case "TINYINT", "SMALLINT", "INTEGER", "DATE" ->
                    q.setObject(
                            1,
                            t.equals("DATE") ? LocalDate.ofEpochDay((Integer) key) : (Integer) key);
            case "BIGINT" -> q.setLong(1, (Long) key);
            case "VARCHAR" -> q.setString(1, new String((byte[]) key, StandardCharsets.UTF_8));
            case "BLOB" -> q.setBytes(1, (byte[]) key);
            case "TIME" -> q.setObject(1, LocalTime.ofNanoOfDay((Long) key));
            case "TIMESTAMP" -> {
                TimestampValue ts = (TimestampValue) key;
                q.setObject(
                        1,
                        LocalDateTime.ofEpochSecond(
                                Math.floorDiv(ts.epochMillis(), 1000),
                                (int) Math.floorMod(ts.epochMillis(), 1000) * 1_000_000
                                        + ts.nanoOfMillisecond(),
                                ZoneOffset.UTC));
            }
            case "DECIMAL" -> q.setBigDecimal(1, (BigDecimal) key);
            default -> throw new IllegalArgumentException(c.type);
        }
    }

    /**
     * DuckDB's text of a key as a lookup key; {@code near} gives a key next to it (below it, above
     * for TIME, whose first key is midnight).
     */
    private static Object engineKey(Case c, String text, boolean near) {
        String t = c.type.replaceAll("\\(.*", "");
        return switch (t) {
            case "TINYINT", "SMALLINT", "INTEGER" -> Integer.parseInt(text) - (near ? 1 : 0);
            case "BIGINT" -> Long.parseLong(text) - (near ? 1 : 0);
            case "VARCHAR" ->
                    (near ? text.substring(0, text.length() - 1) : text)
                            .getBytes(StandardCharsets.UTF_8);
            case "BLOB" -> near ? new byte[] {'b'} : blob(text);
            case "DATE" -> (int) LocalDate.parse(text).toEpochDay() - (near ? 1 : 0);
            case "TIME" -> LocalTime.parse(text).toNanoOfDay() + (near ? 1000 : 0);
            case "TIMESTAMP" -> {
                LocalDateTime ts = LocalDateTime.parse(text.replace(' ', 'T'));
                if (near) {
                    ts = ts.minusNanos(1000);
                }
                long s = ts.toEpochSecond(ZoneOffset.UTC);
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
        ByteArrayOutputStream out = new ByteArrayOutputStream();
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
}
