package dev.parquetlookup.types;

import javax.annotation.Nullable;

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
 * equal types                            that type
 * anything else                          none (INT vs DOUBLE, DECIMAL scales, STRING vs BINARY)
 * </pre>
 *
 * Example: {@code common(INT, BIGINT)} is {@code BIGINT}, and {@code widen(42, BIGINT)} is {@code
 * 42L}; {@code common(BIGINT, DOUBLE)} is null.
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
        return null;
    }

    /**
     * Whether values read as {@code from} change representation when served as {@code to} (see
     * {@link ValueType}): {@code Integer} to {@code Long}, {@code Float} to {@code Double}.
     */
    public static boolean changesValues(ValueType from, ValueType to) {
        return (to.kind() == ValueType.Kind.BIGINT && from.kind() != ValueType.Kind.BIGINT)
                || (to.kind() == ValueType.Kind.DOUBLE && from.kind() == ValueType.Kind.FLOAT);
    }

    /** {@code value} (null, or in a narrower type's representation) as a value of {@code to}. */
    @Nullable
    public static Object widen(@Nullable Object value, ValueType to) {
        if (value instanceof Integer i && to.kind() == ValueType.Kind.BIGINT) {
            return i.longValue();
        }
        if (value instanceof Float f && to.kind() == ValueType.Kind.DOUBLE) {
            return f.doubleValue();
        }
        return value;
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
