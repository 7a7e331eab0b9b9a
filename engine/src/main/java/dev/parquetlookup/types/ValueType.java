package dev.parquetlookup.types;

import java.util.List;
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
 * ARRAY&lt;E&gt;                java.util.List of E's values (may hold nulls)
 * MAP&lt;K, V&gt;               java.util.Map in file order (LinkedHashMap; values may be null)
 * ROW&lt;f1 T1, ...&gt;         Object[] of the fields' values, in file order (may hold nulls)
 * </pre>
 *
 * Nested types ({@code ARRAY}, {@code MAP}, {@code ROW}) carry their element, key and value, or
 * field types in {@link #fields}; any element, value or field may be null (Parquet's nullability
 * inside a nested column is not part of the type, so files from writers that differ only there are
 * one table).
 *
 * <p>Key values given to a lookup use the same representation; {@code String} is also accepted for
 * STRING keys and any {@link Number} of the right kind for numeric keys.
 *
 * @param kind the kind of value
 * @param precision decimal precision, or fractional-second digits for TIME and TIMESTAMP (3, 6, 9)
 * @param scale decimal scale, 0 otherwise
 * @param fields ARRAY: its element; MAP: its key and value; ROW: its fields; empty otherwise
 */
public record ValueType(Kind kind, int precision, int scale, List<Field> fields) {

    /**
     * Kinds of values. {@code NESTED} columns (nested shapes the engine cannot read, such as a MAP
     * without values or a LIST of an unsupported type) and {@code UNSUPPORTED} ones (INTERVAL,
     * FLOAT16, unsigned 64-bit) cannot be projected; they are ignored otherwise.
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
        ARRAY,
        MAP,
        ROW,
        NESTED,
        UNSUPPORTED
    }

    /** A named part of a nested type: an element, key, value or ROW field. */
    public record Field(String name, ValueType type) {
        public Field {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }
    }

    public ValueType {
        Objects.requireNonNull(kind, "kind");
        fields = List.copyOf(fields);
    }

    /** A type without fields (every kind but ARRAY, MAP and ROW). */
    public ValueType(Kind kind, int precision, int scale) {
        this(kind, precision, scale, List.of());
    }

    public static ValueType of(Kind kind) {
        return new ValueType(kind, 0, 0);
    }

    /** {@code ARRAY<element>}. */
    public static ValueType array(ValueType element) {
        return new ValueType(Kind.ARRAY, 0, 0, List.of(new Field("element", element)));
    }

    /** {@code MAP<key, value>}. */
    public static ValueType map(ValueType key, ValueType value) {
        return new ValueType(
                Kind.MAP, 0, 0, List.of(new Field("key", key), new Field("value", value)));
    }

    /** {@code ROW<fields>}, fields in file order. */
    public static ValueType row(List<Field> fields) {
        return new ValueType(Kind.ROW, 0, 0, fields);
    }

    /** Whether values are Lists, Maps or Object[]s of other values. */
    public boolean isNested() {
        return kind == Kind.ARRAY || kind == Kind.MAP || kind == Kind.ROW;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case DECIMAL -> "DECIMAL(" + precision + ", " + scale + ")";
            case TIME, TIMESTAMP, TIMESTAMP_LTZ -> kind + "(" + precision + ")";
            case ARRAY -> "ARRAY<" + fields.get(0).type() + ">";
            case MAP -> "MAP<" + fields.get(0).type() + ", " + fields.get(1).type() + ">";
            case ROW -> {
                StringBuilder b = new StringBuilder("ROW<");
                for (int i = 0; i < fields.size(); i++) {
                    b.append(i == 0 ? "" : ", ")
                            .append('`')
                            .append(fields.get(i).name().replace("`", "``"))
                            .append("` ")
                            .append(fields.get(i).type());
                }
                yield b.append('>').toString();
            }
            default -> kind.name();
        };
    }
}
