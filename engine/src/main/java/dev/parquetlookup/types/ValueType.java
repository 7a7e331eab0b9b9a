package dev.parquetlookup.types;

import java.util.Objects;

/**
 * The logical type of a column as the engine reads it, and the Java representation of its values.
 *
 * <p>The engine does not depend on Flink; the Flink glue converts these representations to {@code
 * RowData} or {@code Row} fields. Values come back as:
 *
 * <pre>
 * BOOLEAN                 Boolean
 * TINYINT/SMALLINT/INT    Integer
 * BIGINT                  Long
 * FLOAT / DOUBLE          Float / Double
 * DECIMAL(p, s)           java.math.BigDecimal with scale s
 * STRING                  byte[] holding UTF-8 (no decoding on the hot path)
 * BINARY                  byte[]
 * DATE                    Integer: days since 1970-01-01
 * TIME(p)                 Long: nanoseconds of the day
 * TIMESTAMP(p)            {@link TimestampValue} (wall-clock time, no time zone)
 * TIMESTAMP_LTZ(p)        {@link TimestampValue} (an instant, UTC)
 * </pre>
 *
 * Key values given to a lookup use the same representation; {@code String} is also accepted for
 * STRING keys and any {@link Number} of the right kind for numeric keys.
 *
 * @param kind the kind of value
 * @param precision decimal precision, or fractional-second digits for TIME and TIMESTAMP (3, 6, 9)
 * @param scale decimal scale, 0 otherwise
 */
public record ValueType(Kind kind, int precision, int scale) {

    /**
     * Kinds of values. {@code NESTED} columns (LIST, MAP, groups) and {@code UNSUPPORTED} ones
     * (INTERVAL, FLOAT16, unsigned 64-bit) cannot be projected; they are ignored otherwise.
     */
    public enum Kind {
        BOOLEAN,
        TINYINT,
        SMALLINT,
        INT,
        BIGINT,
        FLOAT,
        DOUBLE,
        DECIMAL,
        STRING,
        BINARY,
        DATE,
        TIME,
        TIMESTAMP,
        TIMESTAMP_LTZ,
        NESTED,
        UNSUPPORTED
    }

    public ValueType {
        Objects.requireNonNull(kind, "kind");
    }

    public static ValueType of(Kind kind) {
        return new ValueType(kind, 0, 0);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case DECIMAL -> "DECIMAL(" + precision + ", " + scale + ")";
            case TIME, TIMESTAMP, TIMESTAMP_LTZ -> kind + "(" + precision + ")";
            default -> kind.name();
        };
    }
}
