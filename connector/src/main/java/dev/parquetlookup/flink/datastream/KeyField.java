package dev.parquetlookup.flink.datastream;

import dev.parquetlookup.types.ValueType;

import java.io.Serializable;

/**
 * One key column of an enrichment, shipped with the function ({@link ValueType} itself is an engine
 * value and not serializable). Example: {@code KeyField.of("id", ValueType.of(Kind.BIGINT))}.
 *
 * @param name the column name in the files
 * @param kind its value kind
 * @param precision decimal precision or fractional-second digits
 * @param scale decimal scale
 */
record KeyField(String name, ValueType.Kind kind, int precision, int scale)
        implements Serializable {

    static KeyField of(String name, ValueType type) {
        return new KeyField(name, type.kind(), type.precision(), type.scale());
    }

    ValueType type() {
        return new ValueType(kind, precision, scale);
    }
}
