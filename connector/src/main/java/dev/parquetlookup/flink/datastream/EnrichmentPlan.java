package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.flink.lookup.LookupSpec;
import dev.parquetlookup.flink.lookup.ParquetLookupOptions;
import dev.parquetlookup.flink.lookup.RowDataConverter;
import dev.parquetlookup.flink.lookup.TableFiles;

import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link ParquetEnrichment#join} resolves against the files before the job starts: the key
 * columns (named, or the sort key's first columns for positional key functions), the prefix of them
 * the engine searches by, and the columns read with their types; shipped with the function. Every
 * mistake is reported here, on the client, with the files' columns and sort key.
 *
 * @param spec the lookup's columns and keys, as the SQL glue has them
 * @param keyFields the key columns with their types, in key-function order
 * @param enginePositions for each engine key column, its position among the key functions
 * @param outputColumns how many of the spec's leading columns reach the join function
 */
record EnrichmentPlan(
        LookupSpec spec, List<KeyField> keyFields, int[] enginePositions, int outputColumns)
        implements Serializable {

    /**
     * Resolves a DataStream enrichment against the files.
     *
     * @param keyColumns the named key columns, or null for positional key functions
     * @param keyCount how many key functions were given
     * @param columns the columns asked for, or null for every readable column
     * @param secondaryKeys whether keys without the first sort-key column are served through key
     *     indexes
     * @throws IllegalArgumentException if a column is missing or unreadable, or too many positional
     *     keys were given
     * @throws org.apache.flink.table.api.ValidationException if the key is not a leading prefix of
     *     the sort key and secondary keys are refused, or no key column can be a key
     */
    static EnrichmentPlan resolve(
            String tableName,
            TableFiles files,
            @Nullable List<String> keyColumns,
            int keyCount,
            @Nullable List<String> columns,
            ParquetLookupOptions.SecondaryKeys secondaryKeys) {
        Map<String, ColumnSchema> byName = new LinkedHashMap<>();
        for (ColumnSchema column : files.columns()) {
            byName.put(column.name(), column);
        }

        List<String> keys = keys(tableName, files, keyColumns, keyCount);
        List<String> enginePrefix =
                LookupSpec.engineKey(
                        tableName,
                        files.description(),
                        keys,
                        files.sortKey(),
                        files.columns(),
                        secondaryKeys);

        List<String> outputNames;
        if (columns != null) {
            outputNames = columns;
        } else {
            outputNames = new ArrayList<>();
            for (ColumnSchema column : files.columns()) {
                if (RowDataConverter.logicalType(column.type()) != null) {
                    outputNames.add(column.name());
                }
            }
        }
        // The key columns are read anyway; the SQL glue wants them among the projected columns.
        List<String> projected = new ArrayList<>(outputNames);
        for (String key : keys) {
            if (!projected.contains(key)) {
                projected.add(key);
            }
        }
        List<String> problems = new ArrayList<>();
        List<LogicalType> types = new ArrayList<>();
        for (String column : projected) {
            ColumnSchema schema = byName.get(column);
            LogicalType type = schema == null ? null : RowDataConverter.logicalType(schema.type());
            if (schema == null) {
                problems.add("column '" + column + "' is not in the files");
            } else if (type == null) {
                problems.add(
                        "column '"
                                + column
                                + "' ("
                                + schema.parquetType()
                                + ") is of a type or nested shape the connector cannot read; leave it out of"
                                + " columns()");
            }
            types.add(type);
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table '%s' (%s): %s. The files have columns %s.",
                            tableName,
                            files.description(),
                            String.join("; ", problems),
                            byName.keySet()));
        }
        if (new HashSet<>(outputNames).size() != outputNames.size()) {
            throw new IllegalArgumentException("columns() names a column twice: " + outputNames);
        }

        List<KeyField> keyFields = new ArrayList<>();
        for (String key : keys) {
            keyFields.add(KeyField.of(key, byName.get(key).type()));
        }
        int[] enginePositions = new int[enginePrefix.size()];
        for (int i = 0; i < enginePositions.length; i++) {
            enginePositions[i] = keys.indexOf(enginePrefix.get(i));
        }
        return new EnrichmentPlan(
                LookupSpec.of(projected, types, keys, enginePrefix),
                keyFields,
                enginePositions,
                outputNames.size());
    }

    /** The key columns: the named ones, or the sort key's first {@code keyCount} columns. */
    private static List<String> keys(
            String tableName, TableFiles files, @Nullable List<String> keyColumns, int keyCount) {
        if (keyColumns != null) {
            return new ArrayList<>(keyColumns);
        }
        if (keyCount > files.sortKey().size()) {
            throw new IllegalArgumentException(
                    String.format(
                            "Table '%s' (%s) is sorted by %s, but %d key functions were given:"
                                    + " give at most one per sort-key column, or name the"
                                    + " extra columns with key(column, extractor).",
                            tableName, files.description(), files.sortKey(), keyCount));
        }
        return new ArrayList<>(files.sortKey().subList(0, keyCount));
    }
}
