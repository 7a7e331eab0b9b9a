package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.source.SnapshotSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.SortKeyResolver;

import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one data file of a table version supplies the table's columns: each column is found in the
 * file (by Parquet field id, else by its physical name), or is absent from the file and read as
 * NULL (a column added after the file was written), or is a constant of the file (a partition value
 * the format keeps in its metadata). A {@link SnapshotSource} supplies one with each file of a
 * listing ({@link SnapshotSource.Listing#columns()}), as it does {@link DeletedRows}; files without
 * one are read {@link #BY_NAME}: every column of the file under its own name.
 *
 * <p>The engine resolves a binding against the file's footer once at open ({@link #resolve}); a
 * lookup then reads the same pages as on a file whose columns carry the table's names, and a key
 * column that is a constant of the file is compared without reading anything (a file whose constant
 * differs from the key is skipped).
 *
 * <p>Example: an Iceberg file written before {@code name} was renamed {@code full_name} and before
 * {@code score} was added, in partition {@code region = 'eu'}: {@code ColumnBinding.of(List.of(
 * Column.stored("id", 1, "id", idType), Column.stored("full_name", 2, "full_name", nameType),
 * Column.stored("score", 3, "score", scoreType), Column.constant("region", regionType,
 * "eu".getBytes(UTF_8))))} reads {@code full_name} from the file's field 2 (named {@code name}
 * there), {@code score} as NULL and {@code region} as {@code 'eu'}.
 */
public final class ColumnBinding {

    /** Every column of the file, under the name the file gives it (a directory's files). */
    public static final ColumnBinding BY_NAME = new ColumnBinding(null);

    /**
     * One column of the table as a file supplies it.
     *
     * @param name the table's name of the column
     * @param fieldId the Parquet field id to find it by in files that carry field ids, or null
     * @param physicalName the name to find it by otherwise (or when no field has the id but the
     *     file carries no ids), or null for a constant
     * @param type the column's Parquet type (any name) for a constant, or for a stored column a
     *     file lacks (then read as NULL); null when the column must be in every file
     * @param constant whether the column is a constant of the file
     * @param value the constant, in {@link dev.parquetlookup.types.ValueType}'s representation of
     *     {@code type} (null: SQL NULL)
     */
    public record Column(
            String name,
            @Nullable Integer fieldId,
            @Nullable String physicalName,
            @Nullable Type type,
            boolean constant,
            @Nullable Object value) {
        public Column {
            Objects.requireNonNull(name, "name");
            if (constant && type == null) {
                throw new IllegalArgumentException("constant column '" + name + "' needs a type");
            }
            if (!constant && fieldId == null && physicalName == null) {
                throw new IllegalArgumentException(
                        "stored column '" + name + "' needs a field id or a physical name");
            }
        }

        /**
         * A column stored in the file, found by {@code fieldId} (when the file's fields carry ids)
         * or {@code physicalName}; when absent, read as NULL of {@code typeWhenAbsent} (null: an
         * absent column is refused).
         */
        public static Column stored(
                String name,
                @Nullable Integer fieldId,
                @Nullable String physicalName,
                @Nullable Type typeWhenAbsent) {
            return new Column(name, fieldId, physicalName, typeWhenAbsent, false, null);
        }

        /**
         * A column every row of the file has the same {@code value} of (of Parquet {@code type}).
         */
        public static Column constant(String name, Type type, @Nullable Object value) {
            return new Column(name, null, null, type, true, value);
        }
    }

    /** Null for {@link #BY_NAME}. */
    @Nullable private final List<Column> columns;

    private ColumnBinding(@Nullable List<Column> columns) {
        this.columns = columns;
    }

    /** The table's columns in the table's order, as a file supplies them. */
    public static ColumnBinding of(List<Column> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a binding needs at least one column");
        }
        return new ColumnBinding(List.copyOf(columns));
    }

    /** The columns, or empty for {@link #BY_NAME}. */
    public List<Column> columns() {
        return columns == null ? List.of() : columns;
    }

    /**
     * A key for the metadata cache that tells bindings apart which find the sort key {@code
     * tableKey} differently in a file: the names themselves for {@link #BY_NAME}.
     */
    List<String> cacheKey(List<String> tableKey) {
        if (columns == null) {
            return tableKey;
        }
        List<String> key = new ArrayList<>(tableKey.size() + 1);
        key.add("\0binding");
        for (String name : tableKey) {
            Column c = column(name);
            key.add(
                    c == null
                            ? name
                            : c.constant()
                                    ? name + "\0constant"
                                    : name + "\0" + c.fieldId() + "\0" + c.physicalName());
        }
        return key;
    }

    @Nullable
    private Column column(String name) {
        for (Column c : columns()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * The binding applied to one file's schema.
     *
     * @param view the file's schema as the table sees it: the table's columns under the table's
     *     names, in the table's order (a constant or absent column with its declared type)
     * @param physical table name to the file's top-level field name, for the columns it stores
     * @param constants table name to value, for constant and absent columns
     */
    record Resolved(MessageType view, Map<String, String> physical, Map<String, Object> constants) {

        /** The file's name of table column {@code name}, or null for a constant one. */
        @Nullable
        String physicalName(String name) {
            return physical.get(name);
        }

        boolean isConstant(String name) {
            return constants.containsKey(name);
        }

        /** The table's name of the file's field {@code physicalName}, or null if unbound. */
        @Nullable
        String tableName(String physicalName) {
            for (Map.Entry<String, String> e : physical.entrySet()) {
                if (e.getValue().equals(physicalName)) {
                    return e.getKey();
                }
            }
            return null;
        }
    }

    /**
     * One file seen with the table's names, for tools that report on a table's files ({@code
     * inspect}).
     *
     * @param tableSchema the file's schema as the table sees it (table names, table order)
     * @param tableNameOfField the table's name of each top-level field the file stores
     * @param storedKey a table sort key in the file's own names (empty: the file's declared one)
     */
    public record FileView(
            MessageType tableSchema,
            Map<String, String> tableNameOfField,
            List<String> storedKey) {}

    /** {@code schema}, a file's, seen with the table's names; {@code tableKey} may be empty. */
    public FileView view(FileId file, MessageType schema, List<String> tableKey) {
        Resolved resolved = resolve(file, schema);
        Map<String, String> names = new LinkedHashMap<>();
        resolved.physical().forEach((table, field) -> names.put(field, table));
        return new FileView(
                resolved.view(),
                Collections.unmodifiableMap(names),
                tableKey.isEmpty() ? List.of() : FileColumns.storedKey(file, resolved, tableKey));
    }

    /**
     * The sort key {@code tableKey} in the names {@code file} stores it under (a column-mapped
     * Delta file's {@code col-<uuid>}), with the table's names beside for messages.
     */
    public SortKeyResolver.KeyNames keyNames(
            FileId file, MessageType schema, List<String> tableKey) {
        Resolved resolved = resolve(file, schema);
        List<String> stored = FileColumns.storedKey(file, resolved, tableKey);
        return new SortKeyResolver.KeyNames(
                stored, stored.stream().map(resolved::tableName).toList());
    }

    /**
     * Finds the columns in the file with schema {@code schema}.
     *
     * @throws LookupFileException naming the file and column when a column without a type for its
     *     absence is not in the file
     */
    Resolved resolve(FileId file, MessageType schema) {
        if (columns == null) {
            Map<String, String> identity = new LinkedHashMap<>();
            for (Type field : schema.getFields()) {
                identity.put(field.getName(), field.getName());
            }
            return new Resolved(schema, Collections.unmodifiableMap(identity), Map.of());
        }
        Map<Integer, Type> byId = new HashMap<>();
        for (Type field : schema.getFields()) {
            if (field.getId() != null) {
                byId.put(field.getId().intValue(), field);
            }
        }
        List<Type> view = new ArrayList<>();
        Map<String, String> physical = new LinkedHashMap<>();
        Map<String, Object> constants = new HashMap<>();
        for (Column c : columns) {
            Type field = c.constant() ? null : find(c, schema, byId);
            if (field != null) {
                view.add(renamed(field, c.name()));
                physical.put(c.name(), field.getName());
            } else if (c.type() != null) {
                view.add(renamed(optional(c.type()), c.name()));
                constants.put(c.name(), c.constant() ? c.value() : null);
            } else {
                throw new LookupFileException(
                        "File "
                                + file
                                + " has no column '"
                                + c.name()
                                + "' ("
                                + (c.fieldId() != null ? "field id " + c.fieldId() + ", " : "")
                                + "stored as '"
                                + c.physicalName()
                                + "'). The table's metadata lists the file with that column;"
                                + " restore the file or repair the table.");
            }
        }
        return new Resolved(
                new MessageType(schema.getName(), view),
                Collections.unmodifiableMap(physical),
                Collections.unmodifiableMap(constants));
    }

    /** The file's field of column {@code c}: by id when the file carries ids, else by name. */
    @Nullable
    private static Type find(Column c, MessageType schema, Map<Integer, Type> byId) {
        if (c.fieldId() != null && !byId.isEmpty()) {
            return byId.get(c.fieldId());
        }
        if (c.physicalName() != null && schema.containsField(c.physicalName())) {
            return schema.getType(c.physicalName());
        }
        return null;
    }

    private static Type optional(Type type) {
        if (type.isRepetition(Type.Repetition.OPTIONAL)) {
            return type;
        }
        return type.isPrimitive()
                ? Types.optional(type.asPrimitiveType().getPrimitiveTypeName())
                        .as(type.getLogicalTypeAnnotation())
                        .length(type.asPrimitiveType().getTypeLength())
                        .named(type.getName())
                : Types.buildGroup(Type.Repetition.OPTIONAL)
                        .as(type.getLogicalTypeAnnotation())
                        .addFields(type.asGroupType().getFields().toArray(new Type[0]))
                        .named(type.getName());
    }

    /** {@code type} under another name (field id, repetition and annotation kept). */
    static Type renamed(Type type, String name) {
        if (type.getName().equals(name)) {
            return type;
        }
        if (type.isPrimitive()) {
            PrimitiveType p = type.asPrimitiveType();
            Types.PrimitiveBuilder<PrimitiveType> b =
                    Types.primitive(p.getPrimitiveTypeName(), p.getRepetition())
                            .as(p.getLogicalTypeAnnotation())
                            .length(p.getTypeLength());
            return p.getId() == null ? b.named(name) : b.id(p.getId().intValue()).named(name);
        }
        GroupType g = type.asGroupType();
        Types.GroupBuilder<GroupType> b =
                Types.buildGroup(g.getRepetition())
                        .as(g.getLogicalTypeAnnotation())
                        .addFields(g.getFields().toArray(new Type[0]));
        return g.getId() == null ? b.named(name) : b.id(g.getId().intValue()).named(name);
    }

    @Override
    public String toString() {
        return columns == null ? "ColumnBinding.BY_NAME" : "ColumnBinding" + columns;
    }
}
