package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.types.ValueType;

import java.util.List;

/**
 * A prepared lookup: which sort-key columns are given (a leading prefix of the sort key, in sort
 * order) and which columns come back, resolved once so each lookup does no name handling.
 *
 * <p>Made by {@link DimensionTable#plan}; valid for every snapshot of the same table schema.
 *
 * @param keyColumns the key columns, a leading prefix of the sort key, in sort-key order
 * @param keyTypes their types
 * @param projectedColumns the columns returned, in the order of each result row
 * @param projectedTypes their types
 */
public record LookupPlan(
        List<String> keyColumns,
        List<ValueType> keyTypes,
        List<String> projectedColumns,
        List<ValueType> projectedTypes) {

    public LookupPlan {
        keyColumns = List.copyOf(keyColumns);
        keyTypes = List.copyOf(keyTypes);
        projectedColumns = List.copyOf(projectedColumns);
        projectedTypes = List.copyOf(projectedTypes);
    }
}
