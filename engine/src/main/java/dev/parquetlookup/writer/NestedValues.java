package dev.parquetlookup.writer;

import dev.parquetlookup.types.ValueType;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Types;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * Owns the writing of nested columns (ARRAY, MAP, ROW): their Parquet shape (the spec's 3-level
 * LIST, MAP with a required key and an optional value, ROW as a group of optional fields), and
 * their prepared value, one {@link Binary} holding the whole value in a compact encoding, so the
 * sort buffer ({@link ColumnarRows}) and spilled runs ({@link ExternalSorter}) hold it as they hold
 * any binary column. {@link RowWriteSupport} decodes it into record-consumer calls.
 *
 * <p>Encoding of a non-null value: ARRAY is a count then per element a presence byte and the
 * element; MAP a count then per entry the key and a presence byte and the value; ROW per field a
 * presence byte and the field; a leaf its prepared value (1-byte boolean, int, long, float, double,
 * or length and bytes).
 */
final class NestedValues {

    private NestedValues() {}

    /** Whether values of {@code kind} are written by this class. */
    static boolean isNested(ValueType.Kind kind) {
        return kind == ValueType.Kind.ARRAY
                || kind == ValueType.Kind.MAP
                || kind == ValueType.Kind.ROW;
    }

    /** The spec a leaf inside a nested column is written with: default storage, nullable. */
    static ColumnSpec leafSpec(String name, ValueType type) {
        return new ColumnSpec(name, type, true, null, null);
    }

    /** Checks that every part of a nested type can be written. */
    static void check(String column, ValueType type) {
        for (ValueType.Field f : type.fields()) {
            switch (f.type().kind()) {
                case NESTED, UNSUPPORTED ->
                        throw new IllegalArgumentException(
                                PreparedValues.about(column, type)
                                        + ": its part '"
                                        + f.name()
                                        + "' has a type lookup files cannot hold");
                default -> {
                    if (f.type().isNested()) {
                        check(column, f.type());
                    }
                }
            }
        }
        if (type.kind() == ValueType.Kind.ROW && type.fields().isEmpty()) {
            throw new IllegalArgumentException("column '" + column + "': a ROW needs fields");
        }
    }

    // -------------------------------------------------------------------------------------------
    // Schema

    /** The Parquet type of a nested column or part. */
    static Type parquetType(String name, Type.Repetition rep, ValueType t) {
        List<ValueType.Field> f = t.fields();
        return switch (t.kind()) {
            case ARRAY ->
                    Types.buildGroup(rep)
                            .as(LogicalTypeAnnotation.listType())
                            .addField(
                                    Types.repeatedGroup()
                                            .addField(
                                                    part(
                                                            "element",
                                                            Type.Repetition.OPTIONAL,
                                                            f.get(0).type()))
                                            .named("list"))
                            .named(name);
            case MAP ->
                    Types.buildGroup(rep)
                            .as(LogicalTypeAnnotation.mapType())
                            .addField(
                                    Types.repeatedGroup()
                                            .addField(
                                                    part(
                                                            "key",
                                                            Type.Repetition.REQUIRED,
                                                            f.get(0).type()))
                                            .addField(
                                                    part(
                                                            "value",
                                                            Type.Repetition.OPTIONAL,
                                                            f.get(1).type()))
                                            .named("key_value"))
                            .named(name);
            case ROW -> {
                Types.GroupBuilder<GroupType> g = Types.buildGroup(rep);
                for (ValueType.Field field : f) {
                    g.addField(part(field.name(), Type.Repetition.OPTIONAL, field.type()));
                }
                yield g.named(name);
            }
            default -> throw new IllegalArgumentException("not nested: " + t);
        };
    }

    private static Type part(String name, Type.Repetition rep, ValueType t) {
        if (t.isNested()) {
            return parquetType(name, rep, t);
        }
        return WriterSchema.parquetType(
                new ColumnSpec(name, t, rep != Type.Repetition.REQUIRED, null, null));
    }

    // -------------------------------------------------------------------------------------------
    // Encoding

    /** A nested type compiled for encoding, once per column: its parts, and each leaf's spec. */
    static final class Part {
        private final String column;
        private final ValueType type;
        private final Part[] parts;
        private final ColumnSpec leaf;

        Part(String column, ValueType type) {
            this.column = column;
            this.type = type;
            parts = new Part[type.fields().size()];
            for (int i = 0; i < parts.length; i++) {
                parts[i] = new Part(column, type.fields().get(i).type());
            }
            leaf = type.isNested() ? null : leafSpec(column, type);
        }
    }

    /** The prepared value of a non-null nested value of column {@code c}. */
    static Binary encode(ColumnSpec c, Object value) {
        return encode(new Part(c.name(), c.type()), value);
    }

    /** The prepared value of a non-null nested value of a compiled column. */
    static Binary encode(Part column, Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            encode(column, value, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Binary.fromConstantByteArray(bytes.toByteArray());
    }

    private static void encode(Part p, Object v, DataOutputStream out) throws IOException {
        String column = p.column;
        ValueType t = p.type;
        switch (t.kind()) {
            case ARRAY -> {
                Part element = p.parts[0];
                List<?> list = cast(column, t, v, List.class, "a java.util.List");
                out.writeInt(list.size());
                for (Object e : list) {
                    optional(element, e, out);
                }
            }
            case MAP -> {
                Part key = p.parts[0];
                Part value = p.parts[1];
                Map<?, ?> map = cast(column, t, v, Map.class, "a java.util.Map");
                out.writeInt(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (e.getKey() == null) {
                        throw new IllegalArgumentException(
                                "column '" + column + "' (" + t + "): a map key is null");
                    }
                    encode(key, e.getKey(), out);
                    optional(value, e.getValue(), out);
                }
            }
            case ROW -> {
                Object[] row = cast(column, t, v, Object[].class, "an Object[]");
                if (row.length != t.fields().size()) {
                    throw new IllegalArgumentException(
                            PreparedValues.about(column, t)
                                    + " has "
                                    + t.fields().size()
                                    + " fields but the value has "
                                    + row.length);
                }
                for (int i = 0; i < row.length; i++) {
                    optional(p.parts[i], row[i], out);
                }
            }
            default -> leaf(p, v, out);
        }
    }

    private static <T> T cast(String column, ValueType t, Object v, Class<T> c, String expected) {
        if (!c.isInstance(v)) {
            throw new IllegalArgumentException(
                    PreparedValues.about(column, t)
                            + " expects "
                            + expected
                            + " but got "
                            + v.getClass().getName());
        }
        return c.cast(v);
    }

    private static void optional(Part p, Object v, DataOutputStream out) throws IOException {
        out.writeBoolean(v != null);
        if (v != null) {
            encode(p, v, out);
        }
    }

    private static void leaf(Part part, Object v, DataOutputStream out) throws IOException {
        String column = part.column;
        ValueType t = part.type;
        ColumnSpec spec = part.leaf;
        Object p;
        try {
            p = PreparedValues.prepare(spec, v);
        } catch (ClassCastException e) {
            throw new IllegalArgumentException(
                    "column '"
                            + column
                            + "': a part of type "
                            + t
                            + " expects "
                            + PreparedValues.expectedJavaType(t.kind())
                            + " but got "
                            + v.getClass().getName(),
                    e);
        }
        PreparedValues.write(out, p);
    }

    // -------------------------------------------------------------------------------------------
    // Writing

    /** Writes the encoded value of a nested field as the content of an already started field. */
    static void write(RecordConsumer consumer, Type type, Binary encoded) {
        write(consumer, type, encoded.toByteBuffer());
    }

    private static void write(RecordConsumer consumer, Type type, ByteBuffer in) {
        if (type.isPrimitive()) {
            writeLeaf(consumer, type.asPrimitiveType().getPrimitiveTypeName(), in);
            return;
        }
        GroupType g = type.asGroupType();
        LogicalTypeAnnotation logical = g.getLogicalTypeAnnotation();
        consumer.startGroup();
        boolean map = logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation;
        if (map || logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            // The repeated entry group: a list's element, or a map's required key and value.
            GroupType entry = g.getType(0).asGroupType();
            int n = in.getInt();
            if (n > 0) {
                consumer.startField(entry.getName(), 0);
                for (int i = 0; i < n; i++) {
                    consumer.startGroup();
                    if (map) {
                        Type key = entry.getType(0);
                        consumer.startField(key.getName(), 0);
                        write(consumer, key, in);
                        consumer.endField(key.getName(), 0);
                    }
                    optionalField(consumer, entry, map ? 1 : 0, in);
                    consumer.endGroup();
                }
                consumer.endField(entry.getName(), 0);
            }
        } else {
            for (int i = 0; i < g.getFieldCount(); i++) {
                optionalField(consumer, g, i, in);
            }
        }
        consumer.endGroup();
    }

    private static void optionalField(
            RecordConsumer consumer, GroupType parent, int index, ByteBuffer in) {
        if (in.get() == 0) {
            return;
        }
        Type t = parent.getType(index);
        consumer.startField(t.getName(), index);
        write(consumer, t, in);
        consumer.endField(t.getName(), index);
    }

    private static void writeLeaf(RecordConsumer consumer, PrimitiveTypeName type, ByteBuffer in) {
        switch (type) {
            case BOOLEAN -> consumer.addBoolean(in.get() != 0);
            case INT32 -> consumer.addInteger(in.getInt());
            case INT64 -> consumer.addLong(in.getLong());
            case FLOAT -> consumer.addFloat(in.getFloat());
            case DOUBLE -> consumer.addDouble(in.getDouble());
            case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> {
                byte[] b = new byte[in.getInt()];
                in.get(b);
                consumer.addBinary(Binary.fromConstantByteArray(b));
            }
        }
    }
}
