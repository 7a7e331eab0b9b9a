package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.testing.Values;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

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
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Parquet written by another writer: DuckDB (no page index, no {@code sorting_columns}, its own
 * encodings and page layout). Every lookup is checked against DuckDB's own answer to {@code SELECT
 * ... WHERE k = ?} on the same file, hits and misses, rows in file order.
 */
class DuckDbInteropTest {

    /** Value columns (besides the key {@code k} and the row number {@code i}) and their SQL. */
    private static final String SOURCE =
            """
            CREATE TABLE src AS SELECT
              i::BIGINT AS i,
              (hash(i) % 4000)::BIGINT * 2 AS k_bigint,
              (hash(i) % 4000)::INTEGER * 2 - 4000 AS k_integer,
              CASE WHEN i % 5 = 0 THEN 'ключ-' ELSE 'key-' END
                  || lpad(((hash(i) % 3000) * 2)::VARCHAR, 5, '0') AS k_varchar,
              DATE '1960-01-01' + ((hash(i) % 3000) * 2)::INTEGER AS k_date,
              TIMESTAMP '1969-12-31 00:00:00'
                  + to_microseconds(((hash(i) % 3000) * 2000002)::BIGINT) AS k_timestamp,
              (((hash(i) % 3000)::INTEGER * 2 - 3000) * 0.125)::DECIMAL(18,3) AS k_decimal,
              CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7 % 1000)::INTEGER - 500 END AS v_int,
              CASE WHEN i % 13 = 0 THEN NULL ELSE 'näme-' || i END AS v_varchar,
              CASE WHEN i % 17 = 0 THEN NULL
                   ELSE DATE '2000-01-01' + (i % 5000)::INTEGER - 2500 END AS v_date,
              CASE WHEN i % 19 = 0 THEN NULL
                   ELSE TIMESTAMP '1969-12-31 23:59:58.999999' + to_microseconds(i * 1234567)
                   END AS v_timestamp,
              CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 1.234 - 9999)::DECIMAL(18,3) END AS v_decimal,
              CASE WHEN i % 29 = 0 THEN NULL ELSE (i / 7.0)::DOUBLE END AS v_double,
              CASE WHEN i % 31 = 0 THEN NULL ELSE i % 3 = 0 END AS v_boolean,
              CASE WHEN i % 37 = 0 THEN NULL ELSE encode('b' || i) END AS v_blob
            FROM range(20000) t(i)
            """;

    private static final List<String> COLUMNS =
            List.of(
                    "k",
                    "i",
                    "v_int",
                    "v_varchar",
                    "v_date",
                    "v_timestamp",
                    "v_decimal",
                    "v_double",
                    "v_boolean",
                    "v_blob");

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

    /** One DuckDB-written table: key column, codec, row-group size, Parquet version, files. */
    record Case(
            String keyType,
            String codec,
            int rowGroupRows,
            String parquetVersion,
            int files,
            String nullKeys) {

        Case(String keyType, String codec, int rowGroupRows, String parquetVersion, int files) {
            this(keyType, codec, rowGroupRows, parquetVersion, files, "");
        }

        @Override
        public String toString() {
            return keyType
                    + " "
                    + codec
                    + " rg="
                    + rowGroupRows
                    + " "
                    + parquetVersion
                    + " files="
                    + files
                    + (nullKeys.isEmpty() ? "" : " nulls " + nullKeys);
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("bigint", "zstd", 2048, "V1", 1),
                new Case("integer", "snappy", 122_880, "V1", 1),
                new Case("varchar", "uncompressed", 4096, "V1", 1),
                new Case("date", "zstd", 2048, "V1", 1),
                new Case("timestamp", "snappy", 2048, "V1", 1),
                new Case("decimal", "zstd", 8192, "V1", 1),
                new Case("bigint", "snappy", 2048, "V2", 1),
                new Case("varchar", "zstd", 2048, "V2", 1),
                new Case("bigint", "zstd", 2048, "V1", 3),
                // Null keys (every 50th row, and a whole first row group) sorted last or first.
                new Case("bigint", "snappy", 2048, "V1", 1, "LAST"),
                new Case("varchar", "zstd", 2048, "V1", 1, "FIRST"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void lookupsMatchDuckDb(Case c) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(c.toString().replaceAll("[^a-z0-9]+", "_")));
        List<String> files = new ArrayList<>();
        for (int f = 0; f < c.files; f++) {
            Path file = dir.resolve("part-" + f + ".parquet");
            // Several files: rows dealt by i, so every file spans the whole key range.
            String where = c.files == 1 ? "" : " WHERE i % " + c.files + " = " + f;
            try (Statement st = duck.createStatement()) {
                st.execute(
                        "COPY (SELECT "
                                + keyExpression(c)
                                + " AS k, * EXCLUDE (k_bigint, k_integer, k_varchar, k_date,"
                                + " k_timestamp, k_decimal) FROM src"
                                + where
                                + " ORDER BY k"
                                + (c.nullKeys.isEmpty() ? "" : " NULLS " + c.nullKeys)
                                + ", i) TO '"
                                + file
                                + "' (FORMAT parquet, COMPRESSION "
                                + c.codec
                                + ", ROW_GROUP_SIZE "
                                + c.rowGroupRows
                                + ", PARQUET_VERSION "
                                + c.parquetVersion
                                + ")");
            }
            files.add(file.toString());
        }
        String source =
                "read_parquet(["
                        + String.join(", ", files.stream().map(p -> "'" + p + "'").toList())
                        + "], filename = true, file_row_number = true)";

        List<Object> keys = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs =
                        st.executeQuery(
                                "SELECT DISTINCT k FROM "
                                        + source
                                        + " WHERE k IS NOT NULL ORDER BY k")) {
            while (rs.next()) {
                keys.add(duckKey(c.keyType, rs));
            }
        }
        assertThat(keys).hasSizeGreaterThan(100);

        Random r = new Random(c.toString().hashCode());
        List<Object> probes = new ArrayList<>();
        probes.add(step(c.keyType, keys.get(0), -1));
        probes.add(keys.get(0));
        probes.add(keys.get(keys.size() - 1));
        probes.add(step(c.keyType, keys.get(keys.size() - 1), 1));
        for (int n = 0; n < 40; n++) {
            Object k = keys.get(r.nextInt(keys.size()));
            probes.add(k);
            probes.add(step(c.keyType, k, r.nextBoolean() ? 1 : -1));
        }
        // DuckDB's answers first: each row with the file it came from.
        List<List<Object[]>> answers = new ArrayList<>();
        List<List<String>> answerFiles = new ArrayList<>();
        try (PreparedStatement query =
                duck.prepareStatement(
                        "SELECT "
                                + String.join(", ", COLUMNS)
                                + ", filename FROM "
                                + source
                                + " WHERE k = CAST(? AS "
                                + sqlType(c.keyType)
                                + ") ORDER BY filename, file_row_number")) {
            for (Object key : probes) {
                query.setString(1, key.toString());
                List<Object[]> rows = new ArrayList<>();
                List<String> rowFiles = new ArrayList<>();
                try (ResultSet rs = query.executeQuery()) {
                    while (rs.next()) {
                        rows.add(duckRow(c.keyType, rs));
                        rowFiles.add(rs.getString("filename"));
                    }
                }
                answers.add(rows);
                answerFiles.add(rowFiles);
            }
        }
        long hits = answers.stream().filter(a -> !a.isEmpty()).count();
        assertThat(hits)
                .as("hits among %d probes", probes.size())
                .isBetween(40L, probes.size() - 2L);

        TableConfig config = TableConfig.builder(dir.toString()).sortKey(List.of("k")).build();
        try (DimensionTable table = DimensionTable.open(config)) {
            List<String> fileOrder = table.files().stream().map(f -> f.path()).toList();
            LookupPlan plan = table.plan(List.of("k"), COLUMNS);
            for (int p = 0; p < probes.size(); p++) {
                Object key = probes.get(p);
                List<Object[]> expected =
                        inEngineFileOrder(answers.get(p), answerFiles.get(p), fileOrder);
                List<Object[]> actual = table.lookup(plan, new Object[] {engineKey(key)});
                if (!Values.rowListsEqual(expected, actual)) {
                    throw new AssertionError(
                            c
                                    + ": lookup of k = "
                                    + key
                                    + "\n  DuckDB "
                                    + Values.describe(expected, 8)
                                    + "\n  engine "
                                    + Values.describe(actual, 8));
                }
            }
        }
    }

    /**
     * DuckDB's rows grouped by file in the engine's file order (each file's rows in file order).
     */
    private static List<Object[]> inEngineFileOrder(
            List<Object[]> rows, List<String> rowFiles, List<String> engineFiles) {
        List<Object[]> out = new ArrayList<>();
        for (String engineFile : engineFiles) {
            for (int i = 0; i < rows.size(); i++) {
                if (engineFile.endsWith(rowFiles.get(i))) {
                    out.add(rows.get(i));
                }
            }
        }
        assertThat(out)
                .as("every DuckDB row's file is one of the engine's %s", engineFiles)
                .hasSameSizeAs(rows);
        return out;
    }

    /** The key column: nulls in every 50th row and in the 2,100 rows with the lowest i. */
    private static String keyExpression(Case c) {
        return c.nullKeys.isEmpty()
                ? "k_" + c.keyType
                : "CASE WHEN i % 50 = 0 OR i < 2100 THEN NULL ELSE k_" + c.keyType + " END";
    }

    private static String sqlType(String keyType) {
        return keyType.equals("decimal") ? "DECIMAL(18,3)" : keyType.toUpperCase();
    }

    private static Object duckKey(String keyType, ResultSet rs) throws SQLException {
        return switch (keyType) {
            case "bigint" -> rs.getLong(1);
            case "integer" -> rs.getInt(1);
            case "varchar" -> rs.getString(1);
            case "date" -> rs.getObject(1, LocalDate.class);
            case "timestamp" -> rs.getObject(1, LocalDateTime.class);
            case "decimal" -> rs.getBigDecimal(1).setScale(3);
            default -> throw new IllegalArgumentException(keyType);
        };
    }

    /**
     * A key next to {@code k}: keys are even numbers (or end in an even digit), so odd ones miss.
     */
    private static Object step(String keyType, Object k, int dir) {
        return switch (keyType) {
            case "bigint" -> (Long) k + dir;
            case "integer" -> (Integer) k + dir;
            case "varchar" ->
                    dir > 0 ? k + "!" : ((String) k).substring(0, ((String) k).length() - 1);
            case "date" -> ((LocalDate) k).plusDays(dir);
            case "timestamp" -> ((LocalDateTime) k).plusNanos(dir * 1000L);
            case "decimal" -> ((BigDecimal) k).add(new BigDecimal(dir).movePointLeft(3));
            default -> throw new IllegalArgumentException(keyType);
        };
    }

    private static Object engineKey(Object k) {
        if (k instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        if (k instanceof LocalDate d) {
            return (int) d.toEpochDay();
        }
        if (k instanceof LocalDateTime t) {
            return timestamp(t);
        }
        return k;
    }

    private static TimestampValue timestamp(LocalDateTime t) {
        long seconds = t.toEpochSecond(ZoneOffset.UTC);
        return new TimestampValue(
                seconds * 1000 + t.getNano() / 1_000_000, t.getNano() % 1_000_000);
    }

    /** One DuckDB row in the engine's representation (see {@link ValueType}). */
    private static Object[] duckRow(String keyType, ResultSet rs) throws SQLException {
        Object[] row = new Object[COLUMNS.size()];
        row[0] = engineKey(duckKey(keyType, rs));
        row[1] = rs.getLong("i");
        int vInt = rs.getInt("v_int");
        row[2] = rs.wasNull() ? null : vInt;
        String s = rs.getString("v_varchar");
        row[3] = s == null ? null : s.getBytes(StandardCharsets.UTF_8);
        LocalDate d = rs.getObject("v_date", LocalDate.class);
        row[4] = d == null ? null : (int) d.toEpochDay();
        LocalDateTime ts = rs.getObject("v_timestamp", LocalDateTime.class);
        row[5] = ts == null ? null : timestamp(ts);
        BigDecimal dec = rs.getBigDecimal("v_decimal");
        row[6] = dec == null ? null : dec.setScale(3);
        double dbl = rs.getDouble("v_double");
        row[7] = rs.wasNull() ? null : dbl;
        boolean b = rs.getBoolean("v_boolean");
        row[8] = rs.wasNull() ? null : b;
        row[9] = rs.getBytes("v_blob");
        return row;
    }
}
