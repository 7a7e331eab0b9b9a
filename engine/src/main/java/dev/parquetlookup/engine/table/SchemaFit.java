package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.ColumnSchema;
import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.metadata.LookupFileException;

import java.util.List;

/**
 * Whether a refreshed snapshot can answer every plan made on a table's first one: the same sort key
 * and every column still there with the same type. Plans (and the Flink functions holding them)
 * live as long as the job, so a rewrite that changes either must be refused, not served.
 */
final class SchemaFit {

    private SchemaFit() {}

    /**
     * @throws LookupFileException naming the location, the column or sort key and what to do
     */
    static void check(
            List<String> sortKey,
            List<ColumnSchema> columns,
            DimensionTable next,
            String location) {
        if (!next.sortKey().equals(sortKey)) {
            throw new LookupFileException(
                    "The files now at "
                            + location
                            + " are sorted by "
                            + next.sortKey()
                            + " but the table was opened sorted by "
                            + sortKey
                            + ". Keep the sort key when rewriting, or restart the job.");
        }
        TableSchema.Change change = TableSchema.firstChange(columns, next.columns());
        if (change != null) {
            ColumnSchema column = change.before();
            ColumnSchema now = change.after();
            throw new LookupFileException(
                    "Column '"
                            + column.name()
                            + "' was "
                            + column.parquetType()
                            + " but the files now at "
                            + location
                            + (now == null ? " do not have it" : " have " + now.parquetType())
                            + ". Keep the columns and their types when rewriting, or restart"
                            + " the job.");
        }
    }
}
