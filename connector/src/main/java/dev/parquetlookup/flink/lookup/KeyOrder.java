package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.types.TimestampValue;

import java.math.BigDecimal;
import java.util.Arrays;

/**
 * Total order of key values in a serialisable form, the order the files are sorted in: numbers by
 * value, strings and binaries by unsigned bytes (UTF-8 byte order is code-point order), timestamps
 * by instant.
 *
 * <p>{@link #sortable} turns an engine value into {@code Long}, {@code Double}, {@code BigDecimal},
 * {@code byte[]} or {@code long[]{millis, nanos}}; {@link #compare} compares two such arrays of key
 * components lexicographically. Example: {@code compare(new Object[] {1L, "b".getBytes()}, new
 * Object[] {1L, "ab".getBytes()}) > 0}.
 */
public final class KeyOrder {

    private KeyOrder() {}

    /** An engine key value (see {@code ValueType}) in sortable form. */
    public static Object sortable(Object engineValue) {
        if (engineValue instanceof Integer i) {
            return (long) i;
        }
        if (engineValue instanceof Long || engineValue instanceof BigDecimal) {
            return engineValue;
        }
        if (engineValue instanceof byte[] bytes) {
            return bytes;
        }
        if (engineValue instanceof String s) {
            return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        if (engineValue instanceof TimestampValue t) {
            return new long[] {t.epochMillis(), t.nanoOfMillisecond()};
        }
        if (engineValue instanceof Boolean b) {
            return b ? 1L : 0L;
        }
        if (engineValue instanceof Float || engineValue instanceof Double) {
            return ((Number) engineValue).doubleValue();
        }
        throw new IllegalArgumentException(
                "unsupported key value " + engineValue + " (" + engineValue.getClass() + ")");
    }

    /** Sortable form of every component. */
    public static Object[] sortable(Object[] engineKey) {
        Object[] result = new Object[engineKey.length];
        for (int i = 0; i < result.length; i++) {
            result[i] = sortable(engineKey[i]);
        }
        return result;
    }

    /**
     * Compares two keys of sortable components; a key that is a prefix of the other sorts first.
     */
    public static int compare(Object[] a, Object[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            int c = compareComponent(a[i], b[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.length, b.length);
    }

    static int compareComponent(Object a, Object b) {
        if (a instanceof Long x) {
            return Long.compare(x, (Long) b);
        }
        if (a instanceof byte[] x) {
            return Arrays.compareUnsigned(x, (byte[]) b);
        }
        if (a instanceof BigDecimal x) {
            return x.compareTo((BigDecimal) b);
        }
        if (a instanceof long[] x) {
            long[] y = (long[]) b;
            int c = Long.compare(x[0], y[0]);
            return c != 0 ? c : Long.compare(x[1], y[1]);
        }
        if (a instanceof Double x) {
            return Double.compare(x, (Double) b);
        }
        throw new IllegalArgumentException("not a sortable key component: " + a);
    }
}
