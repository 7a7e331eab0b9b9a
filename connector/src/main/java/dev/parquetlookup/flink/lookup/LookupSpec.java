package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.types.ValueType;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What one lookup join asks of a table, resolved at planning: the columns it returns, how the
 * planner's key row becomes the engine's key, and which further key columns are compared on the
 * returned rows.
 *
 * <p>The planner passes every equality condition on the dimension table as a lookup key, e.g.
 * {@code ON o.cid = c.id AND c.country = 'DE'} gives the keys {@code (id, country)}. The engine
 * looks up the longest leading prefix of the sort key among them ({@code id}); the others ({@code
 * country}) are residual keys, checked on each returned row. Keys without the first sort-key column
 * ({@code ON o.mail = c.email}) are a secondary key, looked up through a key index per file ({@link
 * #engineKey}).
 *
 * @param projectedNames the returned columns, in the order of the produced rows
 * @param projectedTypes their declared types
 * @param keyNames the planner's key columns, in the order of its key rows
 * @param normalizer the planner's key row to the engine's key
 * @param residualKeyPositions positions in the key row of the residual keys
 * @param residualResultPositions positions of the same columns in the produced rows
 */
public record LookupSpec(
        List<String> projectedNames,
        List<LogicalType> projectedTypes,
        List<String> keyNames,
        KeyNormalizer normalizer,
        int[] residualKeyPositions,
        int[] residualResultPositions)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Object[] NO_RESIDUAL = new Object[0];

    public LookupSpec {
        projectedNames = List.copyOf(projectedNames);
        projectedTypes = List.copyOf(projectedTypes);
        keyNames = List.copyOf(keyNames);
        Objects.requireNonNull(normalizer, "normalizer");
        residualKeyPositions = residualKeyPositions.clone();
        residualResultPositions = residualResultPositions.clone();
    }

    /**
     * The spec of a join on {@code keyNames} (planner order) returning {@code projectedNames}, with
     * {@code enginePrefix} the leading sort-key columns among the keys (in sort order).
     */
    public static LookupSpec of(
            List<String> projectedNames,
            List<LogicalType> projectedTypes,
            List<String> keyNames,
            List<String> enginePrefix) {
        List<LogicalType> keyTypes = new ArrayList<>();
        for (String key : keyNames) {
            LogicalType type = projectedTypes.get(indexOf(projectedNames, key));
            if (isNested(type)) {
                throw new ValidationException(
                        String.format(
                                "Column '%s' (%s) cannot be a lookup key: nested columns (ARRAY,"
                                        + " MAP, ROW) can be projected and their fields used"
                                        + " after the join, but lookup keys are top-level columns"
                                        + " of primitive types. Join on the sort key.",
                                key, type.asSummaryString()));
            }
            keyTypes.add(type);
        }
        List<Integer> residualKey = new ArrayList<>();
        List<Integer> residualResult = new ArrayList<>();
        for (int i = 0; i < keyNames.size(); i++) {
            String key = keyNames.get(i);
            if (!enginePrefix.contains(key)) {
                residualKey.add(i);
                residualResult.add(indexOf(projectedNames, key));
            }
        }
        KeyNormalizer normalizer = new KeyNormalizer(keyNames, keyTypes, enginePrefix);
        return new LookupSpec(
                projectedNames,
                projectedTypes,
                keyNames,
                normalizer,
                residualKey.stream().mapToInt(Integer::intValue).toArray(),
                residualResult.stream().mapToInt(Integer::intValue).toArray());
    }

    private static boolean isNested(LogicalType type) {
        return switch (type.getTypeRoot()) {
            case ARRAY, MAP, MULTISET, ROW, STRUCTURED_TYPE -> true;
            default -> false;
        };
    }

    /**
     * The residual key values of {@code keyRow} in the engine's representation, or null if one is
     * null (then nothing matches). Taken in the caller's thread: the planner may reuse its key row
     * once the lookup call returns.
     */
    @Nullable
    public Object[] residualValues(RowData keyRow) {
        if (residualKeyPositions.length == 0) {
            return NO_RESIDUAL; // never written: a lookup without residual keys allocates nothing
        }
        Object[] values = new Object[residualKeyPositions.length];
        for (int i = 0; i < values.length; i++) {
            int k = residualKeyPositions[i];
            if (keyRow.isNullAt(k)) {
                return null;
            }
            values[i] =
                    KeyNormalizer.toEngine(
                            keyRow, k, projectedTypes.get(residualResultPositions[i]));
        }
        return values;
    }

    /**
     * Whether an engine row, before it is converted, equals {@link #residualValues} on every
     * residual key. Only the residual columns are converted (to the declared type and back, so they
     * compare as SQL compares them: a {@code TIMESTAMP(3)} column ignores the file's microseconds);
     * a row that does not match is never converted whole.
     */
    public boolean matchesResidual(Object[] residualValues, Object[] engineRow) {
        if (residualValues.length == 0) {
            return true;
        }
        for (int i = 0; i < residualValues.length; i++) {
            int r = residualResultPositions[i];
            Object value = engineRow[r];
            if (value == null) {
                return false;
            }
            LogicalType type = projectedTypes.get(r);
            Object sqlValue = KeyNormalizer.toEngine(RowDataConverter.toFlink(value, type), type);
            if (!sqlEquals(residualValues[i], sqlValue)) {
                return false;
            }
        }
        return true;
    }

    /**
     * SQL equality of two non-null values in the engine's representation: numbers of FLOAT and
     * DOUBLE compare by value ({@code -0.0 = 0.0}, {@code NaN} equals nothing), unlike {@link
     * Double#equals}; arrays by content; the rest by {@code equals}.
     */
    static boolean sqlEquals(Object expected, Object actual) {
        if (expected instanceof Double d) {
            return d.doubleValue() == ((Double) actual).doubleValue();
        }
        if (expected instanceof Float f) {
            return f.floatValue() == ((Float) actual).floatValue();
        }
        return Objects.deepEquals(expected, actual);
    }

    private static int indexOf(List<String> names, String name) {
        int i = names.indexOf(name);
        if (i < 0) {
            throw new IllegalArgumentException("column " + name + " not in " + names);
        }
        return i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LookupSpec that
                && projectedNames.equals(that.projectedNames)
                && projectedTypes.equals(that.projectedTypes)
                && keyNames.equals(that.keyNames)
                && normalizer.keyColumns().equals(that.normalizer.keyColumns())
                && Arrays.equals(residualKeyPositions, that.residualKeyPositions)
                && Arrays.equals(residualResultPositions, that.residualResultPositions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(projectedNames, keyNames, normalizer.keyColumns());
    }

    /**
     * Splits lookup key columns into the engine's key and the rest, which are compared on the
     * returned rows. The engine's key is the longest leading prefix of the sort key among the keys
     * (in sort order) when they contain the first sort-key column; otherwise, unless {@code
     * secondaryKeys} refuses it, a secondary key: every key column of a type a key can have, in the
     * planner's order, served through a key index per file on those columns (BOOLEAN, FLOAT and
     * DOUBLE keys are compared on the rows found). Example: sorted by {@code id}, the keys {@code
     * (id, country)} give {@code [id]}; {@code (email, score)} with a DOUBLE score give {@code
     * [email]}.
     *
     * @param columns the table's columns (for the key columns' types)
     * @throws ValidationException if the keys contain no sort-key prefix and secondary keys are
     *     refused, or none of them can be a key
     */
    public static List<String> engineKey(
            String tableName,
            String filesDescription,
            List<String> keys,
            List<String> sortKey,
            List<ColumnSchema> columns,
            ParquetLookupOptions.SecondaryKeys secondaryKeys) {
        List<String> prefix = new ArrayList<>();
        for (String column : sortKey) {
            if (!keys.contains(column)) {
                break;
            }
            prefix.add(column);
        }
        if (!prefix.isEmpty()) {
            return prefix;
        }
        if (secondaryKeys == ParquetLookupOptions.SecondaryKeys.REFUSE) {
            throw new ValidationException(
                    String.format(
                            "Lookup join on table '%s' uses the key %s, but the files (%s) are"
                                    + " sorted by %s and 'secondary-keys' = 'refuse': a lookup"
                                    + " join must give the sort key or a leading prefix of it,"
                                    + " i.e. an equality condition on '%s' at least. Fix: join on"
                                    + " %s, set 'secondary-keys' = 'index' (the default: a key"
                                    + " index per file on the join's columns), or rewrite the"
                                    + " files sorted by %s (e.g. with the 'prepare' tool; plain"
                                    + " Parquet files only: never rewrite a Delta or Iceberg"
                                    + " table's data files); if the files are already sorted that"
                                    + " way but do not declare it, set 'sort-key' = '%s'.",
                            tableName,
                            keys,
                            filesDescription,
                            sortKey,
                            sortKey.isEmpty() ? "?" : sortKey.get(0),
                            sortKey,
                            keys,
                            String.join(",", keys)));
        }
        List<String> secondary = new ArrayList<>();
        for (String key : keys) {
            for (ColumnSchema column : columns) {
                if (column.name().equals(key) && canBeKey(column.type().kind())) {
                    secondary.add(key);
                }
            }
        }
        if (secondary.isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Lookup join on table '%s' uses the key %s, but none of these columns"
                                    + " can be a lookup key (BOOLEAN, FLOAT and DOUBLE columns"
                                    + " cannot), and the files (%s) are sorted by %s. Fix: add an"
                                    + " equality condition on '%s' or on another column of a key"
                                    + " type (docs/sql-connector.md#lookup-keys).",
                            tableName,
                            keys,
                            filesDescription,
                            sortKey,
                            sortKey.isEmpty() ? "?" : sortKey.get(0)));
        }
        return secondary;
    }

    /** Whether the engine's key {@code engineKey} is a leading prefix of {@code sortKey}. */
    public static boolean isSortKeyPrefix(List<String> engineKey, List<String> sortKey) {
        return engineKey.size() <= sortKey.size()
                && sortKey.subList(0, engineKey.size()).equals(engineKey);
    }

    private static boolean canBeKey(ValueType.Kind kind) {
        return switch (kind) {
            case BOOLEAN, FLOAT, DOUBLE, ARRAY, MAP, ROW, NESTED, UNSUPPORTED -> false;
            default -> true;
        };
    }
}
