package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.testing.AsyncFileStore;
import dev.parquetlookup.types.ValueType;

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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Nested values (LIST, MAP, STRUCT and their nestings, NULL at every level, empty lists and maps)
 * in files written by DuckDB, looked up by the engine and compared with DuckDB's own answer for the
 * same keys, hits and misses. DuckDB writes no page index, so repeated leaves are walked from their
 * chunk's first page; struct leaves get a synthesized index.
 */
class NestedValuesDuckDbTest {

    static final String SOURCE =
            """
            CREATE TABLE src AS SELECT
              i::BIGINT AS i,
              (i // 3 * 2)::BIGINT AS k,
              CASE WHEN i % 7 = 0 THEN NULL
                   ELSE [CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE 'v' || (x * i) END
                         FOR x IN range(i % 5)] END AS tags,
              CASE WHEN i % 11 = 0 THEN NULL
                   ELSE [CASE WHEN (x + i) % 5 = 0 THEN NULL
                              ELSE [CASE WHEN (y + x) % 3 = 0 THEN NULL ELSE (y * x + i)::INTEGER END
                                    FOR y IN range(x % 3)] END
                         FOR x IN range(i % 4)] END AS nums,
              CASE WHEN i % 13 = 0 THEN NULL
                   ELSE map_from_entries([{'k': 'key' || x,
                                           'v': CASE WHEN x % 2 = 1 THEN NULL ELSE (x * i)::BIGINT END}
                                          FOR x IN range(i % 4)]) END AS attrs,
              CASE WHEN i % 5 = 0 THEN NULL
                   ELSE {'city': CASE WHEN i % 3 = 0 THEN NULL ELSE 'c' || (i % 17) END,
                         'zip': CASE WHEN i % 4 = 0 THEN NULL ELSE i::INTEGER END} END AS addr,
              CASE WHEN i % 9 = 0 THEN NULL
                   ELSE {'name': 'n' || i,
                         'scores': CASE WHEN i % 6 = 0 THEN NULL
                                        ELSE [(x * 0.5)::DOUBLE FOR x IN range(i % 3)] END}
                   END AS prof,
              CASE WHEN i % 8 = 0 THEN NULL
                   ELSE [CASE WHEN (x + i) % 4 = 0 THEN NULL
                              ELSE {'a': CASE WHEN x % 3 = 0 THEN NULL ELSE x::INTEGER END,
                                    'b': 'b' || x} END
                         FOR x IN range(i % 4)] END AS items,
              CASE WHEN i % 10 = 0 THEN NULL
                   ELSE map_from_entries([{'k': x::INTEGER,
                                           'v': CASE WHEN x = 1 THEN NULL
                                                     ELSE {'x': x::INTEGER, 'y': ['y' || x, NULL]} END}
                                          FOR x IN range(i % 3)]) END AS deep,
              CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || i END AS v
            FROM range(6000) t(i)
            """;

    static final List<String> COLUMNS =
            List.of("i", "tags", "nums", "attrs", "addr", "prof", "items", "deep", "v");

    @TempDir static Path tmp;

    private static Connection duck;

    @BeforeAll
    static void createSource() throws SQLException {
        duck = DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(SOURCE);
        }
    }

    @AfterAll
    static void closeDuckDb() throws SQLException {
        if (duck != null) {
            duck.close();
        }
    }

    record Case(String codec, int rowGroupRows, String version) {
        @Override
        public String toString() {
            return codec + " rg=" + rowGroupRows + " " + version;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("zstd", 1000, "V1"),
                new Case("snappy", 100_000, "V2"),
                new Case("uncompressed", 777, "V1"),
                new Case("gzip", 2048, "V2"));
    }

    private static Path write(Case c) throws SQLException, java.io.IOException {
        Path dir = Files.createDirectories(tmp.resolve(c.toString().replaceAll("[^a-z0-9]+", "_")));
        Path file = dir.resolve("part-0.parquet");
        try (Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT * FROM src ORDER BY k, i) TO '"
                            + file
                            + "' (FORMAT parquet, COMPRESSION "
                            + c.codec
                            + ", ROW_GROUP_SIZE "
                            + c.rowGroupRows
                            + ", PARQUET_VERSION "
                            + c.version
                            + ")");
        }
        return file;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void lookupsMatchDuckDb(Case c) throws Exception {
        Path file = write(c);
        TableConfig config = TableConfig.builder(file.toString()).sortKey(List.of("k")).build();
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
            NestedAnswers.compareLookups(duck, file, table, COLUMNS, new Random(c.hashCode()));
            // Projections of one nested column, and in another order.
            NestedAnswers.compareLookups(
                    duck, file, table, List.of("deep", "v", "nums"), new Random(7));
            NestedAnswers.compareLookups(duck, file, table, List.of("items"), new Random(8));
            // A whole scan (FULL cache) sees every row as DuckDB does.
            NestedAnswers.compareScan(duck, file, table, COLUMNS, COLUMNS);
        }
    }

    @Test
    void asynchronousLookupsOfARemoteLikeStoreMatch() throws Exception {
        Path file = write(new Case("zstd", 1000, "V2"));
        TableConfig config = TableConfig.builder(file.toString()).sortKey(List.of("k")).build();
        AsyncFileStore store =
                new AsyncFileStore(
                        HadoopFileStore.create(config.hadoopOptions(), config.mapLocalFiles()));
        try (DimensionTable table = DimensionTable.open(config, store)) {
            LookupPlan plan = table.plan(List.of("k"), COLUMNS);
            Random r = new Random(3);
            for (int n = 0; n < 40; n++) {
                long key = r.nextInt(4100);
                List<Object[]> sync = table.lookup(plan, new Object[] {key});
                List<Object[]> async =
                        table.lookupAsync(plan, new Object[] {key}, RequestLimiter.unbounded())
                                .get();
                assertThat(NestedAnswers.canonical(async))
                        .as("k = %d", key)
                        .isEqualTo(NestedAnswers.canonical(sync));
            }
        }
    }

    @Test
    void aNestedSortKeyIsRefused() throws Exception {
        Path file = write(new Case("zstd", 1000, "V1"));
        TableConfig config = TableConfig.builder(file.toString()).sortKey(List.of("addr")).build();
        assertThatThrownBy(() -> DimensionTable.open(config).close())
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("addr")
                .hasMessageContaining("nested");
    }

    @Test
    void typesOfNestedColumns() throws Exception {
        Path file = write(new Case("zstd", 1000, "V1"));
        TableConfig config = TableConfig.builder(file.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            ValueType deep =
                    table.columns().stream()
                            .filter(col -> col.name().equals("deep"))
                            .findFirst()
                            .orElseThrow()
                            .type();
            assertThat(deep.kind()).isEqualTo(ValueType.Kind.MAP);
            assertThat(deep.fields().get(1).type().fields())
                    .extracting(ValueType.Field::name)
                    .containsExactly("x", "y");
            assertThat(deep.isNested()).isTrue();
            assertThat(new ArrayList<>(table.columns()).get(0).type().isNested()).isFalse();
        }
    }
}
