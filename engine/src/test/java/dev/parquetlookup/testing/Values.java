package dev.parquetlookup.testing;

import dev.parquetlookup.types.TimestampValue;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Comparison, equality and printing of values in the engine's Java representation (see {@link
 * dev.parquetlookup.types.ValueType}): {@code byte[]} by content, everything else by {@code equals}
 * (so {@code NaN} equals {@code NaN}, {@code -0.0} differs from {@code 0.0}, and a {@link
 * BigDecimal} must carry the column's scale).
 */
public final class Values {

    private Values() {}

    /** Exact equality of two values, {@code byte[]} by content. */
    public static boolean equal(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return Arrays.equals(x, y);
        }
        if (a == null || b == null) {
            return a == b;
        }
        return a.getClass() == b.getClass() && a.equals(b);
    }

    /** Exact equality of two rows. */
    public static boolean rowsEqual(Object[] a, Object[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (!equal(a[i], b[i])) {
                return false;
            }
        }
        return true;
    }

    /** Exact equality of two row lists, order included. */
    public static boolean rowListsEqual(List<Object[]> a, List<Object[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!rowsEqual(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sort order of key values as Parquet orders them: signed integers, unsigned lexicographic
     * bytes for STRING and BINARY, numeric order for DECIMAL and timestamps; nulls first.
     */
    public static int compareKey(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a instanceof Integer x) {
            return Integer.compare(x, (Integer) b);
        }
        if (a instanceof Long x) {
            return Long.compare(x, (Long) b);
        }
        if (a instanceof byte[] x) {
            return Arrays.compareUnsigned(x, (byte[]) b);
        }
        if (a instanceof BigDecimal x) {
            return x.compareTo((BigDecimal) b);
        }
        if (a instanceof TimestampValue x) {
            return x.compareTo((TimestampValue) b);
        }
        throw new IllegalArgumentException("not a key value: " + describe(a));
    }

    /** Compares two key tuples component by component. */
    public static int compareKeys(Object[] a, Object[] b) {
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            int c = compareKey(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }

    /** Orders rows by the key columns at {@code keyIndexes}. */
    public static java.util.Comparator<Object[]> rowKeyOrder(int[] keyIndexes) {
        return (a, b) -> {
            for (int k : keyIndexes) {
                int c = compareKey(a[k], b[k]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        };
    }

    /** A readable form for failure messages: strings as text, binary as hex, types shown. */
    public static String describe(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            boolean printable =
                    Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes)
                            && text.chars().allMatch(c -> c >= 0x20 && c != 0x7f);
            return printable
                    ? "\"" + text + "\""
                    : "0x" + HexFormat.of().formatHex(bytes) + "(" + bytes.length + "B)";
        }
        if (v instanceof Float || v instanceof Double) {
            return v + (v instanceof Float ? "f" : "d");
        }
        if (v instanceof Long) {
            return v + "L";
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString() + "bd";
        }
        return v.toString();
    }

    /** A row for failure messages. */
    public static String describe(Object[] row) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < row.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(describe(row[i]));
        }
        return sb.append(']').toString();
    }

    /** Rows for failure messages, at most {@code limit} of them. */
    public static String describe(List<Object[]> rows, int limit) {
        StringBuilder sb = new StringBuilder(rows.size() + " rows");
        for (int i = 0; i < Math.min(limit, rows.size()); i++) {
            sb.append("\n    ").append(describe(rows.get(i)));
        }
        if (rows.size() > limit) {
            sb.append("\n    ...");
        }
        return sb.toString();
    }
}
