package dev.parquetlookup.writer;

import dev.parquetlookup.io.ParquetOutputs;

import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

import java.util.Map;

/**
 * Hands prepared rows ({@link RowLayout#prepare}) to parquet-java's record consumer; nested columns
 * through {@link NestedValues#write}.
 */
final class RowWriteSupport extends ParquetOutputs.WriteSupportBase<Object[]> {

    private final MessageType schema;
    private final String[] names;
    private final PrimitiveTypeName[] physical;
    private final Map<String, String> metadata;
    private RecordConsumer consumer;

    RowWriteSupport(MessageType schema, Map<String, String> metadata) {
        this.schema = schema;
        this.metadata = Map.copyOf(metadata);
        int n = schema.getFieldCount();
        names = new String[n];
        physical = new PrimitiveTypeName[n];
        for (int i = 0; i < n; i++) {
            names[i] = schema.getFieldName(i);
            Type t = schema.getType(i);
            physical[i] = t.isPrimitive() ? t.asPrimitiveType().getPrimitiveTypeName() : null;
        }
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(schema, metadata);
    }

    @Override
    public String getName() {
        return "parquet-lookup";
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        this.consumer = recordConsumer;
    }

    @Override
    public void write(Object[] row) {
        consumer.startMessage();
        for (int i = 0; i < row.length; i++) {
            Object v = row[i];
            if (v == null) {
                continue;
            }
            consumer.startField(names[i], i);
            if (physical[i] == null) {
                NestedValues.write(consumer, schema.getType(i), (Binary) v);
                consumer.endField(names[i], i);
                continue;
            }
            switch (physical[i]) {
                case BOOLEAN -> consumer.addBoolean((Boolean) v);
                case INT32 -> consumer.addInteger((Integer) v);
                case INT64 -> consumer.addLong((Long) v);
                case FLOAT -> consumer.addFloat((Float) v);
                case DOUBLE -> consumer.addDouble((Double) v);
                case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> consumer.addBinary((Binary) v);
            }
            consumer.endField(names[i], i);
        }
        consumer.endMessage();
    }
}
