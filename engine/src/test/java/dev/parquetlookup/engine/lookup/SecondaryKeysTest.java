package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshResult;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.types.TimestampValue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Lookups on columns that are not a prefix of the sort key (secondary keys), served through a key
 * index per file on those columns: a table of two DuckDB files sorted by {@code id} (several row
 * groups each, no page index), looked up by a non-unique STRING (with NULLs), INT, BIGINT, DECIMAL
 * stored as INT64 and as FIXED_LEN_BYTE_ARRAY, DATE and TIMESTAMP column, and by a composite key.
 * Every answer is compared with DuckDB's own query over the same files: for a key taken from row
 * {@code a}, the ids of every row {@code b} with {@code b.col = a.col} (SQL equality: a NULL never
 * matches). Index builds are counted through the JVM's {@link KeyIndexes}.
 */
class SecondaryKeysTest {

    private static final String ROWS =
            "SELECT i AS id,"
                    + " CASE WHEN i % 50 = 0 THEN NULL ELSE 'user' || (i % 7000) || '@example.org'"
                    + " END AS email,"
                    + " (['DE', 'FR', 'US', 'JP'])[1 + i % 4] AS country,"
                    + " CAST(CASE WHEN i % 31 = 0 THEN NULL ELSE i % 13 END AS INTEGER) AS n,"
                    + " CAST(hash(i) % 5000 AS BIGINT) AS code,"
                    + " CAST((i % 997) / 4.0 AS DECIMAL(12, 2)) AS amount,"
                    + " CAST(i % 991 AS DECIMAL(20, 2)) AS big_amount,"
                    + " DATE '2020-01-01' + CAST(i % 365 AS INTEGER) AS d,"
                    + " TIMESTAMP '2024-01-01 00:00:00' + to_seconds(i % 5000) AS ts,"
                    + " 'v' || i AS v";

    private static final List<String> KEYS =
            List.of("email", "n", "code", "amount", "big_amount", "d", "ts");

    @TempDir static Path tmp;

    private static Path dir;
    private static List<Object[]> rows;

    @BeforeAll
    static void writeTable() throws Exception {
        dir = Files.createDirectories(tmp.resolve("table"));
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute("SET threads = 1");
            st.execute(
                    "COPY ("
                            + ROWS
                            + " FROM range(0, 12000) t(i) ORDER BY i) TO '"
                            + dir.resolve("a.parquet")
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
            st.execute(
                    "COPY ("
                            + ROWS
                            + " FROM range(12000, 20000) t(i) ORDER BY i) TO '"
                            + dir.resolve("b.parquet")
                            + "' (FORMAT parquet, ROW_GROUP_SIZE 2048)");
        }
        rows = new ArrayList<>();
        try (DimensionTable table = DimensionTable.open(config().build())) {
            List<String> all = new ArrayList<>(List.of("id"));
            all.addAll(KEYS);
            all.add("country");
            table.scan(table.plan(List.of("id"), all), rows::add);
        }
        assertThat(rows).hasSize(20_000);
    }

    private static TableConfig.Builder config() {
        return TableConfig.builder(dir.toString())
                .sortKey(List.of("id"))
                .metadataCache(new MetadataCache(16 << 20))
                .indexDirectory(tmp.resolve("indexes"));
    }

    private static KeyIndexes.Statistics stats() {
        return KeyIndexes.shared().statistics();
    }

    /** DuckDB's ids of the rows whose {@code columns} equal those of the row with id {@code id}. */
    private static List<Long> expected(Connection duck, List<String> columns, long id)
            throws Exception {
        StringBuilder on = new StringBuilder();
        for (String c : columns) {
            on.append(on.length() == 0 ? "" : " AND ")
                    .append("a.")
                    .append(c)
                    .append(" = b.")
                    .append(c);
        }
        String files = "read_parquet('" + dir + "/*.parquet')";
        try (PreparedStatement q =
                duck.prepareStatement(
                        "SELECT b.id FROM "
                                + files
                                + " a JOIN "
                                + files
                                + " b ON "
                                + on
                                + " WHERE a.id = ? ORDER BY b.id")) {
            q.setLong(1, id);
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        }
    }

    private static List<Long> ids(List<Object[]> found) {
        return found.stream().map(r -> (Long) r[0]).sorted().toList();
    }

    private static int position(String column) {
        return column.equals("country") ? KEYS.size() + 1 : KEYS.indexOf(column) + 1;
    }

    @Test
    void everyKeyTypeAndACompositeKeyAnswerAsDuckDbDoes() throws Exception {
        long indexes = stats().filesIndexed() + stats().indexesReused();
        Random random = new Random(27);
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                DimensionTable table = DimensionTable.open(config().build())) {
            RequestLimiter limiter = new RequestLimiter(16);
            List<List<String>> keys = new ArrayList<>();
            for (String k : KEYS) {
                keys.add(List.of(k));
            }
            keys.add(List.of("country", "n")); // composite, in an order other than the file's
            for (List<String> key : keys) {
                LookupPlan plan = table.plan(key, List.of("id", "v"));
                assertThat(plan.secondary()).isTrue();
                for (int n = 0; n < 40; n++) {
                    Object[] row = rows.get(random.nextInt(rows.size()));
                    Object[] value = new Object[key.size()];
                    for (int i = 0; i < key.size(); i++) {
                        value[i] = row[position(key.get(i))];
                    }
                    long id = (Long) row[0];
                    List<Long> want = expected(duck, key, id);
                    boolean hasNull = java.util.Arrays.asList(value).contains(null);
                    assertThat(want.isEmpty()).as("%s of id %d", key, id).isEqualTo(hasNull);
                    assertThat(ids(table.lookup(plan, value)))
                            .as("%s of id %d", key, id)
                            .isEqualTo(want);
                    assertThat(ids(table.lookupAsync(plan, value, limiter).join()))
                            .as("async %s of id %d", key, id)
                            .isEqualTo(want);
                }
            }
            // Non-unique: an e-mail address shared by ids i and i + 7000 (and 14000).
            LookupPlan byEmail = table.plan(List.of("email"), List.of("id", "v"));
            assertThat(ids(table.lookup(byEmail, new Object[] {"user7@example.org"})))
                    .containsExactly(7L, 7007L, 14007L);
            // Keys no row has, and NULL keys, match nothing.
            Map<String, Object> absent =
                    Map.of(
                            "email",
                            "nobody@example.org",
                            "n",
                            99,
                            "code",
                            -1L,
                            "amount",
                            new BigDecimal("0.001"),
                            "big_amount",
                            new BigDecimal("5000.00"),
                            "d",
                            30_000,
                            "ts",
                            new TimestampValue(1, 1));
            for (Map.Entry<String, Object> e : absent.entrySet()) {
                LookupPlan plan = table.plan(List.of(e.getKey()), List.of("id"));
                assertThat(table.lookup(plan, new Object[] {e.getValue()}))
                        .as(e.getKey())
                        .isEmpty();
                assertThat(table.lookup(plan, new Object[] {null})).as(e.getKey()).isEmpty();
            }
            LookupPlan composite = table.plan(List.of("country", "n"), List.of("id"));
            assertThat(table.lookup(composite, new Object[] {"DE", null})).isEmpty();
            assertThat(table.lookup(composite, new Object[] {"XX", 3})).isEmpty();
            // The sort key keeps the sorted path.
            LookupPlan byId = table.plan(List.of("id"), List.of("id", "v"));
            assertThat(byId.secondary()).isFalse();
            assertThat(ids(table.lookup(byId, new Object[] {42L}))).containsExactly(42L);
        }
        // One index per file and key column set (built, or reused from an earlier test).
        assertThat(stats().filesIndexed() + stats().indexesReused() - indexes)
                .isEqualTo(2L * (KEYS.size() + 1));
    }

    @Test
    void anUnchangedFileKeepsItsIndexAcrossTablesAndRefreshes() throws IOException {
        try (DimensionTable table = DimensionTable.open(config().build())) {
            table.plan(List.of("email"), List.of("id"));
            table.lookup(table.plan(List.of("email"), List.of("id")), new Object[] {"x"});
        }
        long builds = stats().filesIndexed();
        long reused = stats().indexesReused();
        for (int open = 0; open < 2; open++) {
            try (DimensionTable table = DimensionTable.open(config().build())) {
                LookupPlan plan = table.plan(List.of("email"), List.of("id"));
                assertThat(ids(table.lookup(plan, new Object[] {"user8@example.org"})))
                        .containsExactly(8L, 7008L, 14008L);
            }
        }
        assertThat(stats().filesIndexed() - builds).isZero();
        assertThat(stats().indexesReused() - reused).isEqualTo(4);
    }

    @Test
    void aRefreshIndexesOnlyTheNewFileBeforeItsFirstLookup() throws Exception {
        Path refreshed = Files.createDirectories(tmp.resolve("refreshed"));
        Files.copy(dir.resolve("a.parquet"), refreshed.resolve("a.parquet"));
        TableConfig config =
                TableConfig.builder(refreshed.toString())
                        .sortKey(List.of("id"))
                        .metadataCache(new MetadataCache(16 << 20))
                        .indexDirectory(tmp.resolve("indexes"))
                        .build();
        long builds = stats().filesIndexed();
        try (RefreshingTable table = RefreshingTable.open(config, RefreshOptions.defaults())) {
            LookupPlan plan = table.plan(List.of("email"), List.of("id"));
            assertThat(ids(table.lookup(plan, new Object[] {"user9@example.org"})))
                    .containsExactly(9L, 7009L);
            assertThat(stats().filesIndexed() - builds).isEqualTo(1);
            Files.copy(dir.resolve("b.parquet"), refreshed.resolve("b.parquet"));
            assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
            assertThat(ids(table.lookup(plan, new Object[] {"user9@example.org"})))
                    .containsExactly(9L, 7009L, 14009L);
        }
        // The unchanged file kept its index; only the new one was built.
        assertThat(stats().filesIndexed() - builds).isEqualTo(2);
    }

    @Test
    void deletedRowsApply() throws IOException {
        HadoopFileStore store = HadoopFileStore.create(Map.of());
        FileId a =
                store.list(dir.toString()).stream()
                        .filter(f -> f.path().endsWith("a.parquet"))
                        .findFirst()
                        .orElseThrow();
        Random random = new Random(28);
        // File a: row position = id.
        TreeSet<Long> deleted = DeletedRowsTest.randomPositions(random, 4000, 12_000);
        try (DimensionTable table =
                DeletedRowsTest.openWithDeleted(config().build(), store, a, deleted)) {
            LookupPlan plan = table.plan(List.of("code"), List.of("id"));
            for (int n = 0; n < 200; n++) {
                Object code = rows.get(random.nextInt(rows.size()))[position("code")];
                List<Long> want = new ArrayList<>();
                for (Object[] row : rows) {
                    long id = (Long) row[0];
                    if (code.equals(row[position("code")]) && !deleted.contains(id)) {
                        want.add(id);
                    }
                }
                assertThat(ids(table.lookup(plan, new Object[] {code})))
                        .as("code %s", code)
                        .isEqualTo(want);
            }
        }
    }

    @Test
    void columnsThatCannotBeKeysAreRefusedAtPlanning() throws Exception {
        Path file = tmp.resolve("doubles.parquet");
        try (Connection duck = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = duck.createStatement()) {
            st.execute(
                    "COPY (SELECT i AS id, i / 3.0 AS x FROM range(100) t(i)) TO '"
                            + file
                            + "' (FORMAT parquet)");
        }
        try (DimensionTable table =
                DimensionTable.open(
                        TableConfig.builder(file.toString())
                                .sortKey(List.of("id"))
                                .indexDirectory(tmp.resolve("indexes"))
                                .build())) {
            assertThatThrownBy(() -> table.plan(List.of("x"), List.of("id")))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining("cannot be a lookup key");
            assertThatThrownBy(() -> table.plan(List.of("nope"), List.of("id")))
                    .isInstanceOf(LookupFileException.class)
                    .hasMessageContaining("does not exist");
        }
    }
}
