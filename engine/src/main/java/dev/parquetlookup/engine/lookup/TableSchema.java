package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.Widening;

import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The one schema-compatibility check: whether files (often from several writers) can serve as one
 * table, and the table's columns. {@link DimensionTable} refuses files that disagree with it, and
 * {@code inspect} reports the same disagreements file by file.
 *
 * <p>Files agree on a column when the engine reads it as the same {@link ValueType} from each of
 * them, so the rows they return are alike. Differences the engine does not see are allowed:
 *
 * <ul>
 *   <li>nullability: {@code required int64 k} in one file, {@code optional int64 k} in another (as
 *       parquet-java and DuckDB write); the table's column is nullable if any file's is;
 *   <li>the physical type when the logical type agrees: {@code DECIMAL(10,2)} stored as {@code
 *       INT64} in one file and as {@code FIXED_LEN_BYTE_ARRAY} in another;
 *   <li>lossless widening ({@link Widening}): {@code int32 id} in one file and {@code int64 id} in
 *       another is a BIGINT column; FLOAT and DOUBLE a DOUBLE column; the values of the narrower
 *       files are converted when rows are assembled ({@link #conversions});
 *   <li>for sort-key columns, additionally, keys must compare alike (see {@link KeyType}): INT32
 *       and INT64 keys do (both as {@code long}); an {@code INT64} decimal key and a {@code FIXED}
 *       decimal key do not, and are refused.
 * </ul>
 *
 * Columns missing from some files, and columns read as types no type holds without loss ({@code
 * INT} in one file, {@code STRING} or {@code DOUBLE} in another), are refused, naming the files on
 * each side.
 */
public final class TableSchema {

    private TableSchema() {}

    /** One way files disagree, for messages and reports. */
    public record Difference(String column, String description) {
        @Override
        public String toString() {
            return description;
        }
    }

    /** The top-level columns of one file, in file order. */
    public static List<ColumnSchema> columnsOf(MessageType schema) {
        List<ColumnSchema> result = new ArrayList<>();
        for (Type field : schema.getFields()) {
            result.add(
                    new ColumnSchema(
                            field.getName(),
                            ColumnTypes.valueType(field),
                            !field.isRepetition(Type.Repetition.REQUIRED),
                            field.toString().trim()));
        }
        return Collections.unmodifiableList(result);
    }

    /**
     * The columns of a table made of {@code files}, which must share a sort key and agree on every
     * column (see the class comment).
     *
     * @throws LookupFileException naming the files on each side of the first disagreement
     */
    public static List<ColumnSchema> of(List<FileMetadata> files) {
        return of(
                files.stream().map(FileMetadata::file).toList(),
                files.stream().map(FileMetadata::schema).toList(),
                files.stream().map(FileMetadata::sortKey).toList());
    }

    /**
     * Like {@link #of(List)} for files given by their schemas and sort keys as the table sees them
     * (a table format's files: renamed columns under the table's names, constant columns added; see
     * {@link ColumnBinding}).
     */
    public static List<ColumnSchema> of(
            List<FileId> ids, List<MessageType> schemas, List<List<String>> sortKeys) {
        for (int i = 1; i < ids.size(); i++) {
            if (!sortKeys.get(0).equals(sortKeys.get(i))) {
                throw new LookupFileException(
                        "Files of one table must share a sort key: "
                                + ids.get(0)
                                + " is sorted by "
                                + sortKeys.get(0)
                                + " but "
                                + ids.get(i)
                                + " by "
                                + sortKeys.get(i)
                                + ". Set 'sort-key', or rewrite them with 'prepare'"
                                + LookupFileException.PLAIN_FILES_ONLY
                                + ".");
            }
        }
        List<Difference> differences = differences(ids, schemas, sortKeys.get(0));
        if (!differences.isEmpty()) {
            throw new LookupFileException(
                    differences.get(0).description()
                            + ". Files of one table must have the same columns, read as the same"
                            + " types (nullability, the physical storage of one logical type and"
                            + " lossless widening such as INT32 to INT64 or FLOAT to DOUBLE may"
                            + " differ): rewrite the odd files with that column's type, or move"
                            + " them out of the table's path"
                            + LookupFileException.TABLE_WRITERS_ONLY
                            + ".");
        }
        return merged(schemas);
    }

    /**
     * Every column on which {@code files} disagree; empty when they can serve as one table.
     *
     * @param sortKey the sort-key columns, whose keys must also compare alike; may be empty
     */
    public static List<Difference> differences(
            List<FileId> files, List<MessageType> schemas, List<String> sortKey) {
        Map<String, List<Integer>> present = new LinkedHashMap<>();
        for (MessageType schema : schemas) {
            for (Type field : schema.getFields()) {
                present.putIfAbsent(field.getName(), new ArrayList<>());
            }
        }
        List<Difference> result = new ArrayList<>();
        for (String column : present.keySet()) {
            // Group the files by how the column reads in them.
            Map<String, List<Integer>> byType = new LinkedHashMap<>();
            List<Integer> missing = new ArrayList<>();
            for (int i = 0; i < schemas.size(); i++) {
                MessageType schema = schemas.get(i);
                if (!schema.containsField(column)) {
                    missing.add(i);
                    continue;
                }
                Type field = schema.getType(column);
                byType.computeIfAbsent(
                                readAs(field, sortKey.contains(column)), k -> new ArrayList<>())
                        .add(i);
            }
            if (!missing.isEmpty()) {
                result.add(
                        new Difference(
                                column,
                                "Column '"
                                        + column
                                        + "' is in "
                                        + names(files, byType.values().iterator().next())
                                        + " but not in "
                                        + names(files, missing)));
            } else if (byType.size() > 1 && !widens(column, byType.values(), schemas, sortKey)) {
                List<String> sides = new ArrayList<>();
                for (List<Integer> group : byType.values()) {
                    Type field = schemas.get(group.get(0)).getType(column);
                    sides.add(field.toString().trim() + " in " + names(files, group));
                }
                result.add(
                        new Difference(
                                column,
                                "Column '" + column + "' is " + String.join(" but ", sides)));
            }
        }
        return result;
    }

    /**
     * A column a table was opened with, and how a later snapshot has it ({@code after} is null when
     * the snapshot lacks it).
     */
    public record Change(ColumnSchema before, @Nullable ColumnSchema after) {}

    /**
     * The first column of {@code before} that {@code after} lacks or reads as another type, or null
     * when plans made on {@code before} still fit: the rule of {@link #of}, applied to a refreshed
     * snapshot (nullability may change, the type read may not).
     */
    @Nullable
    public static Change firstChange(List<ColumnSchema> before, List<ColumnSchema> after) {
        for (ColumnSchema column : before) {
            ColumnSchema now =
                    after.stream()
                            .filter(c -> c.name().equals(column.name()))
                            .findFirst()
                            .orElse(null);
            if (now == null || !now.type().equals(column.type())) {
                return new Change(column, now);
            }
        }
        return null;
    }

    /**
     * Whether one type holds every group's values without loss and, for a sort-key column, every
     * group's keys compare alike.
     */
    private static boolean widens(
            String column,
            Iterable<List<Integer>> groups,
            List<MessageType> schemas,
            List<String> sortKey) {
        ValueType common = null;
        KeyType.Kind keyKind = null;
        for (List<Integer> group : groups) {
            Type field = schemas.get(group.get(0)).getType(column);
            ValueType type = ColumnTypes.valueType(field);
            common = common == null ? type : Widening.common(common, type);
            if (common == null) {
                return false;
            }
            if (sortKey.contains(column)) {
                KeyType key = field.isPrimitive() ? KeyType.of(field.asPrimitiveType()) : null;
                if (key == null || (keyKind != null && keyKind != key.kind())) {
                    return false;
                }
                keyKind = key.kind();
            }
        }
        return true;
    }

    /**
     * The columns of a file whose values change representation when served as the table's type (an
     * INT32 file's {@code Integer}s in a BIGINT column), with that type; usually empty.
     */
    public static Map<String, ValueType> conversions(
            MessageType fileSchema, List<ColumnSchema> tableColumns) {
        Map<String, ValueType> result = new LinkedHashMap<>();
        for (ColumnSchema column : tableColumns) {
            if (fileSchema.containsField(column.name())) {
                ValueType read = ColumnTypes.valueType(fileSchema.getType(column.name()));
                if (Widening.changesValues(read, column.type())) {
                    result.put(column.name(), column.type());
                }
            }
        }
        return result;
    }

    /** The engine type of a column, plus how its keys compare when it is a sort-key column. */
    private static String readAs(Type field, boolean key) {
        ValueType type = ColumnTypes.valueType(field);
        if (!key || !field.isPrimitive()) {
            return type.toString();
        }
        KeyType keyType = KeyType.of(field.asPrimitiveType());
        return type + "/" + (keyType == null ? "none" : keyType.kind());
    }

    /**
     * The first file's columns, nullable where any file's column is, of the type holding every
     * file's values (the wider one where files differ).
     */
    private static List<ColumnSchema> merged(List<MessageType> schemas) {
        List<ColumnSchema> first = columnsOf(schemas.get(0));
        List<ColumnSchema> result = new ArrayList<>(first.size());
        for (ColumnSchema column : first) {
            boolean nullable = column.nullable();
            ValueType type = column.type();
            String parquetType = column.parquetType();
            for (MessageType schema : schemas) {
                Type field = schema.getType(column.name());
                ValueType read = ColumnTypes.valueType(field);
                if (!read.equals(type)) {
                    // differences() found a common type for every pair.
                    ValueType common = Widening.common(type, read);
                    if (common != null && !common.equals(type)) {
                        type = common;
                        parquetType = field.toString().trim();
                    }
                }
                if (!field.isRepetition(Type.Repetition.REQUIRED) && !nullable) {
                    nullable = true;
                    parquetType = field.toString().trim();
                }
            }
            result.add(new ColumnSchema(column.name(), type, nullable, parquetType));
        }
        return Collections.unmodifiableList(result);
    }

    private static String names(List<FileId> files, List<Integer> indexes) {
        List<String> names = new ArrayList<>();
        for (int i : indexes) {
            if (names.size() == 3) {
                names.add("and " + (indexes.size() - 3) + " more");
                break;
            }
            names.add(Objects.toString(files.get(i)));
        }
        return String.join(", ", names);
    }
}
