package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.lookup.TableColumns.KeyValues;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;

import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One opened file's columns as the table names them ({@link ColumnBinding} resolved against its
 * footer): which of the file's fields serves each table column, which columns are constants of the
 * file, and the table's sort key over the file. A file is verified sorted by the table's key
 * without its constant columns (within the file they do not vary), and a lookup compares the key's
 * constant parts with the file's constants before reading anything.
 *
 * <p>Example: table key {@code [region, id]}, {@code region} a partition constant {@code 'eu'}: the
 * file is verified sorted by {@code [id]}; the key {@code ('us', 7)} skips it without I/O and
 * {@code ('eu', 7)} is looked up in it as {@code (7)}.
 */
final class FileColumns {

    /** Marks a sort-key column the file stores. */
    private static final Object STORED = new Object();

    private final ColumnBinding.Resolved resolved;
    private final List<String> sortKey;
    private final List<KeyType> keyTypes;

    /**
     * Per table key column, its comparable constant ({@code null} for a NULL constant), or {@link
     * #STORED}; null when every key column is stored (the usual case: keys pass through as they
     * are).
     */
    @Nullable private final Object[] keyConstants;

    private FileColumns(
            ColumnBinding.Resolved resolved,
            List<String> sortKey,
            List<KeyType> keyTypes,
            @Nullable Object[] keyConstants) {
        this.resolved = resolved;
        this.sortKey = sortKey;
        this.keyTypes = keyTypes;
        this.keyConstants = keyConstants;
    }

    /**
     * The file's sort key to verify its statistics by: the table's {@code tableKey} without the
     * file's constant columns, under the file's names (empty when {@code tableKey} is: the file's
     * declared order).
     *
     * @throws LookupFileException if every key column is a constant of the file
     */
    static List<String> storedKey(
            FileId file, ColumnBinding.Resolved resolved, List<String> tableKey) {
        List<String> stored = new ArrayList<>();
        for (String name : tableKey) {
            if (!resolved.isConstant(name)) {
                String physical = resolved.physicalName(name);
                stored.add(physical == null ? name : physical);
            }
        }
        if (stored.isEmpty() && !tableKey.isEmpty()) {
            throw new LookupFileException(
                    "File "
                            + file
                            + ": the sort key "
                            + tableKey
                            + " is made only of columns the file does not store (partition"
                            + " values or columns added later). Add a column the files are sorted"
                            + " by to 'sort-key'.");
        }
        return stored;
    }

    /**
     * The columns of a file whose metadata {@code meta} was read with {@link #storedKey}.
     *
     * @param tableKey the table's configured sort key, or empty for the file's declared one
     */
    static FileColumns of(
            FileMetadata meta, ColumnBinding.Resolved resolved, List<String> tableKey) {
        List<String> key = tableKey.isEmpty() ? tableNames(meta, resolved) : tableKey;
        MessageType view = resolved.view();
        List<KeyType> types = new ArrayList<>(key.size());
        Object[] constants = null;
        int stored = 0;
        for (int i = 0; i < key.size(); i++) {
            String name = key.get(i);
            if (!resolved.isConstant(name)) {
                types.add(meta.keyTypes().get(stored++));
                continue;
            }
            Type field = view.getType(name);
            KeyType type = field.isPrimitive() ? KeyType.of(field.asPrimitiveType()) : null;
            if (type == null) {
                throw new LookupFileException(
                        "Column '"
                                + name
                                + "' of file "
                                + meta.file()
                                + " is "
                                + field.toString().trim()
                                + ", which cannot be a sort-key column. Fix 'sort-key'.");
            }
            types.add(type);
            if (constants == null) {
                constants = new Object[key.size()];
                java.util.Arrays.fill(constants, STORED);
            }
            Object value = resolved.constants().get(name);
            Object comparable = value == null ? null : KeyValues.comparable(type, name, value);
            constants[i] = comparable == KeyValues.NO_MATCH ? null : comparable;
        }
        return new FileColumns(resolved, List.copyOf(key), List.copyOf(types), constants);
    }

    /** The file's declared key under the table's names. */
    private static List<String> tableNames(FileMetadata meta, ColumnBinding.Resolved resolved) {
        List<String> names = new ArrayList<>();
        for (String physical : meta.sortKey()) {
            String name = resolved.tableName(physical);
            if (name == null) {
                throw new LookupFileException(
                        "File "
                                + meta.file()
                                + " is sorted by column '"
                                + physical
                                + "', which is not a column of the table. Set 'sort-key'.");
            }
            names.add(name);
        }
        return names;
    }

    /** The file's schema as the table sees it (see {@link ColumnBinding.Resolved#view()}). */
    MessageType view() {
        return resolved.view();
    }

    /** The table's sort key (the table's names). */
    List<String> sortKey() {
        return sortKey;
    }

    /** How each of the table's key columns compares. */
    List<KeyType> keyTypes() {
        return keyTypes;
    }

    /** The file's field name of table column {@code name}, or null for a constant one. */
    @Nullable
    String physicalName(String name) {
        return resolved.physicalName(name);
    }

    /** The table's name of the file's field {@code physicalName}, or null when unbound. */
    @Nullable
    String tableName(String physicalName) {
        return resolved.tableName(physicalName);
    }

    /** The table columns that are constants of the file, with their values (usually empty). */
    Map<String, Object> constants() {
        return resolved.constants();
    }

    /** Whether the file stores every key column ({@link #storedKey} is the key itself). */
    boolean storesEveryKeyColumn() {
        return keyConstants == null;
    }

    /** Whether the table's leading key column is a constant of the file. */
    boolean leadingIsConstant() {
        return keyConstants != null && keyConstants[0] != STORED;
    }

    /**
     * The leading key's constant in comparable form (null: NULL), when {@link #leadingIsConstant}.
     */
    @Nullable
    Object leadingConstant() {
        return keyConstants[0];
    }

    /**
     * The parts of {@code key} (comparable forms of the table's first {@code key.length} key
     * columns) the file stores, or null when a constant part differs from the file's constant: no
     * row of the file matches. {@code key} itself when the file stores every key column.
     */
    @Nullable
    Object[] storedKey(Object[] key) {
        if (keyConstants == null) {
            return key;
        }
        int stored = 0;
        for (int i = 0; i < key.length; i++) {
            if (keyConstants[i] == STORED) {
                stored++;
            } else if (keyConstants[i] == null
                    || keyTypes.get(i).compare(keyConstants[i], key[i]) != 0) {
                return null;
            }
        }
        Object[] result = new Object[stored];
        int j = 0;
        for (int i = 0; i < key.length; i++) {
            if (keyConstants[i] == STORED) {
                result[j++] = key[i];
            }
        }
        return result;
    }
}
