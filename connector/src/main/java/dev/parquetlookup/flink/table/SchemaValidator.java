package dev.parquetlookup.flink.table;

import dev.parquetlookup.engine.lookup.ColumnSchema;

import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.LogicalType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Planning-time checks of a table declaration against its files: every declared column must exist
 * in the files with a type {@link TypeMapping} accepts, and a lookup join must give the sort key or
 * a leading prefix of it. Errors list every problem at once and say how to fix it.
 *
 * <p>Example message: {@code Table 'customers' does not match its files (file:/data/c.parquet):
 * column 'credit': Parquet type 'optional int64 credit (DECIMAL(12,2))' is DECIMAL(12, 2), declared
 * DECIMAL(10, 2); declare it as DECIMAL(12, 2).}
 */
public final class SchemaValidator {

    private SchemaValidator() {}

    /**
     * Checks the declared physical columns against the files' columns.
     *
     * @param filesDescription the file (or "directory (n files, first: f)") for the message
     * @throws ValidationException listing every missing or mistyped column
     */
    public static void validateColumns(
            String tableName,
            String filesDescription,
            List<ColumnSchema> fileColumns,
            List<String> declaredNames,
            List<LogicalType> declaredTypes) {
        Map<String, ColumnSchema> byName = new LinkedHashMap<>();
        for (ColumnSchema column : fileColumns) {
            byName.put(column.name(), column);
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < declaredNames.size(); i++) {
            String name = declaredNames.get(i);
            LogicalType declared = declaredTypes.get(i);
            ColumnSchema column = byName.get(name);
            if (column == null) {
                problems.add(missing(name, declared, byName));
            } else if (!TypeMapping.accepts(column.type(), declared)) {
                problems.add(mismatch(column, declared));
            }
        }
        if (!problems.isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Table '%s' does not match its Parquet files (%s):%n  - %s",
                            tableName, filesDescription, String.join("\n  - ", problems)));
        }
    }

    private static String missing(
            String name, LogicalType declared, Map<String, ColumnSchema> byName) {
        String hint = "";
        for (String candidate : byName.keySet()) {
            if (candidate.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
                hint = " (names are case-sensitive: the files have '" + candidate + "')";
            }
        }
        return String.format(
                "column '%s' (SQL type %s) is not in the files%s; the files have columns %s."
                        + " Remove the column from the table or rename it to a file column.",
                name, declared.asSummaryString(), hint, byName.keySet());
    }

    private static String mismatch(ColumnSchema column, LogicalType declared) {
        String suggestion = TypeMapping.suggest(column.type());
        String fix =
                suggestion == null
                        ? "parquet-lookup cannot read this type (a MAP without values, a nested"
                                + " field of an unsupported type, or INTERVAL, FLOAT16, unsigned"
                                + " 64-bit); remove the column from the table"
                        : "declare it as " + suggestion;
        return String.format(
                "column '%s': Parquet type '%s' is read as %s, declared SQL type %s; %s.",
                column.name(),
                column.parquetType().replaceAll("\\s+", " "),
                column.type(),
                declared.asSummaryString(),
                fix);
    }
}
