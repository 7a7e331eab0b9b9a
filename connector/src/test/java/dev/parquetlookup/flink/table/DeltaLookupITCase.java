package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.datastream.ParquetEnrichment;
import dev.parquetlookup.flink.datastream.ParquetEnrichmentFunction;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.DataWriteContext;
import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.internal.data.DefaultColumnarBatch;
import io.delta.kernel.defaults.internal.data.vector.DefaultGenericVector;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running SQL lookup join on a Delta table ({@code 'format' = 'delta'}) while the Delta kernel
 * commits a new version: every result matches exactly one version and the new one is served within
 * {@code refresh.interval} plus a margin; a version with a deletion vector through the DataStream
 * builder never returns the deleted rows.
 */
class DeltaLookupITCase {

    private static final long KEYS = 100;
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final Duration MARGIN = Duration.ofSeconds(30);
    private static final int STABLE_ROWS = 200;

    private static final StructType SCHEMA =
            new StructType()
                    .add("k", LongType.LONG, false)
                    .add("ver", IntegerType.INTEGER, false)
                    .add("label", StringType.STRING, false);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    @Test
    void enrichmentFollowsTheTablesVersions() throws Exception {
        String location = dir.resolve("dim").toUri().toString();
        KernelWriter delta = new KernelWriter(location, Map.of());
        io.delta.kernel.data.Row v1 = delta.commit(List.of(), 1);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE events (k BIGINT, proc AS PROCTIME()) WITH ("
                        + " 'connector' = 'datagen', 'rows-per-second' = '200',"
                        + " 'fields.k.kind' = 'random', 'fields.k.min' = '0',"
                        + " 'fields.k.max' = '"
                        + (KEYS - 1)
                        + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE dim (k BIGINT, ver INT, label STRING) WITH ("
                        + " 'connector' = 'parquet-lookup',"
                        + " 'format' = 'delta',"
                        + " 'path' = '"
                        + location
                        + "',"
                        + " 'sort-key' = 'k',"
                        + " 'refresh.interval' = '"
                        + INTERVAL.toMillis()
                        + " ms')");

        try (CloseableIterator<Row> results =
                tEnv.sqlQuery(
                                "SELECT e.k, d.ver, d.label FROM events AS e"
                                        + " JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                        + " ON e.k = d.k")
                        .execute()
                        .collect()) {
            for (int i = 0; i < 50; i++) {
                assertThat(version(results.next())).isEqualTo(1);
            }

            // Version 2 replaces version 1's only data file (remove + add in one commit).
            delta.commit(List.of(KernelWriter.remove(v1)), 2);
            long published = System.nanoTime();
            long deadline = published + INTERVAL.plus(MARGIN).toNanos();
            int stable = 0;
            while (stable < STABLE_ROWS) {
                assertThat(System.nanoTime())
                        .as("%d consecutive version-2 results in time", STABLE_ROWS)
                        .isLessThan(deadline);
                int v = version(results.next());
                if (v == 2) {
                    stable++;
                } else {
                    assertThat(v).isEqualTo(1);
                    stable = 0;
                }
            }
        }
    }

    @Test
    void dataStreamEnrichmentLeavesOutRowsDeletedByADeletionVector() throws Exception {
        String location = dir.resolve("ds").toUri().toString();
        KernelWriter delta =
                new KernelWriter(location, Map.of("delta.enableDeletionVectors", "true"));
        io.delta.kernel.data.Row v1 = delta.commit(List.of(), 3);
        // Rows (= keys) 10..19 deleted by an inline deletion vector.
        delta.deleteRows(v1, 10, 20);

        ParquetEnrichmentFunction<Long, String> function =
                ParquetEnrichment.<Long>from(location)
                        .format("DELTA")
                        .sortKey("k")
                        .key(k -> k)
                        .columns("label")
                        .leftJoin()
                        .join((Long k, Row d) -> k + " " + (d == null ? "-" : d.getField(0)))
                        .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<Long> keys = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (long k = 0; k < KEYS + 10; k++) {
            keys.add(k);
            expected.add(k + " " + (k < KEYS && (k < 10 || k >= 20) ? k + "/3" : "-"));
        }
        DataStream<String> enriched =
                AsyncDataStream.unorderedWait(
                        env.fromData(keys), function, 30, TimeUnit.SECONDS, 50);
        List<String> actual = new ArrayList<>();
        try (CloseableIterator<String> it = enriched.executeAndCollect()) {
            it.forEachRemaining(actual::add);
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static int version(Row row) {
        long k = (Long) row.getField(0);
        int ver = (Integer) row.getField(1);
        assertThat(row.getField(2)).isEqualTo(k + "/" + ver);
        return ver;
    }

    /**
     * Writes a Delta table with the kernel: data files and adds through its write support, removes
     * and deletion vectors through its action classes (kernel 4.0 has no public API for them; see
     * formats' DeltaTestTable).
     */
    private static final class KernelWriter {
        private final Engine engine = DefaultEngine.create(new Configuration());
        private final Table table;

        KernelWriter(String location, Map<String, String> properties) {
            table = Table.forPath(engine, location);
            var builder =
                    table.createTransactionBuilder(engine, "test", Operation.CREATE_TABLE)
                            .withSchema(engine, SCHEMA);
            if (!properties.isEmpty()) {
                builder = builder.withTableProperties(engine, properties);
            }
            builder.build(engine).commit(engine, CloseableIterable.emptyIterable());
        }

        /** Commits {@code others} and one new file of keys 0..KEYS-1 at version {@code ver}. */
        io.delta.kernel.data.Row commit(List<io.delta.kernel.data.Row> others, int ver)
                throws IOException {
            Transaction txn =
                    table.createTransactionBuilder(engine, "test", Operation.WRITE).build(engine);
            List<Object> ks = new ArrayList<>();
            List<Object> vers = new ArrayList<>();
            List<Object> labels = new ArrayList<>();
            for (long k = 0; k < KEYS; k++) {
                ks.add(k);
                vers.add(ver);
                labels.add(k + "/" + ver);
            }
            var batch =
                    new DefaultColumnarBatch(
                            (int) KEYS,
                            SCHEMA,
                            new ColumnVector[] {
                                DefaultGenericVector.fromList(LongType.LONG, ks),
                                DefaultGenericVector.fromList(IntegerType.INTEGER, vers),
                                DefaultGenericVector.fromList(StringType.STRING, labels)
                            });
            io.delta.kernel.data.Row state = txn.getTransactionState(engine);
            DataWriteContext context = Transaction.getWriteContext(engine, state, Map.of());
            List<io.delta.kernel.data.Row> actions = new ArrayList<>();
            Transaction.generateAppendActions(
                            engine,
                            state,
                            engine.getParquetHandler()
                                    .writeParquetFiles(
                                            context.getTargetDirectory(),
                                            Transaction.transformLogicalData(
                                                    engine,
                                                    state,
                                                    Utils.singletonCloseableIterator(
                                                            new FilteredColumnarBatch(
                                                                    batch, Optional.empty())),
                                                    Map.of()),
                                            context.getStatisticsColumns()),
                            context)
                    .forEachRemaining(actions::add);
            io.delta.kernel.data.Row added = actions.get(0);
            actions.addAll(others);
            commit(txn, actions);
            return added;
        }

        /** Deletes rows {@code [from, to)} of the file of {@code old} with an inline vector. */
        void deleteRows(io.delta.kernel.data.Row old, int from, int to) {
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
            StructType schema = AddFile.FULL_SCHEMA;
            Map<Integer, Object> fields = new HashMap<>();
            fields.put(schema.indexOf("path"), add.getPath());
            fields.put(schema.indexOf("partitionValues"), add.getPartitionValues());
            fields.put(schema.indexOf("size"), add.getSize());
            fields.put(schema.indexOf("modificationTime"), add.getModificationTime());
            fields.put(schema.indexOf("dataChange"), true);
            fields.put(
                    schema.indexOf("deletionVector"),
                    new GenericRow(DeletionVectorDescriptor.READ_SCHEMA, dv));
            Transaction txn =
                    table.createTransactionBuilder(engine, "test", Operation.WRITE).build(engine);
            commit(
                    txn,
                    List.of(
                            remove(old),
                            SingleAction.createAddFileSingleAction(
                                    new GenericRow(schema, fields))));
        }

        static io.delta.kernel.data.Row remove(io.delta.kernel.data.Row addAction) {
            return SingleAction.createRemoveFileSingleAction(
                    new AddFile(addAction.getStruct(SingleAction.ADD_FILE_ORDINAL))
                            .toRemoveFileRow(true, Optional.of(System.currentTimeMillis())));
        }

        private void commit(Transaction txn, List<io.delta.kernel.data.Row> actions) {
            txn.commit(
                    engine,
                    CloseableIterable.inMemoryIterable(
                            Utils.toCloseableIterator(actions.iterator())));
        }
    }
}
