package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.ValueType;

import javax.annotation.Nullable;

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
}
