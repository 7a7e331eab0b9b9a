package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.testing.PageIndexRewriter;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroup;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nested values in files written by parquet-java's example Group writer with a hand-declared
 * schema: 3-level LISTs, the legacy 2-level lists of the spec's backward-compatibility rules (a
 * repeated primitive, a repeated group of several fields, a one-field group named {@code array}),
 * an unannotated repeated field, a struct holding a repeated group, MAP with NULL values and the
 * legacy MAP_KEY_VALUE, lists of lists. These files have a page index and many pages per chunk, so
 * each leaf's page is found by its OffsetIndex. Each lookup is compared with DuckDB's answer.
 */
class NestedValuesParquetJavaTest {

    static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    """
                    message m {
                      required int64 k;
                      required int64 i;
                      optional group tags (LIST) {
                        repeated group list { optional binary element (STRING); }
                      }
                      optional group names (LIST) { repeated binary array (STRING); }
                      optional group points (LIST) {
                        repeated group point { required int32 x; optional int32 y; }
                      }
                      optional group wrapped (LIST) {
                        repeated group array { optional binary s (STRING); }
                      }
                      repeated int32 plain;
                      optional group person {
                        optional binary name (STRING);
                        repeated group phones {
                          required binary number (STRING);
                          optional binary kind (STRING);
                        }
                      }
                      optional group attrs (MAP) {
                        repeated group key_value {
                          required binary key (STRING);
                          optional int32 value;
                        }
                      }
                      optional group legacy_map (MAP) {
                        repeated group map (MAP_KEY_VALUE) {
                          required int32 key;
                          optional binary value (STRING);
                        }
                      }
                      optional group matrix (LIST) {
                        repeated group list {
                          optional group element (LIST) {
                            repeated group list { optional int64 element; }
                          }
                        }
                      }
                      required group req (LIST) {
                        repeated group list { required int32 element; }
                      }
                      optional binary v (STRING);
                    }
                    """);

    static final List<String> COLUMNS =
            List.of(
                    "i",
                    "tags",
                    "names",
                    "points",
                    "wrapped",
                    "plain",
                    "person",
                    "attrs",
                    "legacy_map",
                    "matrix",
                    "req",
                    "v");

    /**
     * What DuckDB selects for {@link #COLUMNS}. DuckDB reads {@code wrapped} as a 3-level list of
     * strings; the spec's backward-compatibility rule (a one-field repeated group named {@code
     * array} is the element) makes its elements ROW<s>, as the engine (and parquet-java's Avro and
     * Spark converters) read it: DuckDB's answer is wrapped the same way to compare.
     */
    static final List<String> DUCKDB_COLUMNS =
            COLUMNS.stream()
                    .map(
                            c ->
                                    c.equals("wrapped")
                                            ? "CASE WHEN wrapped IS NULL THEN NULL"
                                                    + " ELSE [{'s': x} FOR x IN wrapped] END"
                                            : c)
                    .toList();

    @TempDir static Path tmp;

    private static Connection duck;

    @BeforeAll
    static void openDuckDb() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
    }

    @AfterAll
    static void closeDuckDb() throws SQLException {
        if (duck != null) {
            duck.close();
        }
    }

    static Stream<WriterOptions> cases() {
        WriterOptions d = WriterOptions.defaults();
        return Stream.of(
                d.withRowsPerPage(7).withRowsPerRowGroup(1000),
                new WriterOptions(
                        CompressionCodecName.SNAPPY,
                        true,
                        true,
                        false,
                        13,
                        1 << 20,
                        1 << 20,
                        700,
                        true),
                new WriterOptions(
                        CompressionCodecName.GZIP,
                        true,
                        false,
                        false,
                        50,
                        2048,
                        1 << 20,
                        5000,
                        true),
                new WriterOptions(
                        CompressionCodecName.ZSTD,
                        false,
                        true,
                        false,
                        1000,
                        1 << 20,
                        1 << 20,
                        5000,
                        true));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void lookupsMatchDuckDb(WriterOptions options) throws Exception {
        Path dir =
                Files.createDirectories(tmp.resolve("o" + Integer.toHexString(options.hashCode())));
        Path file = dir.resolve("part-0.parquet");
        ParquetJavaFiles.write(file, SCHEMA, options, rows(3000));
        check(file, options);
        // The same pages without the page index: repeated leaves are walked from the chunk's
        // first page, counting rows by repetition level.
        Path stripped = Files.createDirectories(dir.resolve("stripped")).resolve("part-0.parquet");
        PageIndexRewriter.rewrite(file, stripped, false);
        check(stripped, options);
    }

    private static void check(Path file, WriterOptions options) throws Exception {
        TableConfig config = TableConfig.builder(file.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            assertThat(table.columns())
                    .extracting(col -> col.name() + " " + col.type())
                    .contains(
                            "tags ARRAY<STRING>",
                            "names ARRAY<STRING>",
                            "points ARRAY<ROW<`x` INT, `y` INT>>",
                            "wrapped ARRAY<ROW<`s` STRING>>",
                            "plain ARRAY<INT>",
                            "person ROW<`name` STRING, `phones` ARRAY<ROW<`number` STRING,"
                                    + " `kind` STRING>>>",
                            "attrs MAP<STRING, INT>",
                            "legacy_map MAP<INT, STRING>",
                            "matrix ARRAY<ARRAY<BIGINT>>",
                            "req ARRAY<INT>");
            NestedAnswers.compareLookups(
                    duck, file, table, COLUMNS, DUCKDB_COLUMNS, new Random(options.hashCode()));
            NestedAnswers.compareLookups(
                    duck, file, table, List.of("matrix", "person"), new Random(5));
            NestedAnswers.compareScan(duck, file, table, COLUMNS, DUCKDB_COLUMNS);
        }
    }

    /**
     * A directory of a parquet-java file (required lists of required elements, page index) and a
     * DuckDB file (everything optional, no page index): one table, whose nested columns read as
     * DuckDB reads both files.
     */
    @Test
    void filesFromTwoWritersDifferingInNestedNullabilityAreOneTable() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("two-writers"));
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        """
                        message m {
                          required int64 k;
                          required group tags (LIST) {
                            repeated group list { required binary element (STRING); }
                          }
                          required group addr { required binary city (STRING); required int32 zip; }
                        }
                        """);
        List<Group> groups = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            Group g = new SimpleGroup(schema);
            g.add("k", (long) (i / 2 * 4));
            Group tags = g.addGroup("tags");
            for (int x = 0; x < i % 3; x++) {
                tags.addGroup("list").add("element", "j" + x);
            }
            g.addGroup("addr").append("city", "j" + i).append("zip", i);
            groups.add(g);
        }
        Path java = dir.resolve("a.parquet");
        ParquetJavaFiles.write(java, schema, WriterOptions.defaults().withRowsPerPage(9), groups);
        Path duckFile = dir.resolve("b.parquet");
        try (Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT (i * 2)::BIGINT AS k,"
                            + " CASE WHEN i % 5 = 0 THEN NULL ELSE ['d' || i, NULL] END AS tags,"
                            + " CASE WHEN i % 7 = 0 THEN NULL"
                            + " ELSE {'city': 'd' || i, 'zip': NULL::INTEGER} END AS addr"
                            + " FROM range(500) t(i) ORDER BY k) TO '"
                            + duckFile
                            + "' (FORMAT parquet)");
        }
        TableConfig config = TableConfig.builder(dir.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "tags", "addr"));
            Random r = new Random(11);
            for (int n = 0; n < 60; n++) {
                long k = r.nextInt(1100);
                List<String> expected = new ArrayList<>();
                expected.addAll(
                        NestedAnswers.duckRows(duck, java, List.of("k", "tags", "addr"), k));
                expected.addAll(
                        NestedAnswers.duckRows(duck, duckFile, List.of("k", "tags", "addr"), k));
                assertThat(NestedAnswers.canonical(table.lookup(plan, new Object[] {k})))
                        .as("k = %d", k)
                        .isEqualTo(expected);
            }
        }
    }

    /** Rows with keys {@code i / 2 * 2}, NULLs and empties at every level. */
    static List<Group> rows(int n) {
        List<Group> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Group g = new SimpleGroup(SCHEMA);
            g.add("k", (long) (i / 2 * 2));
            g.add("i", (long) i);
            if (i % 7 != 0) {
                Group tags = g.addGroup("tags");
                for (int x = 0; x < i % 5; x++) {
                    Group entry = tags.addGroup("list");
                    if ((x + i) % 4 != 0) {
                        entry.add("element", "t" + (x * i));
                    }
                }
            }
            if (i % 6 != 0) {
                Group names = g.addGroup("names");
                for (int x = 0; x < i % 3; x++) {
                    names.add("array", "n" + x + "-" + i);
                }
            }
            if (i % 5 != 0) {
                Group points = g.addGroup("points");
                for (int x = 0; x < i % 4; x++) {
                    Group p = points.addGroup("point");
                    p.add("x", x);
                    if ((x + i) % 3 != 0) {
                        p.add("y", x * i);
                    }
                }
            }
            if (i % 9 != 0) {
                Group wrapped = g.addGroup("wrapped");
                for (int x = 0; x < i % 3; x++) {
                    Group a = wrapped.addGroup("array");
                    if (x != 1) {
                        a.add("s", "s" + x);
                    }
                }
            }
            for (int x = 0; x < i % 3; x++) {
                g.add("plain", x + i);
            }
            if (i % 4 != 0) {
                Group person = g.addGroup("person");
                if (i % 3 != 0) {
                    person.add("name", "p" + i);
                }
                for (int x = 0; x < i % 3; x++) {
                    Group phone = person.addGroup("phones");
                    phone.add("number", "+" + (i * 10 + x));
                    if (x % 2 == 0) {
                        phone.add("kind", x == 0 ? "home" : "work");
                    }
                }
            }
            if (i % 11 != 0) {
                Group attrs = g.addGroup("attrs");
                for (int x = 0; x < i % 4; x++) {
                    Group kv = attrs.addGroup("key_value");
                    kv.add("key", "a" + x);
                    if (x % 2 == 0) {
                        kv.add("value", x * i);
                    }
                }
            }
            if (i % 13 != 0) {
                Group map = g.addGroup("legacy_map");
                for (int x = 0; x < i % 3; x++) {
                    Group kv = map.addGroup("map");
                    kv.add("key", x);
                    if (x != 1) {
                        kv.add("value", "m" + i);
                    }
                }
            }
            if (i % 10 != 0) {
                Group matrix = g.addGroup("matrix");
                for (int x = 0; x < i % 4; x++) {
                    Group outer = matrix.addGroup("list");
                    if ((x + i) % 5 == 0) {
                        continue; // a null inner list
                    }
                    Group inner = outer.addGroup("element");
                    for (int y = 0; y < x % 3; y++) {
                        Group cell = inner.addGroup("list");
                        if ((x + y) % 3 != 0) {
                            cell.add("element", (long) (x * y + i));
                        }
                    }
                }
            }
            Group req = g.addGroup("req");
            for (int x = 0; x < i % 3; x++) {
                req.addGroup("list").add("element", x);
            }
            if (i % 4 != 1) {
                g.add("v", "v" + i);
            }
            rows.add(g);
        }
        return rows;
    }
}
