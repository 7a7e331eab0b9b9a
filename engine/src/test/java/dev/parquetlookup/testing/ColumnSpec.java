package dev.parquetlookup.testing;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec.DecimalStorage;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import java.util.Objects;

/**
 * One generated top-level column: its name, the type the engine should read it as, how it is stored
 * in Parquet, and whether it is OPTIONAL.
 *
 * <p>Example: {@code new ColumnSpec("ts", new ValueType(TIMESTAMP, 6, 0), Storage.MICROS, true)} is
 * an optional INT64 column annotated TIMESTAMP(MICROS, isAdjustedToUTC=false).
 *
 * @param name column name
 * @param type the engine's view of the column (kind, precision, scale)
 * @param storage the physical layout of the values in Parquet
 * @param nullable OPTIONAL (may hold nulls) or REQUIRED
 */
public record ColumnSpec(String name, ValueType type, Storage storage, boolean nullable) {

    /** How a value is laid out in Parquet, where a kind has several choices. */
    public enum Storage {
        /** The only layout of the kind (e.g. INT32 for INT, BYTE_ARRAY for STRING). */
        PLAIN,
        /** DECIMAL as INT32 (precision up to 9). */
        DECIMAL_INT32,
        /** DECIMAL as INT64 (precision up to 18). */
        DECIMAL_INT64,
        /** DECIMAL as FIXED_LEN_BYTE_ARRAY. */
        DECIMAL_FIXED,
        /** DECIMAL as BYTE_ARRAY. */
        DECIMAL_BINARY,
        /** TIME / TIMESTAMP with the unit given by the type's precision (3, 6, 9). */
        UNIT,
        /** TIMESTAMP as legacy INT96 (Julian day + nanoseconds of day), read with precision 9. */
        INT96
    }

    public ColumnSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(storage, "storage");
    }

    /** The project writer's column with this layout. */
    public dev.parquetlookup.writer.ColumnSpec writerColumn() {
        dev.parquetlookup.writer.ColumnSpec w =
                nullable
                        ? dev.parquetlookup.writer.ColumnSpec.optional(name, type)
                        : dev.parquetlookup.writer.ColumnSpec.required(name, type);
        return switch (storage) {
            case DECIMAL_INT32 -> w.withDecimalStorage(DecimalStorage.INT32);
            case DECIMAL_INT64 -> w.withDecimalStorage(DecimalStorage.INT64);
            case DECIMAL_FIXED -> w.withDecimalStorage(DecimalStorage.FIXED_LEN_BYTE_ARRAY);
            case DECIMAL_BINARY -> w.withDecimalStorage(DecimalStorage.BINARY);
            case INT96 -> w.withTimeUnit(TimeUnit.INT96);
            case UNIT ->
                    w.withTimeUnit(
                            switch (type.precision()) {
                                case 3 -> TimeUnit.MILLIS;
                                case 6 -> TimeUnit.MICROS;
                                default -> TimeUnit.NANOS;
                            });
            case PLAIN -> w;
        };
    }

    /** For messages: {@code name TYPE storage [null]}. */
    @Override
    public String toString() {
        return name
                + " "
                + type
                + (storage == Storage.PLAIN ? "" : " " + storage)
                + (nullable ? " null" : " not null");
    }
}
