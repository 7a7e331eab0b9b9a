package dev.parquetlookup.engine.page;

import dev.parquetlookup.types.ValueType;

import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Owns the meaning of a nested column's Parquet structure: its engine {@link ValueType} (ARRAY,
 * MAP, ROW) and the conversion of a record as {@code NestedRecord} assembles it (groups as {@code
 * Object[]}, repeated fields as {@code ArrayList}) into the engine's values (see {@link
 * ValueType}). Immutable, built once per file at open.
 *
 * <p>The rules are the Parquet spec's (LogicalTypes.md), backward-compatibility rules included:
 *
 * <ul>
 *   <li>{@code LIST}: one repeated child. It is the element itself (2-level list, elements
 *       required) when it is primitive, a group of several fields, or a one-field group named
 *       {@code array} or {@code <list>_tuple}; otherwise its one field is the element (3-level).
 *   <li>{@code MAP} and {@code MAP_KEY_VALUE}: one repeated group of two fields, key then value
 *       (whatever their names). A MAP without values is not read.
 *   <li>a repeated field outside LIST and MAP: a list of required elements.
 *   <li>any other group: a ROW of its fields, in file order.
 * </ul>
 *
 * <p>Example: {@code optional group tags (LIST) { repeated group list { optional binary element
 * (STRING); } }} is {@code ARRAY<STRING>}; a record whose assembled value is {@code
 * Object[]{[Object[]{"a"}, Object[]{null}]}} becomes {@code List.of("a", null)}.
 */
public abstract class NestedShape {

    private final ValueType type;

    private NestedShape(ValueType type) {
        this.type = type;
    }

    ValueType type() {
        return type;
    }

    /** Converts a non-null assembled value. */
    abstract Object convert(Object assembled);

    /** The engine value of an assembled value, null staying null. */
    @Nullable
    public final Object apply(@Nullable Object assembled) {
        return assembled == null ? null : convert(assembled);
    }

    /** The shape of a top-level field, or null when the engine cannot read it. */
    @Nullable
    public static NestedShape of(Type field) {
        if (field.isRepetition(Type.Repetition.REPEATED)) {
            NestedShape element = content(field);
            return element == null ? null : new Repeated(element);
        }
        return content(field);
    }

    /** The shape of {@code t}'s values, ignoring its own repetition. */
    @Nullable
    private static NestedShape content(Type t) {
        if (t.isPrimitive()) {
            ValueType type = ColumnTypes.primitiveType(t.asPrimitiveType());
            return type.kind() == ValueType.Kind.UNSUPPORTED ? null : new Leaf(type);
        }
        GroupType g = t.asGroupType();
        LogicalTypeAnnotation logical = g.getLogicalTypeAnnotation();
        if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            return list(g);
        }
        if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
            return map(g);
        }
        return row(g);
    }

    @Nullable
    private static NestedShape list(GroupType g) {
        if (g.getFieldCount() != 1 || !g.getType(0).isRepetition(Type.Repetition.REPEATED)) {
            return null;
        }
        Type repeated = g.getType(0);
        boolean twoLevel =
                repeated.isPrimitive()
                        || repeated.asGroupType().getFieldCount() > 1
                        || repeated.getName().equals("array")
                        || repeated.getName().equals(g.getName() + "_tuple");
        if (twoLevel) {
            NestedShape element = content(repeated);
            return element == null ? null : new Unwrap(new Repeated(element), 0);
        }
        GroupType wrapper = repeated.asGroupType();
        if (wrapper.getFieldCount() != 1) {
            return null;
        }
        NestedShape element = of(wrapper.getType(0));
        return element == null ? null : new Unwrap(new Repeated(new Unwrap(element, 0)), 0);
    }

    @Nullable
    private static NestedShape map(GroupType g) {
        if (g.getFieldCount() != 1
                || !g.getType(0).isRepetition(Type.Repetition.REPEATED)
                || g.getType(0).isPrimitive()) {
            return null;
        }
        GroupType entry = g.getType(0).asGroupType();
        if (entry.getFieldCount() != 2) {
            return null;
        }
        NestedShape key = of(entry.getType(0));
        NestedShape value = of(entry.getType(1));
        return key == null || value == null ? null : new Unwrap(new Entries(key, value), 0);
    }

    @Nullable
    private static NestedShape row(GroupType g) {
        if (g.getFieldCount() == 0) {
            return null;
        }
        NestedShape[] fields = new NestedShape[g.getFieldCount()];
        List<ValueType.Field> types = new ArrayList<>(fields.length);
        for (int i = 0; i < fields.length; i++) {
            fields[i] = of(g.getType(i));
            if (fields[i] == null) {
                return null;
            }
            types.add(new ValueType.Field(g.getType(i).getName(), fields[i].type()));
        }
        return new Row(ValueType.row(types), fields);
    }

    /** A primitive value, already in the engine's representation. */
    private static final class Leaf extends NestedShape {
        Leaf(ValueType type) {
            super(type);
        }

        @Override
        Object convert(Object assembled) {
            return assembled;
        }
    }

    /** A group's fields: the assembled {@code Object[]} converted in place. */
    private static final class Row extends NestedShape {
        private final NestedShape[] fields;

        Row(ValueType type, NestedShape[] fields) {
            super(type);
            this.fields = fields;
        }

        @Override
        Object convert(Object assembled) {
            Object[] values = (Object[]) assembled;
            for (int i = 0; i < fields.length; i++) {
                values[i] = fields[i].apply(values[i]);
            }
            return values;
        }
    }

    /** A repeated field's elements: the assembled list converted in place. */
    private static final class Repeated extends NestedShape {
        private final NestedShape element;

        Repeated(NestedShape element) {
            super(ValueType.array(element.type()));
            this.element = element;
        }

        @Override
        @SuppressWarnings("unchecked")
        Object convert(Object assembled) {
            List<Object> values = (List<Object>) assembled;
            for (int i = 0; i < values.size(); i++) {
                values.set(i, element.apply(values.get(i)));
            }
            return values;
        }
    }

    /** One field of a group that only wraps it (a LIST or MAP group, a 3-level list's entry). */
    private static final class Unwrap extends NestedShape {
        private final NestedShape inner;
        private final int field;

        Unwrap(NestedShape inner, int field) {
            super(inner.type());
            this.inner = inner;
            this.field = field;
        }

        @Override
        Object convert(Object assembled) {
            return inner.apply(((Object[]) assembled)[field]);
        }
    }

    /** A MAP's repeated key-value groups, as a map in file order. */
    private static final class Entries extends NestedShape {
        private final NestedShape key;
        private final NestedShape value;

        Entries(NestedShape key, NestedShape value) {
            super(ValueType.map(key.type(), value.type()));
            this.key = key;
            this.value = value;
        }

        @Override
        Object convert(Object assembled) {
            List<?> entries = (List<?>) assembled;
            Map<Object, Object> map = new LinkedHashMap<>(Math.max(4, entries.size() * 2));
            for (Object e : entries) {
                Object[] entry = (Object[]) e;
                map.put(key.apply(entry[0]), value.apply(entry[1]));
            }
            return map;
        }
    }
}
