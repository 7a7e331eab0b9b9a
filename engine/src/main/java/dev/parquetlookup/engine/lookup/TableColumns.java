package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link DimensionTable}'s columns and sort key, and what a caller may ask of them: lookup plans
 * (the key a leading part of the sort key, or a secondary key of other columns; projected columns
 * readable) and keys in the comparable form the files are searched with. Immutable.
 */
final class TableColumns {

    private final String path;
    private final List<ColumnSchema> columns;
    private final List<String> sortKey;
    private final List<KeyType> keyTypes;

    TableColumns(
            String path, List<ColumnSchema> columns, List<String> sortKey, List<KeyType> keyTypes) {
        this.path = path;
        this.columns = columns;
        this.sortKey = sortKey;
        this.keyTypes = keyTypes;
    }

    /**
     * The columns of a table made of {@code files} (as the table names them, see {@link
     * TableSchema}); each file is set to serve its values as the table's types.
     *
     * @throws LookupFileException naming the files on each side of a disagreement
     */
    static TableColumns of(String path, List<SortedFile> files) {
        List<ColumnSchema> columns =
                TableSchema.of(
                        files.stream().map(SortedFile::file).toList(),
                        files.stream().map(f -> f.columns().view()).toList(),
                        files.stream().map(f -> f.columns().sortKey()).toList());
        for (SortedFile f : files) {
            f.serveAs(columns);
        }
        FileColumns first = files.get(0).columns();
        return new TableColumns(path, columns, first.sortKey(), first.keyTypes());
    }

    List<ColumnSchema> columns() {
        return columns;
    }

    List<String> sortKey() {
        return sortKey;
    }

    List<KeyType> keyTypes() {
        return keyTypes;
    }

    /** See {@link DimensionTable#plan}. */
    LookupPlan plan(List<String> keyColumns, List<String> projectedColumns) {
        if (keyColumns.isEmpty()) {
            throw new LookupFileException(
                    "A lookup on "
                            + path
                            + " needs at least one key column; its sort key is "
                            + sortKey
                            + ".");
        }
        boolean sorted =
                keyColumns.size() <= sortKey.size()
                        && sortKey.subList(0, keyColumns.size()).equals(keyColumns);
        if (!sorted) {
            checkSecondaryKey(keyColumns);
        }
        List<ValueType> keyTypeList = new ArrayList<>();
        for (String key : keyColumns) {
            keyTypeList.add(column(key).type());
        }
        List<ValueType> projectedTypes = new ArrayList<>();
        for (String name : projectedColumns) {
            ColumnSchema column = column(name);
            if (column.type().kind() == ValueType.Kind.NESTED
                    || column.type().kind() == ValueType.Kind.UNSUPPORTED) {
                throw new LookupFileException(
                        "Column '"
                                + name
                                + "' of "
                                + path
                                + " is "
                                + column.parquetType()
                                + ", which parquet-lookup cannot read ("
                                + (column.type().kind() == ValueType.Kind.NESTED
                                        ? "a nested shape it does not read: a MAP without"
                                                + " values, or a nested field of an unsupported"
                                                + " type"
                                        : "unsupported type")
                                + "). Leave it out of the table's columns or the query.");
            }
            projectedTypes.add(column.type());
        }
        return new LookupPlan(keyColumns, keyTypeList, projectedColumns, projectedTypes, !sorted);
    }

    /**
     * Checks a secondary key (not a leading prefix of the sort key): distinct top-level columns of
     * types a key can have.
     */
    private void checkSecondaryKey(List<String> keyColumns) {
        if (new java.util.HashSet<>(keyColumns).size() != keyColumns.size()) {
            throw new LookupFileException(
                    "Lookup key " + keyColumns + " of " + path + " names a column twice.");
        }
        for (String key : keyColumns) {
            if (columns.stream().noneMatch(c -> c.name().equals(key))) {
                throw new LookupFileException(
                        "Lookup key "
                                + keyColumns
                                + " of "
                                + path
                                + " names column '"
                                + key
                                + "', which does not exist; its columns are "
                                + columns.stream().map(ColumnSchema::name).toList()
                                + " and it is sorted by "
                                + sortKey
                                + ". Fix the join condition (or --key).");
            }
            ColumnSchema column = column(key);
            switch (column.type().kind()) {
                case BOOLEAN, FLOAT, DOUBLE, ARRAY, MAP, ROW, NESTED, UNSUPPORTED ->
                        throw new LookupFileException(
                                "Column '"
                                        + key
                                        + "' of "
                                        + path
                                        + " is "
                                        + column.parquetType()
                                        + ", which cannot be a lookup key (BOOLEAN, FLOAT, DOUBLE"
                                        + " and nested columns cannot). Look up by other columns"
                                        + " and compare this one on the rows found.");
                default -> {}
            }
        }
    }

    ColumnSchema column(String name) {
        for (ColumnSchema c : columns) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        List<String> names = new ArrayList<>();
        for (ColumnSchema c : columns) {
            names.add(c.name());
        }
        throw new LookupFileException(
                "Column '"
                        + name
                        + "' does not exist in "
                        + path
                        + "; its columns are "
                        + names
                        + ". Fix the table's columns or the query's projection.");
    }

    /** The key in comparable form, or null when it cannot match (a null or out-of-range part). */
    @Nullable
    Object[] comparableKey(LookupPlan plan, Object[] key) {
        int n = plan.keyColumns().size();
        if (key.length != n) {
            throw new IllegalArgumentException(
                    "Lookup on "
                            + plan.keyColumns()
                            + " needs "
                            + n
                            + " key value(s), got "
                            + key.length
                            + ": pass one value per key column, in that order.");
        }
        Object[] comparable = new Object[n];
        for (int i = 0; i < n; i++) {
            if (key[i] == null) {
                return null;
            }
            comparable[i] = KeyValues.comparable(keyTypes.get(i), sortKey.get(i), key[i]);
            if (comparable[i] == KeyValues.NO_MATCH) {
                return null;
            }
        }
        return comparable;
    }

    /**
     * Turns a lookup key value in the engine's representation ({@link ValueType}) into the
     * comparable form of a file's key column ({@link KeyType}).
     *
     * <p>A value that no row can hold (a DECIMAL with more fractional digits than the column's
     * scale, a timestamp finer than the column's unit) becomes {@link #NO_MATCH}. Example: for a
     * {@code TIMESTAMP(MILLIS)} column, {@code new TimestampValue(5, 0)} is {@code 5L} and {@code
     * new TimestampValue(5, 1)} is {@code NO_MATCH}.
     */
    static final class KeyValues {

        /** Marker for a key value that cannot equal any stored value. */
        static final Object NO_MATCH = new Object();

        private KeyValues() {}

        /**
         * @throws IllegalArgumentException if the value's Java type does not fit the column
         */
        static Object comparable(KeyType type, String column, Object value) {
            LogicalTypeAnnotation logical = type.type().getLogicalTypeAnnotation();
            switch (type.kind()) {
                case LONG:
                    if (logical instanceof DecimalLogicalTypeAnnotation d) {
                        BigInteger unscaled = unscaled(value, d.getScale(), column);
                        return unscaled == null || unscaled.bitLength() > 63
                                ? NO_MATCH
                                : (Object) unscaled.longValue();
                    }
                    if (logical instanceof TimestampLogicalTypeAnnotation t) {
                        if (!(value instanceof TimestampValue ts)) {
                            throw mismatch(column, value, "TimestampValue");
                        }
                        return timestamp(ts, t.getUnit());
                    }
                    if (logical instanceof TimeLogicalTypeAnnotation t
                            && value instanceof Long nanos) {
                        long per =
                                switch (t.getUnit()) {
                                    case MILLIS -> 1_000_000L;
                                    case MICROS -> 1_000L;
                                    case NANOS -> 1L;
                                };
                        return nanos % per != 0 ? NO_MATCH : (Object) (nanos / per);
                    }
                    if (value instanceof Long
                            || value instanceof Integer
                            || value instanceof Short
                            || value instanceof Byte) {
                        return ((Number) value).longValue();
                    }
                    throw mismatch(column, value, "Integer or Long");
                case BYTES:
                    if (value instanceof byte[]) {
                        return value;
                    }
                    if (value instanceof String s) {
                        return s.getBytes(StandardCharsets.UTF_8);
                    }
                    throw mismatch(column, value, "byte[] or String");
                default:
                    int scale = ((DecimalLogicalTypeAnnotation) logical).getScale();
                    BigInteger unscaled = unscaled(value, scale, column);
                    return unscaled == null ? NO_MATCH : unscaled;
            }
        }

        /**
         * The inverse of {@link #comparable}: a key column's comparable form back in the engine's
         * value representation ({@link ValueType}). Example: an INT64 {@code TIMESTAMP(MICROS)} key
         * {@code 1_000_001L} is {@code new TimestampValue(1000, 1000)}.
         */
        static Object engineValue(KeyType type, Object comparable) {
            LogicalTypeAnnotation logical = type.type().getLogicalTypeAnnotation();
            switch (type.kind()) {
                case LONG:
                    long v = (Long) comparable;
                    if (logical instanceof DecimalLogicalTypeAnnotation d) {
                        return BigDecimal.valueOf(v, d.getScale());
                    }
                    if (logical instanceof TimestampLogicalTypeAnnotation t) {
                        return switch (t.getUnit()) {
                            case MILLIS -> new TimestampValue(v, 0);
                            case MICROS -> TimestampValue.ofEpochMicros(v);
                            case NANOS -> TimestampValue.ofEpochNanos(v);
                        };
                    }
                    if (logical instanceof TimeLogicalTypeAnnotation t) {
                        return switch (t.getUnit()) {
                            case MILLIS -> v * 1_000_000L;
                            case MICROS -> v * 1_000L;
                            case NANOS -> v;
                        };
                    }
                    boolean int32 =
                            type.type().getPrimitiveTypeName()
                                    == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
                                            .INT32;
                    return int32 ? (Object) (int) v : (Object) v;
                case BYTES:
                    return comparable;
                default:
                    int scale = ((DecimalLogicalTypeAnnotation) logical).getScale();
                    return new BigDecimal((BigInteger) comparable, scale);
            }
        }

        private static BigInteger unscaled(Object value, int scale, String column) {
            BigDecimal decimal;
            if (value instanceof BigDecimal d) {
                decimal = d;
            } else if (value instanceof Long || value instanceof Integer) {
                decimal = BigDecimal.valueOf(((Number) value).longValue());
            } else {
                throw mismatch(column, value, "BigDecimal");
            }
            try {
                return decimal.setScale(scale).unscaledValue();
            } catch (ArithmeticException e) {
                return null; // more fractional digits than the column holds
            }
        }

        private static Object timestamp(TimestampValue ts, TimeUnit unit) {
            try {
                return switch (unit) {
                    case MILLIS ->
                            ts.nanoOfMillisecond() != 0 ? NO_MATCH : (Object) ts.epochMillis();
                    case MICROS ->
                            ts.nanoOfMillisecond() % 1000 != 0
                                    ? NO_MATCH
                                    : (Object)
                                            Math.addExact(
                                                    Math.multiplyExact(ts.epochMillis(), 1000L),
                                                    ts.nanoOfMillisecond() / 1000);
                    case NANOS ->
                            (Object)
                                    Math.addExact(
                                            Math.multiplyExact(ts.epochMillis(), 1_000_000L),
                                            ts.nanoOfMillisecond());
                };
            } catch (ArithmeticException e) {
                return NO_MATCH; // outside the column's range
            }
        }

        private static IllegalArgumentException mismatch(
                String column, Object value, String expected) {
            return new IllegalArgumentException(
                    "Key value "
                            + value
                            + " ("
                            + value.getClass().getSimpleName()
                            + ") for column '"
                            + column
                            + "' must be "
                            + expected
                            + ".");
        }
    }
}
