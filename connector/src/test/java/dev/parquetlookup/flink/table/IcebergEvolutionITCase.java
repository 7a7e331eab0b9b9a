package dev.parquetlookup.flink.table;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SQL lookup join on an Iceberg table partitioned by identity on {@code region}, with a column
 * renamed and one added after the first files were written: the join keys on {@code (region, k)}
 * (the partition column leading the sort key), reads the renamed column from files written before
 * the rename by field id, the added one as NULL from them.
 */
class IcebergEvolutionITCase {

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster(1);

    @TempDir Path dir;

    private int fileCounter;

    @Test
    void joinsOnAPartitionedTableWithRenamedAndAddedColumns() throws Exception {
        String location = dir.resolve("dim").toUri().toString();
        Schema schema =
                new Schema(
                        Types.NestedField.required(1, "k", Types.LongType.get()),
                        Types.NestedField.required(2, "region", Types.StringType.get()),
                        Types.NestedField.optional(3, "label", Types.StringType.get()));
        Table table =
                new HadoopTables(new Configuration())
                        .create(
                                schema,
                                PartitionSpec.builderFor(schema).identity("region").build(),
                                Map.of("format-version", "2"),
                                location);
        table.newAppend()
                .appendFile(write(table, "eu", 0, 100, "label", "a", false))
                .appendFile(write(table, "us", 50, 150, "label", "u", false))
                .commit();
        table.updateSchema().renameColumn("label", "title").commit();
        table.updateSchema().addColumn("score", Types.IntegerType.get()).commit();
        table.newAppend().appendFile(write(table, "eu", 100, 150, "title", "b", true)).commit();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE events (n BIGINT,"
                        + " region AS CASE WHEN n >= 150 THEN 'us' ELSE 'eu' END,"
                        + " k AS n % 150, proc AS PROCTIME()) WITH ("
                        + " 'connector' = 'datagen', 'number-of-rows' = '300',"
                        + " 'fields.n.kind' = 'sequence', 'fields.n.start' = '0',"
                        + " 'fields.n.end' = '299')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE dim (k BIGINT, region STRING, title STRING, score INT)"
                        + " WITH ("
                        + " 'connector' = 'parquet-lookup',"
                        + " 'format' = 'iceberg',"
                        + " 'path' = '"
                        + location
                        + "',"
                        + " 'sort-key' = 'region,k')");
        List<String> actual = new ArrayList<>();
        try (CloseableIterator<Row> results =
                tEnv.sqlQuery(
                                "SELECT e.region, e.k, d.title, d.score FROM events AS e"
                                        + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                        + " ON e.region = d.region AND e.k = d.k")
                        .execute()
                        .collect()) {
            results.forEachRemaining(
                    r ->
                            actual.add(
                                    r.getField(0)
                                            + " "
                                            + r.getField(1)
                                            + " "
                                            + r.getField(2)
                                            + " "
                                            + r.getField(3)));
        }
        List<String> expected = new ArrayList<>();
        for (long k = 0; k < 150; k++) {
            expected.add("eu " + k + " " + (k < 100 ? "a-" + k + " null" : "b-" + k + " " + k % 3));
            expected.add("us " + k + " " + (k >= 50 ? "u-" + k + " null" : "null null"));
        }
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** One data file of keys [from, to) in {@code region}, named {@code prefix-k}. */
    private DataFile write(
            Table table,
            String region,
            long from,
            long to,
            String nameColumn,
            String prefix,
            boolean score)
            throws IOException {
        table.refresh();
        Schema schema = table.schema();
        List<Record> records = new ArrayList<>();
        for (long k = from; k < to; k++) {
            GenericRecord r = GenericRecord.create(schema);
            r.setField("k", k);
            r.setField("region", region);
            r.setField(nameColumn, prefix + "-" + k);
            if (score) {
                r.setField("score", (int) (k % 3));
            }
            records.add(r);
        }
        PartitionKey partition = new PartitionKey(table.spec(), schema);
        partition.partition(records.get(0));
        DataWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build()
                        .newDataWriter(
                                OutputFileFactory.builderFor(table, 1, ++fileCounter)
                                        .format(FileFormat.PARQUET)
                                        .build()
                                        .newOutputFile(partition),
                                table.spec(),
                                partition);
        try (writer) {
            for (Record r : records) {
                writer.write(r);
            }
        }
        return writer.toDataFile();
    }
}
