package dev.parquetlookup.testing;

import dev.parquetlookup.types.ValueType;

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
