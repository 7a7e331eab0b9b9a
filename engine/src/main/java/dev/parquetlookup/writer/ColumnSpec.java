package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.util.Objects;

/**
 * One column written by {@link LookupFileWriter}: its name, logical type, nullability and, for
 * decimals and times, how it is stored physically in Parquet.
 *
 * <p>Values are given in the engine's representation (see {@link ValueType}). ARRAY, MAP and ROW
 * columns are written in the Parquet spec's shapes ({@link NestedValues}); their parts take the
 * default storage below. Defaults: DECIMAL(p, s) is stored as INT32 when p &lt;= 9, INT64 when p
 * &lt;= 18, else FIXED_LEN_BYTE_ARRAY; TIME and TIMESTAMP use MILLIS for precision 0-3, MICROS for
 * 4-6, NANOS for 7-9. Example:
 *
 * <pre>{@code
 * List<ColumnSpec> columns = List.of(
 *         ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
 *         ColumnSpec.optional("name", ValueType.of(Kind.STRING)),
 *         ColumnSpec.optional("price", new ValueType(Kind.DECIMAL, 12, 2))
 *                 .withDecimalStorage(DecimalStorage.BINARY),
 *         ColumnSpec.optional("seen", new ValueType(Kind.TIMESTAMP, 6, 0)));
 * }</pre>
 *
 * @param name the column name
 * @param type the logical type
 * @param nullable whether nulls are allowed (Parquet OPTIONAL, else REQUIRED)
 * @param decimalStorage physical type of a DECIMAL, null for other kinds
 * @param timeUnit unit of a TIME, TIMESTAMP or TIMESTAMP_LTZ, null for other kinds
 */
public record ColumnSpec(
        String name,
        ValueType type,
        boolean nullable,
        @Nullable DecimalStorage decimalStorage,
        @Nullable TimeUnit timeUnit) {

    /** Physical type of a DECIMAL column. */
    public enum DecimalStorage {
        /** Unscaled value as int32; precision at most 9. */
        INT32,
        /** Unscaled value as int64; precision at most 18. */
        INT64,
        /** Two's complement big-endian in the fewest bytes that hold the precision. */
        FIXED_LEN_BYTE_ARRAY,
        /** Two's complement big-endian, minimal length per value. */
        BINARY
    }

    /** Unit of TIME and TIMESTAMP columns; INT96 is the legacy (Impala/Spark) timestamp. */
    public enum TimeUnit {
        MILLIS(1_000_000L),
        MICROS(1_000L),
        NANOS(1L),
        /** Legacy 12-byte timestamp (nanoseconds of day, Julian day); TIMESTAMP only. */
        INT96(1L);

        private final long nanos;

        TimeUnit(long nanos) {
            this.nanos = nanos;
        }

        /** A stored TIME value of this unit in nanoseconds of the day. */
        public long nanosOfDay(long value) {
            return value * nanos;
        }

        /** A stored INT64 TIMESTAMP value of this unit (not INT96) as a {@link TimestampValue}. */
        public TimestampValue timestamp(long value) {
            return switch (this) {
                case MILLIS -> new TimestampValue(value, 0);
                case MICROS -> TimestampValue.ofEpochMicros(value);
                default -> TimestampValue.ofEpochNanos(value);
            };
        }
    }

    public ColumnSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("column name must not be empty");
        }
        switch (type.kind()) {
            case NESTED, UNSUPPORTED ->
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': "
                                    + type.kind()
                                    + " columns cannot be written by LookupFileWriter");
            case ARRAY, MAP, ROW -> {
                NestedValues.check(name, type);
                if (decimalStorage != null || timeUnit != null) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': a nested column takes no decimal storage or time unit"
                                    + " (its parts use the defaults)");
                }
            }
            case DECIMAL -> {
                int p = type.precision();
                if (p < 1 || p > 38 || type.scale() < 0 || type.scale() > p) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': "
                                    + type
                                    + " is not a valid decimal: precision must be 1-38 and scale"
                                    + " 0-precision");
                }
                if (decimalStorage == null) {
                    decimalStorage =
                            p <= 9
                                    ? DecimalStorage.INT32
                                    : p <= 18
                                            ? DecimalStorage.INT64
                                            : DecimalStorage.FIXED_LEN_BYTE_ARRAY;
                }
                if ((decimalStorage == DecimalStorage.INT32 && p > 9)
                        || (decimalStorage == DecimalStorage.INT64 && p > 18)) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': "
                                    + type
                                    + " does not fit in "
                                    + decimalStorage
                                    + " (INT32 holds precision up to 9, INT64 up to 18): use"
                                    + " FIXED_LEN_BYTE_ARRAY or BINARY");
                }
            }
            default -> {
                if (decimalStorage != null) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': a decimal storage is only for DECIMAL columns, not "
                                    + type);
                }
            }
        }
        switch (type.kind()) {
            case TIME, TIMESTAMP, TIMESTAMP_LTZ -> {
                if (timeUnit == null) {
                    int p = type.precision();
                    timeUnit = p <= 3 ? TimeUnit.MILLIS : p <= 6 ? TimeUnit.MICROS : TimeUnit.NANOS;
                }
                if (timeUnit == TimeUnit.INT96 && type.kind() == ValueType.Kind.TIME) {
                    throw new IllegalArgumentException(
                            "column '" + name + "': INT96 is for timestamps, not TIME");
                }
            }
            default -> {
                if (timeUnit != null) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + name
                                    + "': a time unit is only for TIME and TIMESTAMP columns, not "
                                    + type);
                }
            }
        }
    }

    /** A REQUIRED column with the default physical layout. */
    public static ColumnSpec required(String name, ValueType type) {
        return new ColumnSpec(name, type, false, null, null);
    }

    /** An OPTIONAL (nullable) column with the default physical layout. */
    public static ColumnSpec optional(String name, ValueType type) {
        return new ColumnSpec(name, type, true, null, null);
    }

    /** This column stored with {@code storage} (DECIMAL columns only). */
    public ColumnSpec withDecimalStorage(DecimalStorage storage) {
        return new ColumnSpec(name, type, nullable, storage, timeUnit);
    }

    /** This column stored in {@code unit} (TIME, TIMESTAMP, TIMESTAMP_LTZ columns only). */
    public ColumnSpec withTimeUnit(TimeUnit unit) {
        return new ColumnSpec(name, type, nullable, decimalStorage, unit);
    }

    /** The Parquet type this column is written as (physical type, annotation, repetition). */
    public Type parquetType() {
        return WriterSchema.parquetType(this);
    }
}
