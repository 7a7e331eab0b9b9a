package dev.parquetlookup.flink.table;

import dev.parquetlookup.formats.DeltaKernelWrites;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.internal.data.DefaultColumnarBatch;
import io.delta.kernel.defaults.internal.data.vector.DefaultGenericVector;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import org.roaringbitmap.RoaringBitmap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Delta table the connector's tests write with the Delta kernel: data files and adds through its
 * write support ({@link DeltaKernelWrites}, from formats' test jar), removes and deletion vectors
 * through its action classes (kernel 4.0 has no public API for them; see formats' DeltaTestTable).
 *
 * <pre>{@code
 * DeltaKernelTable delta = DeltaKernelTable.create(location, schema, Map.of(), "test");
 * Row added = delta.append(List.of(keys, labels), List.of()); // one file, one commit
 * delta.append(List.of(keys, newLabels), List.of(DeltaKernelTable.remove(added)));
 * }</pre>
 */
final class DeltaKernelTable {

    private final Engine engine = DefaultEngine.create(new Configuration());
    private final Table table;
    private final StructType schema;
    private final String engineInfo;

    private DeltaKernelTable(String location, StructType schema, String engineInfo) {
        this.table = Table.forPath(engine, location);
        this.schema = schema;
        this.engineInfo = engineInfo;
    }

    /** Creates the table at {@code location} (version 0, no data) with these table properties. */
    static DeltaKernelTable create(
            String location, StructType schema, Map<String, String> properties, String engineInfo) {
        DeltaKernelTable delta = new DeltaKernelTable(location, schema, engineInfo);
        var builder =
                delta.table
                        .createTransactionBuilder(delta.engine, engineInfo, Operation.CREATE_TABLE)
                        .withSchema(delta.engine, schema);
        if (!properties.isEmpty()) {
            builder = builder.withTableProperties(delta.engine, properties);
        }
        builder.build(delta.engine).commit(delta.engine, CloseableIterable.emptyIterable());
        return delta;
    }

    /**
     * Commits {@code others} and one new data file whose column {@code i} holds {@code
     * columns.get(i)} (the schema's field {@code i}); returns the file's add action.
     */
    Row append(List<List<Object>> columns, List<Row> others) throws IOException {
        ColumnVector[] vectors = new ColumnVector[columns.size()];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = DefaultGenericVector.fromList(schema.at(i).getDataType(), columns.get(i));
        }
        var batch = new DefaultColumnarBatch(columns.get(0).size(), schema, vectors);
        Transaction txn =
                table.createTransactionBuilder(engine, engineInfo, Operation.WRITE).build(engine);
        List<Row> actions =
                new ArrayList<>(DeltaKernelWrites.appendActions(engine, txn, batch, Map.of()));
        Row added = actions.get(0);
        actions.addAll(others);
        commit(txn, actions);
        return added;
    }

    /** Deletes rows {@code [from, to)} of the file of {@code old} with an inline vector. */
    void deleteRows(Row old, int from, int to) {
        RoaringBitmap bitmap = new RoaringBitmap();
        bitmap.add((long) from, (long) to);
        ByteBuffer buffer =
                ByteBuffer.allocate(4 + 8 + 4 + bitmap.serializedSizeInBytes())
                        .order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(1681511377).putLong(1).putInt(0);
        bitmap.serialize(buffer);
        byte[] bytes = buffer.array();
        AddFile add = new AddFile(old.getStruct(SingleAction.ADD_FILE_ORDINAL));
        Map<Integer, Object> dv = new HashMap<>();
        dv.put(0, "i");
        dv.put(1, Base85Codec.encodeBytes(bytes));
        dv.put(3, bytes.length);
        dv.put(4, (long) (to - from));
        StructType addSchema = AddFile.FULL_SCHEMA;
        Map<Integer, Object> fields = new HashMap<>();
        fields.put(addSchema.indexOf("path"), add.getPath());
        fields.put(addSchema.indexOf("partitionValues"), add.getPartitionValues());
        fields.put(addSchema.indexOf("size"), add.getSize());
        fields.put(addSchema.indexOf("modificationTime"), add.getModificationTime());
        fields.put(addSchema.indexOf("dataChange"), true);
        fields.put(
                addSchema.indexOf("deletionVector"),
                new GenericRow(DeletionVectorDescriptor.READ_SCHEMA, dv));
        Transaction txn =
                table.createTransactionBuilder(engine, engineInfo, Operation.WRITE).build(engine);
        commit(
                txn,
                List.of(
                        remove(old),
                        SingleAction.createAddFileSingleAction(new GenericRow(addSchema, fields))));
    }

    /** The remove action of the file an add action added. */
    static Row remove(Row addAction) {
        return DeltaKernelWrites.remove(addAction);
    }

    private void commit(Transaction txn, List<Row> actions) {
        DeltaKernelWrites.commit(engine, txn, actions);
    }
}
