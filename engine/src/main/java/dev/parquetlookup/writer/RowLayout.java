package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The columns of a written file: their Parquet schema ({@link WriterSchema}), rows of engine values
 * converted to the physical values Parquet stores ({@link PreparedValues}), and the order of sort
 * keys with the messages that show a key.
 *
 * <p>Rows are converted completely before anything reaches parquet-java, so a bad value fails with
 * a clear message and leaves the writer usable.
 */
final class RowLayout {

    private final List<ColumnSpec> columns;
    private final MessageType schema;
    private final int[] keyIndexes;
    private final List<String> sortKey;

    /** Per column, the compiled nested type (null for flat columns). */
    private final NestedValues.Part[] nested;

    RowLayout(List<ColumnSpec> columns, List<String> sortKey) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a file needs at least one column");
        }
        this.columns = List.copyOf(columns);
        this.sortKey = List.copyOf(sortKey);
        Map<String, Integer> byName = new HashMap<>();
        List<Type> fields = new ArrayList<>();
        nested = new NestedValues.Part[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            ColumnSpec c = columns.get(i);
            if (c.type().isNested()) {
                nested[i] = new NestedValues.Part(c.name(), c.type());
            }
            if (byName.put(c.name(), i) != null) {
                throw new IllegalArgumentException("column '" + c.name() + "' is given twice");
            }
            fields.add(WriterSchema.parquetType(c));
        }
        this.schema = new MessageType("lookup_row", fields);
        if (sortKey.isEmpty()) {
            throw new IllegalArgumentException(
                    "a sort key is required: name the column(s) the rows are sorted by");
        }
        Set<String> seen = new HashSet<>();
        keyIndexes = new int[sortKey.size()];
        for (int k = 0; k < keyIndexes.length; k++) {
            String name = sortKey.get(k);
            Integer idx = byName.get(name);
            if (idx == null) {
                throw new IllegalArgumentException(
                        "sort key column '"
                                + name
                                + "' is not one of the columns "
                                + columns.stream().map(ColumnSpec::name).toList());
            }
            if (!seen.add(name)) {
                throw new IllegalArgumentException("sort key column '" + name + "' is given twice");
            }
            ColumnSpec spec = columns.get(idx);
            if (spec.type().isNested()) {
                throw new IllegalArgumentException(
                        "sort key column '"
                                + name
                                + "' is nested ("
                                + spec.type()
                                + "): a lookup key is a top-level integer, string, binary, date,"
                                + " timestamp or decimal column");
            }
            if (spec.type().kind() == ValueType.Kind.FLOAT
                    || spec.type().kind() == ValueType.Kind.DOUBLE
                    || spec.type().kind() == ValueType.Kind.BOOLEAN
                    || spec.timeUnit() == TimeUnit.INT96) {
                throw new IllegalArgumentException(
                        "sort key column '"
                                + name
                                + "' has type "
                                + spec.type()
                                + (spec.timeUnit() == TimeUnit.INT96 ? " stored as INT96" : "")
                                + ", which cannot be a lookup key: use an integer, string,"
                                + " binary, date, timestamp (not INT96) or decimal column");
            }
            keyIndexes[k] = idx;
        }
    }

    List<ColumnSpec> columns() {
        return columns;
    }

    List<String> sortKey() {
        return sortKey;
    }

    MessageType schema() {
        return schema;
    }

    /**
     * How the prepared values of column {@code i} are stored: its Parquet physical type, BINARY for
     * nested columns (their values are {@link NestedValues#encode encoded}).
     */
    PrimitiveTypeName storedType(int i) {
        Type t = schema.getType(i);
        return t.isPrimitive()
                ? t.asPrimitiveType().getPrimitiveTypeName()
                : PrimitiveTypeName.BINARY;
    }

    int[] keyIndexes() {
        return keyIndexes.clone();
    }

    // ---------------------------------------------------------------------------------------
    // Values

    /**
     * {@link #prepare(Object[], boolean[])} of the row numbered {@code rowNumber} (from 1) of the
     * writer of {@code target}; a value that does not fit is reported with both.
     */
    Object[] prepare(Object[] row, @Nullable boolean[] physical, long rowNumber, String target) {
        try {
            return prepare(row, physical);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Cannot write row " + rowNumber + " to " + target + ": " + e.getMessage(), e);
        }
    }

    /**
     * Converts one row of engine values into prepared values, checking arity, nullability, Java
     * types and ranges. The values of the columns flagged in {@code physical} are already prepared
     * values of the column's physical type (Boolean, Integer, Long, Float, Double or {@link
     * Binary}) and are taken as they are; only their nullability is checked.
     *
     * @param physical per column, whether its value is already prepared; null for none
     * @throws IllegalArgumentException naming the column and value when a value does not fit
     */
    Object[] prepare(Object[] row, @Nullable boolean[] physical) {
        if (row.length != columns.size()) {
            throw new IllegalArgumentException(
                    "row has "
                            + row.length
                            + " values but the file has "
                            + columns.size()
                            + " columns "
                            + columns.stream().map(ColumnSpec::name).toList());
        }
        Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            ColumnSpec c = columns.get(i);
            Object v = row[i];
            if (v == null) {
                if (!c.nullable()) {
                    throw new IllegalArgumentException(
                            "column '"
                                    + c.name()
                                    + "' is not nullable but the value is null: declare it with"
                                    + " ColumnSpec.optional or give a value");
                }
                continue;
            }
            if (physical != null && physical[i]) {
                out[i] = v;
                continue;
            }
            if (nested[i] != null) {
                out[i] = NestedValues.encode(nested[i], v);
                continue;
            }
            try {
                out[i] = PreparedValues.prepare(c, v);
            } catch (ClassCastException e) {
                throw new IllegalArgumentException(
                        PreparedValues.about(c.name(), c.type())
                                + " expects "
                                + PreparedValues.expectedJavaType(c.type().kind())
                                + " but got "
                                + v.getClass().getName()
                                + " "
                                + v,
                        e);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // Key order

    /**
     * Compares the sort keys of two prepared rows: column by column, nulls first, in the order
     * Parquet statistics use (signed numbers, unsigned bytes for strings and binary).
     */
    int compareKeys(Object[] a, Object[] b) {
        for (int idx : keyIndexes) {
            int c = compareValue(columns.get(idx), a[idx], b[idx]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    @SuppressWarnings("unchecked")
    private static int compareValue(ColumnSpec c, Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : -1) : 1;
        }
        if (a instanceof Binary x) {
            byte[] xb = x.getBytesUnsafe();
            byte[] yb = ((Binary) b).getBytesUnsafe();
            if (c.type().kind() == ValueType.Kind.DECIMAL) {
                return new BigInteger(xb).compareTo(new BigInteger(yb));
            }
            return Arrays.compareUnsigned(xb, yb);
        }
        return ((Comparable<Object>) a).compareTo(b);
    }

    /** The error message for a row whose key is smaller than the previous row's. */
    String unsortedMessage(String path, long rowNumber, Object[] prepared, Object[] previous) {
        String key = String.join(", ", sortKey);
        return "Cannot write "
                + path
                + ": the input is not sorted by ("
                + key
                + "): row "
                + rowNumber
                + " has key "
                + formatKey(prepared)
                + ", smaller than key "
                + formatKey(previous)
                + " of row "
                + (rowNumber - 1)
                + ". Sort the rows by ("
                + key
                + ") first, or let the writer sort them with"
                + " WriterOptions.builder().sortInput(true) (prepare --key does).";
    }

    /** The sort key of a prepared row, for messages: {@code (42, "abc")}. */
    String formatKey(Object[] prepared) {
        StringBuilder sb = new StringBuilder("(");
        for (int k = 0; k < keyIndexes.length; k++) {
            if (k > 0) {
                sb.append(", ");
            }
            ColumnSpec c = columns.get(keyIndexes[k]);
            sb.append(formatPrepared(c, prepared[keyIndexes[k]]));
        }
        return sb.append(')').toString();
    }

    /** One prepared value as a person reads it. */
    static String formatPrepared(ColumnSpec c, Object v) {
        if (v == null) {
            return "null";
        }
        ValueType t = c.type();
        return switch (t.kind()) {
            case STRING -> '"' + ((Binary) v).toStringUsingUTF8() + '"';
            case BINARY -> "0x" + HexFormat.of().formatHex(((Binary) v).getBytesUnsafe());
            case DECIMAL -> {
                BigInteger unscaled =
                        v instanceof Binary bin
                                ? new BigInteger(bin.getBytesUnsafe())
                                : BigInteger.valueOf(((Number) v).longValue());
                yield new BigDecimal(unscaled, t.scale()).toPlainString();
            }
            case DATE -> LocalDate.ofEpochDay((Integer) v).toString();
            case TIME ->
                    LocalTime.ofNanoOfDay(c.timeUnit().nanosOfDay(((Number) v).longValue()))
                            .toString();
            case TIMESTAMP, TIMESTAMP_LTZ -> {
                if (v instanceof Binary) {
                    yield "INT96 " + HexFormat.of().formatHex(((Binary) v).getBytesUnsafe());
                }
                yield c.timeUnit()
                        .timestamp((Long) v)
                        .toText(t.kind() == ValueType.Kind.TIMESTAMP_LTZ);
            }
            default -> String.valueOf(v);
        };
    }
}
