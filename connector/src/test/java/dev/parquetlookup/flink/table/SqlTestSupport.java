package dev.parquetlookup.flink.table;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Shared set-up of the SQL ITCases: the MiniCluster, the event stream, result collection. */
final class SqlTestSupport {

    private SqlTestSupport() {}

    /** 2 TaskManagers x 2 slots; register it as a static extension, one cluster per class. */
    static MiniClusterExtension miniCluster() {
        return miniCluster(2);
    }

    /** {@code taskManagers} TaskManagers x 2 slots, as {@link #miniCluster()}. */
    static MiniClusterExtension miniCluster(int taskManagers) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(taskManagers)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /**
     * A streaming table environment with parallelism 4 and the view {@code events(eid BIGINT,
     * <keyName> <keyType>, ..., proc)} over {@code events} (rows of eid and the key values),
     * rebalanced over 4 subtasks so the lookup join runs with parallelism 4.
     */
    static StreamTableEnvironment streamingWithEvents(
            List<Row> events, String[] names, TypeInformation<?>[] types) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(4);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        TypeInformation<Row> type = Types.ROW_NAMED(names, types);
        DataStream<Row> stream = env.fromData(events, type).rebalance().map(r -> r).returns(type);
        Schema.Builder schema = Schema.newBuilder();
        for (int i = 0; i < names.length; i++) {
            schema.column(names[i], DataTypes.of(types[i]));
        }
        tEnv.createTemporaryView(
                "events", stream, schema.columnByExpression("proc", "PROCTIME()").build());
        return tEnv;
    }

    /**
     * Creates the table {@code dim (columns)} over the Parquet files at {@code path} with {@code
     * 'sort-key' = 'id'}, its disk tier below {@code localDir}; {@code extra} adds options ({@code
     * ", 'k' = 'v'"}).
     */
    static void createDim(
            TableEnvironment tEnv, String columns, Path path, Path localDir, String extra) {
        tEnv.executeSql(
                "CREATE TABLE dim ("
                        + columns
                        + ") WITH ('connector' = 'parquet-lookup', 'path' = '"
                        + path.toUri()
                        + "', 'sort-key' = 'id', 'local-cache.dir' = '"
                        + localDir
                        + "'"
                        + extra
                        + ")");
    }

    static List<Row> collect(TableEnvironment tEnv, String query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.sqlQuery(query).execute().collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }
}
