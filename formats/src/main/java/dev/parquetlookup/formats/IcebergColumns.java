package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.TimestampValue;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types.PrimitiveBuilder;

import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.apache.parquet.schema.Types.primitive;

/**
 * How the data files of an Iceberg table version supply the table's columns ({@link
 * ColumnBinding}): each column of the current schema is found in a file by its field id (the ids
 * Iceberg writes into every Parquet file), so renamed columns and files written before a rename
 * answer alike; a column added after a file was written reads as NULL from it, as Iceberg's readers
 * do; a column the file's partition spec takes by identity is the file's partition value (a
 * constant, compared with a lookup key before any read). Files without field ids (imported ones)
 * are matched by the current names.
 */
final class IcebergColumns {

    private final Schema schema;
    private final Map<Integer, PartitionSpec> specs;
    private final String table;
    private final String version;

    /** Bindings by spec and partition value: many files share one. */
    private final Map<Object, ColumnBinding> bindings = new HashMap<>();

    IcebergColumns(Schema schema, Map<Integer, PartitionSpec> specs, String table, String version) {
        this.schema = schema;
        this.specs = specs;
        this.table = table;
        this.version = version;
    }

    /** The binding of a data file written under spec {@code specId} into partition {@code data}. */
    ColumnBinding of(int specId, StructLike data) {
        PartitionSpec spec = specs.get(specId);
        List<Object> key = new ArrayList<>();
        key.add(specId);
        List<PartitionField> identity = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < spec.fields().size(); i++) {
            PartitionField field = spec.fields().get(i);
            if (field.transform().isIdentity() && schema.findField(field.sourceId()) != null) {
                identity.add(field);
                positions.add(i);
                Object value = data.get(i, Object.class);
                key.add(value instanceof CharSequence s ? s.toString() : value);
            }
        }
        return bindings.computeIfAbsent(key, k -> bind(identity, positions, data));
    }

    private ColumnBinding bind(
            List<PartitionField> identity, List<Integer> positions, StructLike data) {
        List<ColumnBinding.Column> columns = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            Type type = parquetType(field);
            int p = indexOf(identity, field.fieldId());
            if (p >= 0) {
                Object value = data.get(positions.get(p), Object.class);
                columns.add(
                        ColumnBinding.Column.constant(
                                field.name(), type, engineValue(field, value)));
            } else {
                columns.add(
                        ColumnBinding.Column.stored(
                                field.name(), field.fieldId(), field.name(), type));
            }
        }
        return ColumnBinding.of(columns);
    }

    private static int indexOf(List<PartitionField> fields, int sourceId) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).sourceId() == sourceId) {
                return i;
            }
        }
        return -1;
    }

    /** An identity partition value in the engine's representation of the column's type. */
    private Object engineValue(Types.NestedField field, Object value) {
        if (value == null) {
            return null;
        }
        return switch (field.type().typeId()) {
            case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DATE -> value;
            case STRING -> value.toString().getBytes(StandardCharsets.UTF_8);
            case DECIMAL -> (BigDecimal) value;
            case TIME -> (Long) value * 1_000L; // micros -> nanos of the day
            case TIMESTAMP -> TimestampValue.ofEpochMicros((Long) value);
            case TIMESTAMP_NANO -> TimestampValue.ofEpochNanos((Long) value);
            case BINARY, FIXED -> bytes((ByteBuffer) value);
            default ->
                    throw new LookupFileException(
                            version
                                    + " of the Iceberg table at "
                                    + table
                                    + " is partitioned by identity on column '"
                                    + field.name()
                                    + "' of type "
                                    + field.type()
                                    + ", whose partition values parquet-lookup cannot serve."
                                    + " Partition the table by another column.");
        };
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * The Parquet type Iceberg writes for {@code field} (as its Parquet writer does: decimals as
     * INT32, INT64 or FIXED by precision), named and numbered like the field.
     */
    static Type parquetType(Types.NestedField field) {
        Repetition repetition = field.isOptional() ? Repetition.OPTIONAL : Repetition.REQUIRED;
        org.apache.iceberg.types.Type type = field.type();
        if (type.isNestedType()) {
            // Not readable by the engine (its column is refused when projected); an absent nested
            // column only needs to read as a group.
            return org.apache.parquet.schema.Types.buildGroup(repetition)
                    .addField(
                            org.apache.parquet.schema.Types.optional(PrimitiveTypeName.BINARY)
                                    .named("absent"))
                    .id(field.fieldId())
                    .named(field.name());
        }
        PrimitiveBuilder<PrimitiveType> b =
                switch (type.typeId()) {
                    case BOOLEAN -> primitive(PrimitiveTypeName.BOOLEAN, repetition);
                    case INTEGER -> primitive(PrimitiveTypeName.INT32, repetition);
                    case LONG -> primitive(PrimitiveTypeName.INT64, repetition);
                    case FLOAT -> primitive(PrimitiveTypeName.FLOAT, repetition);
                    case DOUBLE -> primitive(PrimitiveTypeName.DOUBLE, repetition);
                    case DATE ->
                            primitive(PrimitiveTypeName.INT32, repetition)
                                    .as(LogicalTypeAnnotation.dateType());
                    case TIME ->
                            primitive(PrimitiveTypeName.INT64, repetition)
                                    .as(LogicalTypeAnnotation.timeType(false, TimeUnit.MICROS));
                    case TIMESTAMP, TIMESTAMP_NANO ->
                            primitive(PrimitiveTypeName.INT64, repetition)
                                    .as(
                                            LogicalTypeAnnotation.timestampType(
                                                    timestampAdjusted(type),
                                                    type.typeId() == TypeID.TIMESTAMP
                                                            ? TimeUnit.MICROS
                                                            : TimeUnit.NANOS));
                    case STRING ->
                            primitive(PrimitiveTypeName.BINARY, repetition)
                                    .as(LogicalTypeAnnotation.stringType());
                    case UUID ->
                            primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                                    .length(16)
                                    .as(LogicalTypeAnnotation.uuidType());
                    case FIXED ->
                            primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                                    .length(((Types.FixedType) type).length());
                    case DECIMAL -> {
                        Types.DecimalType d = (Types.DecimalType) type;
                        yield WrittenTypes.decimal(d.precision(), d.scale(), repetition);
                    }
                    default -> primitive(PrimitiveTypeName.BINARY, repetition);
                };
        return b.id(field.fieldId()).named(field.name());
    }

    private static boolean timestampAdjusted(org.apache.iceberg.types.Type type) {
        return type instanceof Types.TimestampType t
                ? t.shouldAdjustToUTC()
                : ((Types.TimestampNanoType) type).shouldAdjustToUTC();
    }
}
