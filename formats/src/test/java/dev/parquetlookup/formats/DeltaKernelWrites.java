package dev.parquetlookup.formats;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The Delta kernel's write path as every test that writes a Delta table takes it (formats'
 * DeltaTestTable, the connector's DeltaKernelTable, e2e's LakehouseTables; shared through this
 * module's test jar): a batch of rows to Parquet data files of a transaction and their add actions,
 * the remove action of a file, and a commit of actions.
 *
 * <pre>{@code
 * Transaction txn = table.createTransactionBuilder(engine, "test", Operation.WRITE).build(engine);
 * List<Row> adds = DeltaKernelWrites.appendActions(engine, txn, batch, Map.of());
 * DeltaKernelWrites.commit(engine, txn, adds);
 * }</pre>
 */
public final class DeltaKernelWrites {

    private DeltaKernelWrites() {}

    /**
     * Writes {@code batch} (the table's logical schema) as data files of {@code txn} in the
     * partition {@code partition} (empty for an unpartitioned table) and returns their add actions,
     * not committed.
     */
    public static List<Row> appendActions(
            Engine engine, Transaction txn, ColumnarBatch batch, Map<String, Literal> partition)
            throws IOException {
        Row state = txn.getTransactionState(engine);
        CloseableIterator<FilteredColumnarBatch> physical =
                Transaction.transformLogicalData(
                        engine,
                        state,
                        Utils.singletonCloseableIterator(
                                new FilteredColumnarBatch(batch, Optional.empty())),
                        partition);
        DataWriteContext context = Transaction.getWriteContext(engine, state, partition);
        CloseableIterator<DataFileStatus> written =
                engine.getParquetHandler()
                        .writeParquetFiles(
                                context.getTargetDirectory(),
                                physical,
                                context.getStatisticsColumns());
        List<Row> actions = new ArrayList<>();
        Transaction.generateAppendActions(engine, state, written, context)
                .forEachRemaining(actions::add);
        return actions;
    }

    /** The remove action of the file an add action added (a data change, removed now). */
    public static Row remove(Row addAction) {
        AddFile add = new AddFile(addAction.getStruct(SingleAction.ADD_FILE_ORDINAL));
        return SingleAction.createRemoveFileSingleAction(
                add.toRemoveFileRow(true, Optional.of(System.currentTimeMillis())));
    }

    /** Commits {@code actions} with {@code txn}. */
    public static void commit(Engine engine, Transaction txn, List<Row> actions) {
        txn.commit(
                engine,
                CloseableIterable.inMemoryIterable(Utils.toCloseableIterator(actions.iterator())));
    }
}
