package dev.parquetlookup.flink.table;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.ColumnSpec.DecimalStorage;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table beyond lookup joins, on a MiniCluster (2 TaskManagers x 2 slots): batch {@code SELECT}s
 * with projection, every Parquet type the engine reads mapped to its Flink SQL type (through the
 * scan and through lookups), and files written by DuckDB, which declare no sort order and have no
 * page index.
 */
class ParquetLookupTableITCase {

    private static final long SEED = 77L;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster();

    @TempDir static Path dir;

    private static TestDimension data;
    private static Path dimDir;
    private static Path typesFile;
    private static Path duckDir;

    @BeforeAll
    static void writeFiles() throws Exception {
        data = TestDimension.generate(SEED, 40, 0);
        dimDir = Files.createDirectory(dir.resolve("dim"));
        data.write(dimDir, 2);
        typesFile = dir.resolve("types.parquet");
        writeAllTypes(typesFile);
        duckDir = Files.createDirectory(dir.resolve("duck"));
        writeWithDuckDb(duckDir);
    }

    // ------------------------------------------------------------------ batch scans

    @Test
    void batchSelectReadsEveryRowInKeyOrderWithProjection() throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + TestDimension.DDL_COLUMNS
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + dimDir.toUri()
                        + "')");
        assertThat(SqlTestSupport.collect(tEnv, "SELECT * FROM dim"))
                .containsExactlyInAnyOrderElementsOf(
                        data.project(
                                List.of("name", "g", "v", "price", "ts", "d", "flag", "note")));
        // Projection push-down: only the two columns are read and returned.
        assertThat(SqlTestSupport.collect(tEnv, "SELECT note, g FROM dim"))
                .containsExactlyInAnyOrderElementsOf(data.project(List.of("note", "g")));
        assertThat(tEnv.explainSql("SELECT note, g FROM dim")).contains("project=[note, g]");
        // No column at all (the planner pushes an empty projection for COUNT(*)).
        assertThat(SqlTestSupport.collect(tEnv, "SELECT COUNT(*) FROM dim"))
                .containsExactly(Row.of((long) data.rows.size()));
    }

    // ------------------------------------------------------------------ every type

    private static final String TYPES_DDL =
            "CREATE TABLE types (k BIGINT, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, f FLOAT,"
                    + " db DOUBLE, d32 DECIMAL(9, 2), d64 DECIMAL(18, 4), dfix DECIMAL(30, 5),"
                    + " dbin DECIMAL(12, 3), s STRING, bin BYTES, dt DATE, tm TIME(3),"
                    + " tmu TIME(3), ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), ts9 TIMESTAMP(9),"
                    + " ts96 TIMESTAMP(9), ltz TIMESTAMP_LTZ(6)) WITH ('connector' ="
                    + " 'parquet-lookup', 'path' = '%s')";

    private static final List<ColumnSpec> TYPE_COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("b", ValueType.of(Kind.BOOLEAN)),
                    ColumnSpec.optional("ti", ValueType.of(Kind.TINYINT)),
                    ColumnSpec.optional("si", ValueType.of(Kind.SMALLINT)),
                    ColumnSpec.optional("i", ValueType.of(Kind.INT)),
                    ColumnSpec.optional("f", ValueType.of(Kind.FLOAT)),
                    ColumnSpec.optional("db", ValueType.of(Kind.DOUBLE)),
                    ColumnSpec.optional("d32", new ValueType(Kind.DECIMAL, 9, 2)),
                    ColumnSpec.optional("d64", new ValueType(Kind.DECIMAL, 18, 4)),
                    ColumnSpec.optional("dfix", new ValueType(Kind.DECIMAL, 30, 5)),
                    ColumnSpec.optional("dbin", new ValueType(Kind.DECIMAL, 12, 3))
                            .withDecimalStorage(DecimalStorage.BINARY),
                    ColumnSpec.optional("s", ValueType.of(Kind.STRING)),
                    ColumnSpec.optional("bin", ValueType.of(Kind.BINARY)),
                    ColumnSpec.optional("dt", ValueType.of(Kind.DATE)),
                    ColumnSpec.optional("tm", new ValueType(Kind.TIME, 3, 0)),
                    ColumnSpec.optional("tmu", new ValueType(Kind.TIME, 6, 0)),
                    ColumnSpec.optional("ts3", new ValueType(Kind.TIMESTAMP, 3, 0)),
                    ColumnSpec.optional("ts6", new ValueType(Kind.TIMESTAMP, 6, 0)),
                    ColumnSpec.optional("ts9", new ValueType(Kind.TIMESTAMP, 9, 0)),
                    ColumnSpec.optional("ts96", new ValueType(Kind.TIMESTAMP, 9, 0))
                            .withTimeUnit(TimeUnit.INT96),
                    ColumnSpec.optional("ltz", new ValueType(Kind.TIMESTAMP_LTZ, 6, 0)));

    /** Row {@code k} of the types file, as written (Java values the writer accepts). */
    private static Object[] typesRow(long k) {
        if (k % 5 == 4) {
            Object[] nulls = new Object[TYPE_COLUMNS.size()];
            nulls[0] = k;
            return nulls;
        }
        int i = (int) k;
        return new Object[] {
            k,
            i % 2 == 0,
            (byte) (i - 100),
            (short) (i * 300 - 20_000),
            i * 1_000_003,
            i / 8f,
            i * 1.5e10,
            BigDecimal.valueOf(i * 1234L - 5000, 2),
            BigDecimal.valueOf(i * 987_654_321L, 4),
            new BigDecimal("-123456789012345678901234.5").add(BigDecimal.valueOf(i)).setScale(5),
            BigDecimal.valueOf(i * 77_777L, 3),
            "str-" + i + "-ü",
            new byte[] {(byte) i, (byte) (255 - i), 0},
            LocalDate.of(1969, 12, 31).plusDays(i * 37L),
            LocalTime.of(23, 59, 58, 123_000_000).minusMinutes(i),
            LocalTime.of(1, 2, 3, 456_789_000).plusSeconds(i),
            LocalDateTime.of(2020, 2, 29, 12, 0, 0, 7_000_000).plusHours(i),
            LocalDateTime.of(1950, 6, 1, 0, 0, 0, 123_456_000).plusDays(i),
            LocalDateTime.of(2262, 1, 1, 0, 0, 0, 123_456_789).minusDays(i),
            LocalDateTime.of(2001, 9, 9, 1, 46, 40, 999_999_999).plusMinutes(i),
            Instant.parse("2024-03-10T02:30:00.654321Z").plusSeconds(i * 3600L)
        };
    }

    /** The same row as Flink returns it for the declared SQL types. */
    private static Row expectedTypesRow(long k) {
        Object[] v = typesRow(k);
        if (v[1] == null) {
            return Row.of(v);
        }
        Object[] e = v.clone();
        e[15] = ((LocalTime) v[15]).withNano(456_000_000); // TIME: Flink keeps milliseconds
        return Row.of(e);
    }

    private static void writeAllTypes(Path file) throws Exception {
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        TYPE_COLUMNS,
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(3).build())) {
            for (long k = 0; k < 30; k++) {
                Object[] row = typesRow(k);
                if (row[2] != null) {
                    row[2] = (int) (Byte) row[2];
                    row[3] = (int) (Short) row[3];
                }
                writer.write(row);
            }
        }
    }

    @Test
    void everyTypeMapsToItsSqlTypeInScans() throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql(String.format(TYPES_DDL, typesFile.toUri()));
        List<Row> expected = new ArrayList<>();
        for (long k = 0; k < 30; k++) {
            expected.add(expectedTypesRow(k));
        }
        assertRowsEqual(SqlTestSupport.collect(tEnv, "SELECT * FROM types"), expected);
    }

    @Test
    void everyTypeMapsToItsSqlTypeInLookups() throws Exception {
        List<Row> events = new ArrayList<>();
        List<Row> expected = new ArrayList<>();
        for (long eid = 0; eid < 40; eid++) {
            long k = eid % 35; // 30..34 miss
            events.add(Row.of(eid, k));
            if (k < 30) {
                Row row = expectedTypesRow(k);
                Object[] fields = new Object[row.getArity()];
                fields[0] = eid;
                for (int i = 1; i < fields.length; i++) {
                    fields[i] = row.getField(i);
                }
                expected.add(Row.of(fields));
            }
        }
        StreamTableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "k"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(String.format(TYPES_DDL, typesFile.toUri()));
        List<Row> actual =
                SqlTestSupport.collect(
                        tEnv,
                        "SELECT e.eid, t.b, t.ti, t.si, t.i, t.f, t.db, t.d32, t.d64, t.dfix,"
                                + " t.dbin, t.s, t.bin, t.dt, t.tm, t.tmu, t.ts3, t.ts6, t.ts9,"
                                + " t.ts96, t.ltz FROM events AS e JOIN types FOR SYSTEM_TIME AS"
                                + " OF e.proc AS t ON e.k = t.k");
        assertRowsEqual(actual, expected);
    }

    /** Row equality with byte[] fields compared by content, reported field by field. */
    private static void assertRowsEqual(List<Row> actual, List<Row> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        List<String> a = new ArrayList<>();
        List<String> e = new ArrayList<>();
        for (Row r : actual) {
            a.add(render(r));
        }
        for (Row r : expected) {
            e.add(render(r));
        }
        assertThat(a).containsExactlyInAnyOrderElementsOf(e);
    }

    private static String render(Row row) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < row.getArity(); i++) {
            Object f = row.getField(i);
            sb.append(i == 0 ? "" : ", ");
            if (f instanceof byte[] bytes) {
                sb.append(java.util.Arrays.toString(bytes));
            } else {
                sb.append(f == null ? "null" : f + ":" + f.getClass().getSimpleName());
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ DuckDB files

    private static final int DUCK_ROWS = 3000;

    /** Rows {@code i} with {@code i % 11 != 5}: k = i / 3 (non-unique), in two files. */
    private static void writeWithDuckDb(Path target) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            int half = DUCK_ROWS / 2;
            for (int part = 0; part < 2; part++) {
                st.execute(
                        String.format(
                                "COPY (SELECT CAST(i // 3 AS BIGINT) AS k, 'name-' || i AS s,"
                                        + " CAST(i * 1.25 AS DECIMAL(10, 2)) AS amount,"
                                        + " TIMESTAMP '2024-01-01 00:00:00' + to_seconds(i) AS t,"
                                        + " DATE '2020-01-01' + CAST(i %% 400 AS INTEGER) AS dt,"
                                        + " CASE WHEN i %% 7 = 0 THEN NULL ELSE 'x' || i END AS"
                                        + " opt FROM range(%d, %d) r(i) WHERE i %% 11 <> 5 ORDER BY"
                                        + " k, s) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE 256)",
                                part * half,
                                (part + 1) * half,
                                target.resolve("duck-" + part + ".parquet")));
            }
        }
    }

    private static List<Row> duckRows(long k) {
        List<Row> rows = new ArrayList<>();
        for (long i = 3 * k; i < 3 * k + 3 && i < DUCK_ROWS; i++) {
            if (i % 11 == 5) {
                continue;
            }
            rows.add(
                    Row.of(
                            k,
                            "name-" + i,
                            BigDecimal.valueOf(i * 125, 2),
                            LocalDateTime.of(2024, 1, 1, 0, 0).plusSeconds(i),
                            LocalDate.of(2020, 1, 1).plusDays(i % 400),
                            i % 7 == 0 ? null : "x" + i));
        }
        return rows;
    }

    @Test
    void lookupJoinOnDuckDbFilesWithTheSortKeyOption() throws Exception {
        Random random = new Random(SEED);
        List<Row> events = new ArrayList<>();
        List<Row> expected = new ArrayList<>();
        for (long eid = 0; eid < 200; eid++) {
            Long k = random.nextInt(30) == 0 ? null : (long) random.nextInt(DUCK_ROWS / 3 + 20);
            events.add(Row.of(eid, k));
            List<Row> matches = k == null ? List.of() : duckRows(k);
            if (matches.isEmpty()) {
                expected.add(Row.of(eid, null, null, null, null, null));
            }
            for (Row m : matches) {
                expected.add(
                        Row.of(
                                eid,
                                m.getField(1),
                                m.getField(2),
                                m.getField(3),
                                m.getField(4),
                                m.getField(5)));
            }
        }
        StreamTableEnvironment tEnv =
                SqlTestSupport.streamingWithEvents(
                        events,
                        new String[] {"eid", "k"},
                        new TypeInformation<?>[] {Types.LONG, Types.LONG});
        tEnv.executeSql(
                "CREATE TABLE duck (k BIGINT, s STRING, amount DECIMAL(10, 2), t TIMESTAMP(6),"
                        + " dt DATE, opt STRING) WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + duckDir.toUri()
                        + "', 'sort-key' = 'k')");
        List<Row> actual =
                SqlTestSupport.collect(
                        tEnv,
                        "SELECT e.eid, d.s, d.amount, d.t, d.dt, d.opt FROM events AS e"
                                + " LEFT JOIN duck FOR SYSTEM_TIME AS OF e.proc AS d ON e.k = d.k");
        assertThat(actual).as("seed %d", SEED).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void batchSelectOnDuckDbFiles() throws Exception {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        tEnv.executeSql(
                "CREATE TABLE duck (k BIGINT, s STRING, amount DECIMAL(10, 2), t TIMESTAMP(6),"
                        + " dt DATE, opt STRING) WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + duckDir.toUri()
                        + "', 'sort-key' = 'k')");
        List<Row> expected = new ArrayList<>();
        for (long k = 0; k < DUCK_ROWS / 3; k++) {
            for (Row r : duckRows(k)) {
                expected.add(Row.of(r.getField(0), r.getField(1)));
            }
        }
        assertThat(SqlTestSupport.collect(tEnv, "SELECT k, s FROM duck"))
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(expected).hasSize(DUCK_ROWS - DUCK_ROWS / 11 - 1);
    }
}
