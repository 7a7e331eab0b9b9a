package dev.parquetlookup.tools;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Owns parquet-java converters that build the engine's values (see {@link ValueType}) from an input
 * file's columns: {@link Leaf} for primitive values in the file's own type, and converters of
 * nested columns giving ARRAY as {@code ArrayList}, MAP as {@code LinkedHashMap} in file order, ROW
 * as {@code Object[]}. The shapes are read as the engine reads them (engine {@code NestedShape}):
 * 3-level and legacy 2-level LISTs, MAP and MAP_KEY_VALUE, repeated fields outside LIST and MAP as
 * lists, other groups as ROWs.
 */
final class NestedInput {

    private NestedInput() {}

    /** Receives one converted value. */
    @FunctionalInterface
    interface Sink {
        void accept(Object value);
    }

    /**
     * The converter of a field's values, ignoring its repetition: a repeated field's parent
     * collects the values (see {@link Fields}).
     */
    static Converter content(Type t, Sink sink) {
        if (t.isPrimitive()) {
            return new Leaf(InputTypes.primitiveSpec(t.getName(), t.asPrimitiveType(), true), sink);
        }
        GroupType g = t.asGroupType();
        LogicalTypeAnnotation logical = g.getLogicalTypeAnnotation();
        if (logical instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            return list(g, sink);
        }
        if (logical instanceof LogicalTypeAnnotation.MapLogicalTypeAnnotation
                || logical instanceof LogicalTypeAnnotation.MapKeyValueTypeAnnotation) {
            return new Fields(
                    g,
                    fields -> sink.accept(toMap((List<?>) fields[0])),
                    (i, s) -> new Fields(g.getType(0).asGroupType(), s::accept, null));
        }
        return new Fields(g, sink::accept, null);
    }

    private static Converter list(GroupType g, Sink sink) {
        Type repeated = g.getType(0);
        boolean twoLevel =
                repeated.isPrimitive()
                        || repeated.asGroupType().getFieldCount() > 1
                        || repeated.getName().equals("array")
                        || repeated.getName().equals(g.getName() + "_tuple");
        if (twoLevel) {
            return new Fields(g, fields -> sink.accept(fields[0]), null);
        }
        return new Fields(
                g,
                fields -> sink.accept(fields[0]),
                (i, s) ->
                        new Fields(repeated.asGroupType(), wrapper -> s.accept(wrapper[0]), null));
    }

    private static Map<Object, Object> toMap(List<?> entries) {
        Map<Object, Object> map = new LinkedHashMap<>(Math.max(4, entries.size() * 2));
        for (Object e : entries) {
            Object[] entry = (Object[]) e;
            map.put(entry[0], entry[1]);
        }
        return map;
    }

    /** Makes the converter of a group's field whose values go to a sink. */
    @FunctionalInterface
    interface ChildFactory {
        Converter make(int field, Sink sink);
    }

    /** Receives a finished group's field values. */
    @FunctionalInterface
    interface GroupSink {
        void accept(Object[] fields);
    }

    /**
     * A group's fields as {@code Object[]}: a repeated field's values are collected in a list
     * (empty when it has none).
     */
    static final class Fields extends GroupConverter {
        private final GroupType group;
        private final GroupSink sink;
        private final Converter[] children;
        private Object[] values;

        Fields(GroupType group, GroupSink sink, ChildFactory factory) {
            this.group = group;
            this.sink = sink;
            children = new Converter[group.getFieldCount()];
            for (int i = 0; i < children.length; i++) {
                int index = i;
                Type field = group.getType(i);
                Sink s =
                        field.isRepetition(Type.Repetition.REPEATED)
                                ? v -> addTo(index, v)
                                : v -> values[index] = v;
                children[i] = factory != null ? factory.make(i, s) : content(field, s);
            }
        }

        @SuppressWarnings("unchecked")
        private void addTo(int index, Object v) {
            ((List<Object>) values[index]).add(v);
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return children[fieldIndex];
        }

        @Override
        public void start() {
            values = new Object[children.length];
            for (int i = 0; i < children.length; i++) {
                if (group.getType(i).isRepetition(Type.Repetition.REPEATED)) {
                    values[i] = new ArrayList<>();
                }
            }
        }

        @Override
        public void end() {
            sink.accept(values);
        }
    }

    /**
     * Converts one primitive column's physical values to the engine's representation; without a
     * spec, keeps them as they are (for a column written with the file's own type).
     */
    static final class Leaf extends PrimitiveConverter {
        @Nullable private final ColumnSpec spec;
        private final Sink sink;

        Leaf(@Nullable ColumnSpec spec, Sink sink) {
            this.spec = spec;
            this.sink = sink;
        }

        @Override
        public void addBoolean(boolean value) {
            sink.accept(value);
        }

        @Override
        public void addFloat(float value) {
            sink.accept(value);
        }

        @Override
        public void addDouble(double value) {
            sink.accept(value);
        }

        @Override
        public void addInt(int value) {
            if (spec == null) {
                sink.accept(value);
                return;
            }
            ValueType t = spec.type();
            sink.accept(
                    switch (t.kind()) {
                        case DECIMAL -> BigDecimal.valueOf(value, t.scale());
                        case TIME -> value * 1_000_000L;
                        case BIGINT -> Integer.toUnsignedLong(value); // UINT_32
                        default -> value;
                    });
        }

        @Override
        public void addLong(long value) {
            if (spec == null) {
                sink.accept(value);
                return;
            }
            ValueType t = spec.type();
            sink.accept(
                    switch (t.kind()) {
                        case DECIMAL -> BigDecimal.valueOf(value, t.scale());
                        case TIME -> spec.timeUnit().nanosOfDay(value);
                        case TIMESTAMP, TIMESTAMP_LTZ -> spec.timeUnit().timestamp(value);
                        default -> value;
                    });
        }

        @Override
        public void addBinary(Binary value) {
            ValueType t = spec == null ? null : spec.type();
            if (t == null) {
                sink.accept(value);
            } else if (t.kind() == Kind.DECIMAL) {
                sink.accept(new BigDecimal(new BigInteger(value.getBytes()), t.scale()));
            } else if (spec.timeUnit() == TimeUnit.INT96) {
                sink.accept(TimestampValue.ofInt96(value.toByteBuffer()));
            } else {
                sink.accept(value.getBytes());
            }
        }
    }
}
