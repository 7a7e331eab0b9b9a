package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.types.ValueType;

import java.util.List;

/**
 * A prepared lookup: which key columns are given and which columns come back, resolved once so each
 * lookup does no name handling. The key is either a leading prefix of the sort key, in sort order
 * (the files are searched by their order), or any other set of columns, a <em>secondary key</em>
 * (the files are searched through a key index on those columns, built once per file).
 *
 * <p>Made by {@link DimensionTable#plan}; valid for every snapshot of the same table schema.
 * Example: on files sorted by {@code id}, {@code plan([id], ...)} is sorted and {@code
 * plan([email], ...)} or {@code plan([country, id], ...)} are secondary.
 *
 * @param keyColumns the key columns: a leading prefix of the sort key in sort-key order, or (a
 *     secondary key) any columns in any order
 * @param keyTypes their types
 * @param projectedColumns the columns returned, in the order of each result row
 * @param projectedTypes their types
 * @param secondary whether the key is a secondary key (not a leading prefix of the sort key)
 */
public record LookupPlan(
        List<String> keyColumns,
        List<ValueType> keyTypes,
        List<String> projectedColumns,
        List<ValueType> projectedTypes,
        boolean secondary) {

    public LookupPlan {
        keyColumns = List.copyOf(keyColumns);
        keyTypes = List.copyOf(keyTypes);
        projectedColumns = List.copyOf(projectedColumns);
        projectedTypes = List.copyOf(projectedTypes);
    }
}
