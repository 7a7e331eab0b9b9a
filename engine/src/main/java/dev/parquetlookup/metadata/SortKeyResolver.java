package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decides which columns a file is looked up by: the sort order the file declares ({@code
 * sorting_columns}, else our writer's key-value entry) and the one the table configures, checked
 * against each other and against the schema. Stateless.
 *
 * <p>Example: a file declaring {@code sorting_columns = [a, b]} resolves the configured key {@code
 * [a]} (a prefix) to {@code [a]}, the empty key to {@code [a, b]}, and rejects {@code [b]}.
 */
public final class SortKeyResolver {

    private SortKeyResolver() {}

    /**
     * A resolved sort key.
     *
     * @param columns the sort-key column names, leading first
     * @param types how each compares
     * @param leaves the leaf column index of each
     * @param declared what the file itself declares, empty if nothing
     * @param names the columns' names in messages: the table's where it names them otherwise
     */
    public record SortKey(
            List<String> columns,
            List<KeyType> types,
            int[] leaves,
            List<String> declared,
            List<String> names) {}

    /**
     * A sort key asked for in one file's own names, with the table's name of each column for
     * messages: a column-mapped Delta file stores {@code col-<uuid>} names, which mean nothing to
     * the user (a refusal says "not sorted by 'id'", not "by 'col-5f2…'").
     *
     * @param stored the key in the file's names (empty: the file's declared key)
     * @param table the table's name of each stored column, in the same order (null where unknown:
     *     the stored name is used)
     */
    public record KeyNames(List<String> stored, List<String> table) {

        /** A key whose names in the file are the table's. */
        public static KeyNames same(List<String> key) {
            return new KeyNames(key, key);
        }

        private String tableName(String column) {
            int i = stored.indexOf(column);
            String name = i >= 0 && i < table.size() ? table.get(i) : null;
            return name == null ? column : name;
        }
    }

    /**
     * Resolves the sort key of a file.
     *
     * @param asked the sort key the user declared, or empty to take the file's, with the table's
     *     names of its columns
     * @throws LookupFileException if no key is known, a column is missing, nested or of a type that
     *     cannot be a key, or the configured key contradicts the declared one
     */
    public static SortKey resolve(
            FileId file,
            FileMetaData thrift,
            MessageType schema,
            String createdBy,
            KeyNames asked) {
        List<String> configured = asked.stored();
        List<String> declared = declaredSortKey(file, thrift, schema);
        List<String> sortKey = configured.isEmpty() ? declared : configured;
        if (sortKey.isEmpty()) {
            throw new LookupFileException.BadSortKey(
                    "File "
                            + file
                            + " does not declare its sort order (no sorting_columns and no '"
                            + MetadataReader.SORT_KEY_METADATA
                            + "' entry; written by "
                            + createdBy
                            + "). Name the columns it is sorted by with the 'sort-key' option, or"
                            + " rewrite it with 'prepare'"
                            + LookupFileException.PLAIN_FILES_ONLY
                            + ".");
        }
        int[] leaves = new int[sortKey.size()];
        List<KeyType> keyTypes = new ArrayList<>();
        for (int i = 0; i < sortKey.size(); i++) {
            String name = sortKey.get(i);
            keyTypes.add(keyType(file, schema, sortKey, name));
            // A top-level primitive column (checked above): its leaf is its path's column.
            leaves[i] =
                    schema.getColumns().indexOf(schema.getColumnDescription(new String[] {name}));
        }
        if (!declared.isEmpty() && !configured.isEmpty() && !isPrefix(configured, declared)) {
            throw new LookupFileException.BadSortKey(
                    "File "
                            + file
                            + " declares sort key "
                            + declared
                            + " but the table declares "
                            + configured
                            + ". Set 'sort-key' to "
                            + String.join(",", declared)
                            + " (or a leading part of it), or remove the option.");
        }
        return new SortKey(
                List.copyOf(sortKey),
                List.copyOf(keyTypes),
                leaves,
                declared,
                sortKey.stream().map(asked::tableName).toList());
    }

    private static KeyType keyType(
            FileId file, MessageType schema, List<String> sortKey, String name) {
        if (!schema.containsField(name)) {
            throw new LookupFileException.BadSortKey(
                    "File "
                            + file
                            + " has no column '"
                            + name
                            + "' for the sort key "
                            + sortKey
                            + "; its columns are "
                            + schema.getFields().stream().map(Type::getName).toList()
                            + ". Fix the 'sort-key' option or the table's columns.");
        }
        Type field = schema.getType(name);
        if (!field.isPrimitive()) {
            throw new LookupFileException.BadSortKey(
                    "Sort-key column '"
                            + name
                            + "' of file "
                            + file
                            + " is nested ("
                            + field
                            + "); only top-level primitive columns can be lookup keys.");
        }
        KeyType keyType = KeyType.of(field.asPrimitiveType());
        if (keyType == null) {
            throw new LookupFileException.BadSortKey(
                    "Sort-key column '"
                            + name
                            + "' of file "
                            + file
                            + " has type "
                            + field.asPrimitiveType()
                            + ", which cannot be a lookup key. Keys"
                            + " may be INT, BIGINT, STRING, BINARY, DATE, TIMESTAMP or"
                            + " DECIMAL columns.");
        }
        return keyType;
    }

    /**
     * The sort order a file declares: its {@code sorting_columns}, else the {@value
     * MetadataReader#SORT_KEY_METADATA} key-value entry, else empty.
     *
     * @throws LookupFileException if it declares a nested or a descending sort column
     */
    public static List<String> declaredSortKey(
            FileId file, FileMetaData thrift, MessageType schema) {
        List<RowGroup> groups = thrift.getRow_groups();
        if (groups != null && !groups.isEmpty() && groups.get(0).isSetSorting_columns()) {
            List<String> names = new ArrayList<>();
            for (SortingColumn sc : groups.get(0).getSorting_columns()) {
                String[] path = schema.getColumns().get(sc.getColumn_idx()).getPath();
                String name = String.join(".", path);
                if (path.length > 1) {
                    throw new LookupFileException.BadSortKey(
                            "File "
                                    + file
                                    + " is sorted by the nested column '"
                                    + name
                                    + "'; only top-level columns can be lookup keys. Set"
                                    + " 'sort-key' to top-level columns the file is sorted by, or"
                                    + " rewrite it with 'prepare'"
                                    + LookupFileException.PLAIN_FILES_ONLY
                                    + ".");
                }
                if (sc.isDescending()) {
                    throw new LookupFileException(
                            "File "
                                    + file
                                    + " is sorted descending by '"
                                    + name
                                    + "'; lookups need"
                                    + " ascending order. Rewrite it with 'prepare --key "
                                    + name
                                    + "'"
                                    + LookupFileException.PLAIN_FILES_ONLY
                                    + ".");
                }
                names.add(name);
            }
            if (!names.isEmpty()) {
                return List.copyOf(names);
            }
        }
        if (thrift.getKey_value_metadata() != null) {
            for (KeyValue kv : thrift.getKey_value_metadata()) {
                if (MetadataReader.SORT_KEY_METADATA.equals(kv.getKey())
                        && kv.getValue() != null
                        && !kv.getValue().isBlank()) {
                    return Arrays.stream(kv.getValue().split(",")).map(String::trim).toList();
                }
            }
        }
        return List.of();
    }

    private static boolean isPrefix(List<String> prefix, List<String> of) {
        return prefix.size() <= of.size() && of.subList(0, prefix.size()).equals(prefix);
    }
}
