package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.tools.Main;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.Type;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prepare} of Parquet inputs with nested columns (3-level and legacy 2-level lists, MAP and
 * MAP_KEY_VALUE with NULL values, structs of lists, NULLs at every level), written unsorted by
 * DuckDB and by parquet-java: (a) the prepared output read by the engine answers as DuckDB answers
 * on the input, lookups and a whole scan; (b) DuckDB reads the prepared output and answers as the
 * engine does, so the written shapes are standard; (c) the same with the sort spilling runs. (Here,
 * beside {@link NestedAnswers}, rather than in the tools tests.)
 */
class NestedPrepareTest {

    @TempDir static Path tmp;

    private static Connection duck;

    @BeforeAll
    static void openDuckDb() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(NestedValuesDuckDbTest.SOURCE);
        }
    }

    @AfterAll
    static void closeDuckDb() throws SQLException {
        if (duck != null) {
            duck.close();
        }
    }

    record Run(int exitCode, String out, String err) {}

    private static Run prepare(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private static Path prepared(Path in, Path out, boolean spill) throws IOException {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "prepare",
                                in.toString(),
                                out.toString(),
                                "--key",
                                "k",
                                "--rows-per-page",
                                "50",
                                "--row-group-rows",
                                "1000"));
        if (spill) {
            args.addAll(List.of("--sort-buffer-rows", "700", "--temp-dir", tmp.toString()));
        }
        Run run = prepare(args.toArray(new String[0]));
        assertThat(run.exitCode()).as("%s", run).isZero();
        if (spill) {
            assertThat(run.out()).contains("The sort spilled");
        }
        try (Stream<Path> s = Files.list(out)) {
            List<Path> files = s.filter(p -> p.toString().endsWith(".parquet")).toList();
            assertThat(files).hasSize(1);
            return files.get(0);
        }
    }

    /** DuckDB's rows of an input file in key order (equal keys in file order). */
    private static List<String> duckSorted(Path file, List<String> expressions)
            throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT "
                                        + String.join(", ", expressions)
                                        + " FROM read_parquet('"
                                        + file
                                        + "', file_row_number = true)"
                                        + " ORDER BY k, file_row_number")) {
            while (rs.next()) {
                Object[] row = new Object[expressions.size()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = rs.getObject(i + 1);
                }
                rows.add(row);
            }
        }
        return NestedAnswers.canonical(rows);
    }

    private static void check(
            Path input, Path output, List<String> columns, List<String> inputExpressions)
            throws Exception {
        TableConfig config = TableConfig.builder(output.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            // (a) Every row as DuckDB reads the input, then lookups of about 100 keys.
            LookupPlan plan = table.plan(List.of("k"), columns);
            List<Object[]> rows = new ArrayList<>();
            table.scan(plan, rows::add);
            assertThat(NestedAnswers.canonical(rows))
                    .isEqualTo(duckSorted(input, inputExpressions));
            NestedAnswers.compareLookups(
                    duck, input, table, columns, inputExpressions, new Random(11));
            // (b) DuckDB reads the prepared file as the engine does.
            NestedAnswers.compareLookups(duck, output, table, columns, new Random(12));
            NestedAnswers.compareScan(duck, output, table, columns, columns);
        }
    }

    @ParameterizedTest(name = "spill={0}")
    @ValueSource(booleans = {false, true})
    void duckDbInput(boolean spill) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("duck-" + spill));
        Path input = dir.resolve("in.parquet");
        try (Statement st = duck.createStatement()) {
            // Not sorted: prepare sorts (equal keys keep their input order).
            st.execute(
                    "COPY (SELECT * FROM src ORDER BY (i * 7919) % 6000) TO '"
                            + input
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2000)");
        }
        Path output = prepared(input, dir.resolve("out"), spill);
        TableConfig config = TableConfig.builder(output.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            assertThat(table.columns())
                    .extracting(col -> col.name() + " " + col.type())
                    .contains(
                            "tags ARRAY<STRING>",
                            "nums ARRAY<ARRAY<INT>>",
                            "attrs MAP<STRING, BIGINT>",
                            "addr ROW<`city` STRING, `zip` INT>",
                            "prof ROW<`name` STRING, `scores` ARRAY<DOUBLE>>",
                            "items ARRAY<ROW<`a` INT, `b` STRING>>",
                            "deep MAP<INT, ROW<`x` INT, `y` ARRAY<STRING>>>");
        }
        // The spec's shapes: 3-level LIST, MAP with a required key and optional value, ROW as a
        // group of optional fields.
        MessageType schema = footerSchema(output);
        assertThat(oneLine(schema.getType("tags")))
                .isEqualTo(
                        "optional group tags (LIST) { repeated group list {"
                                + " optional binary element (STRING); } }");
        assertThat(oneLine(schema.getType("attrs")))
                .isEqualTo(
                        "optional group attrs (MAP) { repeated group key_value {"
                                + " required binary key (STRING); optional int64 value; } }");
        assertThat(oneLine(schema.getType("addr")))
                .isEqualTo(
                        "optional group addr { optional binary city (STRING);"
                                + " optional int32 zip; }");
        List<String> columns = NestedValuesDuckDbTest.COLUMNS;
        check(input, output, columns, columns);
    }

    private static MessageType footerSchema(Path file) throws IOException {
        try (ParquetFileReader reader =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.toUri()),
                                new Configuration()))) {
            return reader.getFooter().getFileMetaData().getSchema();
        }
    }

    private static String oneLine(Type t) {
        return t.toString().trim().replaceAll("\\s+", " ");
    }

    @ParameterizedTest(name = "spill={0}")
    @ValueSource(booleans = {false, true})
    void parquetJavaInputWithLegacyShapes(boolean spill) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("java-" + spill));
        Path input = dir.resolve("in.parquet");
        List<Group> rows = NestedValuesParquetJavaTest.rows(3000);
        Collections.shuffle(rows, new Random(5));
        ParquetJavaFiles.write(
                input,
                NestedValuesParquetJavaTest.SCHEMA,
                WriterOptions.defaults().withRowsPerPage(100).withRowsPerRowGroup(1000),
                rows);
        Path output = prepared(input, dir.resolve("out"), spill);
        // The legacy 2-level list of one-field groups named 'array' is ARRAY<ROW<s>> (as the
        // engine reads it), written as a standard 3-level list that DuckDB reads as such.
        check(
                input,
                output,
                NestedValuesParquetJavaTest.COLUMNS,
                NestedValuesParquetJavaTest.DUCKDB_COLUMNS);
    }

    private static void duckNums(Path file, String type, int parity) throws SQLException {
        try (Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT (i * 2 + "
                            + parity
                            + ")::BIGINT AS k, CASE WHEN i % 7 = 0 THEN NULL ELSE"
                            + " [CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE (x * i + "
                            + (parity == 0 ? "0" : "5000000000")
                            + ")::"
                            + type
                            + " END FOR x IN range(i % 4)] END AS nums,"
                            + " {'n': i::INTEGER, 'm': map([i::INTEGER], [(i * 0.5)::"
                            + (parity == 0 ? "FLOAT" : "DOUBLE")
                            + "])} AS s"
                            + " FROM range(1500) t(i) ORDER BY i DESC) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
    }

    @Test
    void partsWidenAcrossInputFiles() throws Exception {
        Path in = Files.createDirectories(tmp.resolve("widen/in"));
        duckNums(in.resolve("a.parquet"), "INTEGER", 0);
        duckNums(in.resolve("b.parquet"), "BIGINT", 1);
        Path output = prepared(in, tmp.resolve("widen/out"), false);
        TableConfig config = TableConfig.builder(output.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            assertThat(table.columns())
                    .extracting(col -> col.name() + " " + col.type())
                    .containsExactly(
                            "k BIGINT",
                            "nums ARRAY<BIGINT>",
                            "s ROW<`n` INT, `m` MAP<INT, DOUBLE>>");
            List<String> columns = List.of("k", "nums", "s");
            LookupPlan plan = table.plan(List.of("k"), columns);
            List<Object[]> rows = new ArrayList<>();
            table.scan(plan, rows::add);
            List<Object[]> expected = new ArrayList<>();
            try (Statement st = duck.createStatement();
                    ResultSet rs =
                            st.executeQuery(
                                    "SELECT k, nums::BIGINT[],"
                                            + " {'n': s.n, 'm': map_from_entries([{'k': e.key, 'v':"
                                            + " e.value::DOUBLE} FOR e IN map_entries(s.m)])}"
                                            + " FROM read_parquet('"
                                            + in
                                            + "/*.parquet', union_by_name = true) ORDER BY k")) {
                while (rs.next()) {
                    expected.add(new Object[] {rs.getObject(1), rs.getObject(2), rs.getObject(3)});
                }
            }
            assertThat(NestedAnswers.canonical(rows))
                    .hasSize(3000)
                    .isEqualTo(NestedAnswers.canonical(expected));
            NestedAnswers.compareScan(duck, output, table, columns, columns);
        }
    }

    @Test
    void disagreeingPartsAreRefusedNamingBothFilesWithNoOutput() throws Exception {
        Path in = Files.createDirectories(tmp.resolve("disagree/in"));
        duckNums(in.resolve("a.parquet"), "INTEGER", 0);
        duckNums(in.resolve("b.parquet"), "VARCHAR", 1);
        Path out = tmp.resolve("disagree/out");
        Run run = prepare("prepare", in.toString(), out.toString(), "--key", "k");
        assertThat(run.exitCode()).as("%s", run).isNotZero();
        assertThat(run.err()).contains("nums").contains("a.parquet").contains("b.parquet");
        assertThat(out).doesNotExist();
    }

    @Test
    void aNestedKeyIsRefused() throws Exception {
        Path in = Files.createDirectories(tmp.resolve("nestedkey/in"));
        duckNums(in.resolve("a.parquet"), "INTEGER", 0);
        Path out = tmp.resolve("nestedkey/out");
        Run run = prepare("prepare", in.toString(), out.toString(), "--key", "nums");
        assertThat(run.exitCode()).as("%s", run).isNotZero();
        assertThat(run.err()).contains("'nums' is nested");
        assertThat(out).doesNotExist();
    }

    @Test
    void aNestedShapeTheEngineDoesNotReadIsRefusedWithTheFix() throws Exception {
        Path in = Files.createDirectories(tmp.resolve("keysonly/in"));
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        """
                        message m {
                          required int64 k;
                          optional group keys (MAP) {
                            repeated group key_value { required binary key (STRING); }
                          }
                        }
                        """);
        List<Group> rows = new ArrayList<>();
        for (long k = 0; k < 10; k++) {
            Group g = new SimpleGroup(schema);
            g.add("k", k);
            g.addGroup("keys").addGroup("key_value").add("key", "a" + k);
            rows.add(g);
        }
        ParquetJavaFiles.write(in.resolve("a.parquet"), schema, WriterOptions.defaults(), rows);
        Path out = tmp.resolve("keysonly/out");
        Run run = prepare("prepare", in.toString(), out.toString(), "--key", "k");
        assertThat(run.exitCode()).as("%s", run).isNotZero();
        assertThat(run.err())
                .contains("column 'keys' is nested in a shape lookup files cannot hold")
                .contains("--columns");
        assertThat(out).doesNotExist();
        // Leaving it out works.
        Run kept =
                prepare("prepare", in.toString(), out.toString(), "--key", "k", "--columns", "k");
        assertThat(kept.exitCode()).as("%s", kept).isZero();
    }

    /** Rows of one DuckDB query, each as its columns' text. */
    private static List<String> duckText(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int c = 1; c <= n; c++) {
                    b.append(c == 1 ? "" : " | ").append(rs.getString(c));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    @ParameterizedTest(name = "spill={0}")
    @ValueSource(booleans = {false, true})
    void leavesOfEveryTypeInsideNestedColumns(boolean spill) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("typed-" + spill));
        Path input = dir.resolve("in.parquet");
        try (Statement st = duck.createStatement()) {
            st.execute(
                    """
                    COPY (SELECT (i // 2)::BIGINT AS k,
                      CASE WHEN i % 7 = 0 THEN NULL ELSE
                        [CASE WHEN (x + i) % 5 = 0 THEN NULL
                              ELSE (x * i * 1.125 - 300)::DECIMAL(18, 3) END
                         FOR x IN range(i % 4)] END AS d18,
                      [(i * 12345678901.25 - 7)::DECIMAL(30, 2), NULL] AS d30,
                      {'small': (i % 1000 / 10)::DECIMAL(4, 1),
                       'day': (DATE '1969-12-25' + (i % 400)::INTEGER),
                       'tod': (TIME '00:00:00' + to_microseconds(i * 1000003)),
                       'us': TIMESTAMP '1969-12-31 23:00:00' + to_microseconds(i * 1234567),
                       'ms': (TIMESTAMP '2020-01-01' + to_milliseconds(i * 997))::TIMESTAMP_MS,
                       'ns': (TIMESTAMP '2020-01-01' + to_microseconds(i * 997))::TIMESTAMP_NS,
                       'tz': (TIMESTAMP '2001-02-03' + to_microseconds(i * 31))::TIMESTAMPTZ,
                       'blob': CASE WHEN i % 3 = 0 THEN NULL ELSE ('b' || i)::BLOB END,
                       'flag': i % 2 = 0,
                       'tiny': (i % 100 - 50)::TINYINT,
                       'short': (i % 30000 - 15000)::SMALLINT,
                       'f': (i * 0.25)::FLOAT,
                       'dbl': i * 0.1} AS leaves,
                      map([('k' || i)], [[(i % 100 - 50)::TINYINT]]) AS m
                    FROM range(4000) t(i) ORDER BY k, i DESC) TO '$IN' (FORMAT parquet)
                    """
                            .replace("$IN", input.toString()));
        }
        Path output = prepared(input, dir.resolve("out"), spill);
        // The engine reads the input and the output alike, every row and some lookups.
        List<String> columns = List.of("k", "d18", "d30", "leaves", "m");
        try (DimensionTable in =
                        DimensionTable.open(
                                TableConfig.builder(input.toString())
                                        .sortKey(List.of("k"))
                                        .build());
                DimensionTable out =
                        DimensionTable.open(
                                TableConfig.builder(output.toString())
                                        .sortKey(List.of("k"))
                                        .build())) {
            assertThat(out.columns())
                    .extracting(c -> c.name() + " " + c.type())
                    .isEqualTo(in.columns().stream().map(c -> c.name() + " " + c.type()).toList());
            List<Object[]> a = new ArrayList<>();
            List<Object[]> b = new ArrayList<>();
            in.scan(in.plan(List.of("k"), columns), a::add);
            out.scan(out.plan(List.of("k"), columns), b::add);
            assertThat(NestedAnswers.canonical(b))
                    .hasSize(4000)
                    .isEqualTo(NestedAnswers.canonical(a));
            for (long k : new long[] {-1, 0, 1, 777, 1999, 2000}) {
                assertThat(
                                NestedAnswers.canonical(
                                        out.lookup(
                                                out.plan(List.of("k"), columns), new Object[] {k})))
                        .isEqualTo(
                                NestedAnswers.canonical(
                                        in.lookup(
                                                in.plan(List.of("k"), columns), new Object[] {k})));
            }
        }
        // DuckDB reads the output with the input's types and values.
        String describe = "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '%s')";
        assertThat(duckText(describe.formatted(output)))
                .isEqualTo(duckText(describe.formatted(input)));
        // (One thread: rows in file order; the input is sorted, so both files have one order.)
        String select = "SELECT * FROM '%s'";
        assertThat(duckText(select.formatted(output)))
                .hasSize(4000)
                .isEqualTo(duckText(select.formatted(input)));
    }
}
