package dev.parquetlookup.engine.lookup;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DuckDB's answers for nested columns, and one text form for them and the engine's values, so the
 * two compare: lists {@code [..]}, maps {@code map{k=v}}, structs {@code row{..}}, strings quoted,
 * NULL as {@code NULL}. A table's key column is {@code k} (BIGINT).
 */
final class NestedAnswers {

    private NestedAnswers() {}

    /** The text form of an engine value or a DuckDB JDBC value. */
    static String canonical(Object v) throws SQLException {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof byte[] b) {
            return "'" + new String(b, StandardCharsets.UTF_8) + "'";
        }
        if (v instanceof String s) {
            return "'" + s + "'";
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof Array a) {
            return list((Object[]) a.getArray());
        }
        if (v instanceof List<?> l) {
            return list(l.toArray());
        }
        if (v instanceof Struct s) {
            return "row" + list(s.getAttributes());
        }
        if (v instanceof Object[] row) {
            return "row" + list(row);
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("map{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(b.length() == 4 ? "" : ", ")
                        .append(canonical(e.getKey()))
                        .append('=')
                        .append(canonical(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (v instanceof Float f) {
            return Double.toString(f.doubleValue());
        }
        return v.toString();
    }

    private static String list(Object[] values) throws SQLException {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(canonical(values[i]));
        }
        return b.append(']').toString();
    }

    static List<String> canonical(List<Object[]> rows) throws SQLException {
        List<String> out = new ArrayList<>();
        for (Object[] row : rows) {
            out.add(list(row));
        }
        return out;
    }

    /** DuckDB's rows of {@code file} with key {@code k}, in file order. */
    static List<String> duckRows(Connection duck, Path file, List<String> columns, Long k)
            throws SQLException {
        String sql =
                "SELECT "
                        + String.join(", ", columns)
                        + " FROM read_parquet('"
                        + file
                        + "', file_row_number = true)"
                        + (k == null ? "" : " WHERE k = " + k)
                        + " ORDER BY file_row_number";
        List<String> out = new ArrayList<>();
        try (Statement st = duck.createStatement();
                ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                Object[] row = new Object[columns.size()];
                for (int i = 0; i < row.length; i++) {
                    row[i] = rs.getObject(i + 1);
                }
                out.add(list(row));
            }
        }
        return out;
    }

    /**
     * Looks up 100 keys (hits, misses between keys, both ends and past them) and compares each
     * answer with DuckDB's.
     */
    static void compareLookups(
            Connection duck, Path file, DimensionTable table, List<String> columns, Random r)
            throws Exception {
        compareLookups(duck, file, table, columns, columns, r);
    }

    /** Like the above, with DuckDB selecting {@code expressions} for the engine's columns. */
    static void compareLookups(
            Connection duck,
            Path file,
            DimensionTable table,
            List<String> columns,
            List<String> expressions,
            Random r)
            throws Exception {
        List<Long> keys = new ArrayList<>();
        try (PreparedStatement st =
                        duck.prepareStatement(
                                "SELECT min(k), max(k) FROM read_parquet('" + file + "')");
                ResultSet rs = st.executeQuery()) {
            rs.next();
            long min = rs.getLong(1);
            long max = rs.getLong(2);
            keys.add(min - 1);
            keys.add(min);
            keys.add(max);
            keys.add(max + 1);
            for (int n = 0; n < 96; n++) {
                keys.add(min + (long) r.nextInt((int) (max - min + 1)));
            }
        }
        LookupPlan plan = table.plan(List.of("k"), columns);
        int hits = 0;
        for (long k : keys) {
            List<String> expected = duckRows(duck, file, expressions, k);
            List<String> actual = canonical(table.lookup(plan, new Object[] {k}));
            assertThat(actual).as("k = %d, columns %s", k, columns).isEqualTo(expected);
            hits += expected.isEmpty() ? 0 : 1;
        }
        assertThat(hits).as("hits among %d keys", keys.size()).isBetween(30, keys.size() - 3);
    }

    /** Scans the whole table and compares every row with DuckDB's. */
    static void compareScan(
            Connection duck,
            Path file,
            DimensionTable table,
            List<String> columns,
            List<String> expressions)
            throws Exception {
        LookupPlan plan = table.plan(List.of("k"), columns);
        List<Object[]> rows = new ArrayList<>();
        table.scan(plan, rows::add);
        assertThat(canonical(rows)).isEqualTo(duckRows(duck, file, expressions, null));
    }
}
