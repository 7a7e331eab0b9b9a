package dev.parquetlookup.types;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lossless widening between the types files of one table may give a column, and the matching
 * conversion of values. Writers differ: one writes {@code id} as INT32, another as INT64; one
 * writes a measure as FLOAT, another as DOUBLE. The table serves the wider type, and values read
 * from a file of the narrower type are converted when a row is assembled.
 *
 * <pre>
 * a / b                                  common type
 * TINYINT, SMALLINT, INT, BIGINT         the widest of the two (all exact)
 * FLOAT, DOUBLE                          DOUBLE (every float is a double)
 * DECIMAL(p1, s), DECIMAL(p2, s)         DECIMAL(max(p1, p2), s)
 * ARRAY&lt;a&gt;, ARRAY&lt;b&gt;           ARRAY&lt;common(a, b)&gt; (likewise MAP key and value)
 * ROW&lt;f a1, g a2&gt;, ROW&lt;f b1, g b2&gt;  ROW&lt;f common(a1, b1), g common(a2, b2)&gt;
 *                                        (same field names in the same order)
 * equal types                            that type
 * anything else                          none (INT vs DOUBLE, DECIMAL scales, STRING vs BINARY)
 * </pre>
 *
 * Example: {@code common(INT, BIGINT)} is {@code BIGINT}, and {@code widen(42, BIGINT)} is {@code
 * 42L}; {@code common(BIGINT, DOUBLE)} is null; {@code common(ARRAY<INT>, ARRAY<BIGINT>)} is {@code
 * ARRAY<BIGINT>} and {@code widen(List.of(1, 2), ARRAY<BIGINT>)} is {@code [1L, 2L]}.
 */
public final class Widening {

    private Widening() {}

    /** The type serving values of both {@code a} and {@code b} exactly, or null if none does. */
    @Nullable
    public static ValueType common(ValueType a, ValueType b) {
        if (a.equals(b)) {
            return a;
        }
        int ra = integerRank(a.kind());
        int rb = integerRank(b.kind());
        if (ra >= 0 && rb >= 0) {
            return ra >= rb ? a : b;
        }
        if (isFloating(a.kind()) && isFloating(b.kind())) {
            return ValueType.of(ValueType.Kind.DOUBLE);
        }
        if (a.kind() == ValueType.Kind.DECIMAL
                && b.kind() == ValueType.Kind.DECIMAL
                && a.scale() == b.scale()) {
            return a.precision() >= b.precision() ? a : b;
        }
        if (a.isNested() && a.kind() == b.kind() && a.fields().size() == b.fields().size()) {
            return commonNested(a, b);
        }
        return null;
    }

    /** ARRAY, MAP or ROW of the common types of the parts, or null when a part has none. */
    @Nullable
    private static ValueType commonNested(ValueType a, ValueType b) {
        List<ValueType.Field> fields = new ArrayList<>(a.fields().size());
        for (int i = 0; i < a.fields().size(); i++) {
            ValueType.Field fa = a.fields().get(i);
            ValueType.Field fb = b.fields().get(i);
            ValueType part = fa.name().equals(fb.name()) ? common(fa.type(), fb.type()) : null;
            if (part == null) {
                return null;
            }
            fields.add(new ValueType.Field(fa.name(), part));
        }
        return new ValueType(a.kind(), a.precision(), a.scale(), fields);
    }

    /**
     * Whether values read as {@code from} change representation when served as {@code to} (see
     * {@link ValueType}): {@code Integer} to {@code Long}, {@code Float} to {@code Double}.
     */
    public static boolean changesValues(ValueType from, ValueType to) {
        if (from.isNested() && from.kind() == to.kind()) {
            for (int i = 0; i < from.fields().size() && i < to.fields().size(); i++) {
                if (changesValues(from.fields().get(i).type(), to.fields().get(i).type())) {
                    return true;
                }
            }
            return false;
        }
        return (to.kind() == ValueType.Kind.BIGINT && from.kind() != ValueType.Kind.BIGINT)
                || (to.kind() == ValueType.Kind.DOUBLE && from.kind() == ValueType.Kind.FLOAT);
    }

    /** {@code value} (null, or in a narrower type's representation) as a value of {@code to}. */
    @Nullable
    public static Object widen(@Nullable Object value, ValueType to) {
        if (value != null && to.isNested()) {
            return widenNested(value, to);
        }
        if (value instanceof Integer i && to.kind() == ValueType.Kind.BIGINT) {
            return i.longValue();
        }
        if (value instanceof Float f && to.kind() == ValueType.Kind.DOUBLE) {
            return f.doubleValue();
        }
        return value;
    }

    /** A nested value with its parts widened: a new list, map or row, the input left as it is. */
    private static Object widenNested(Object value, ValueType to) {
        switch (to.kind()) {
            case ARRAY -> {
                ValueType element = to.fields().get(0).type();
                List<?> list = (List<?>) value;
                List<Object> out = new ArrayList<>(list.size());
                for (Object e : list) {
                    out.add(widen(e, element));
                }
                return out;
            }
            case MAP -> {
                ValueType key = to.fields().get(0).type();
                ValueType val = to.fields().get(1).type();
                Map<?, ?> map = (Map<?, ?>) value;
                Map<Object, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    out.put(widen(e.getKey(), key), widen(e.getValue(), val));
                }
                return out;
            }
            case ROW -> {
                Object[] row = (Object[]) value;
                Object[] out = new Object[row.length];
                for (int i = 0; i < row.length; i++) {
                    out[i] =
                            i < to.fields().size()
                                    ? widen(row[i], to.fields().get(i).type())
                                    : row[i];
                }
                return out;
            }
            default -> {
                return value;
            }
        }
    }

    private static int integerRank(ValueType.Kind kind) {
        return switch (kind) {
            case TINYINT -> 0;
            case SMALLINT -> 1;
            case INT -> 2;
            case BIGINT -> 3;
            default -> -1;
        };
    }

    private static boolean isFloating(ValueType.Kind kind) {
        return kind == ValueType.Kind.FLOAT || kind == ValueType.Kind.DOUBLE;
    }
}
