package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.datastream.ParquetEnrichment;

import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
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

import static dev.parquetlookup.flink.table.RefreshingJoin.KEYS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A running SQL lookup join on an Iceberg table ({@code 'format' = 'iceberg'}) while new snapshots
 * are committed by Iceberg's own writer: every result matches exactly one snapshot, and the new
 * snapshot is served within {@code refresh.interval} plus a margin ({@link RefreshingJoin}); the
 * same table through the DataStream builder ({@code ParquetEnrichment.format}).
 */
class IcebergLookupITCase {

    private static final Schema SCHEMA =
            new Schema(
                    Types.NestedField.required(1, "k", Types.LongType.get()),
                    Types.NestedField.required(2, "ver", Types.IntegerType.get()),
                    Types.NestedField.required(3, "label", Types.StringType.get()));

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = SqlTestSupport.miniCluster(1);

    @TempDir Path dir;

    private int fileCounter;

    @Test
    void enrichmentFollowsTheTablesSnapshots() throws Exception {
        String location = dir.resolve("dim").toUri().toString();
        Table table = newTable(location);
        DataFile v1 = write(table, 1);
        table.newAppend().appendFile(v1).commit();

        // Snapshot 2 replaces snapshot 1's only data file.
        RefreshingJoin.switchesToVersion2(
                "iceberg",
                "'format' = 'iceberg', 'path' = '" + location + "', 'sort-key' = 'k'",
                () -> table.newOverwrite().deleteFile(v1).addFile(write(table, 2)).commit());
    }

    @Test
    void unknownFormatsAndDirectoryModesAreRefusedAtPlanning() {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE d1 (k BIGINT) WITH ('connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + dir.toUri()
                        + "', 'format' = 'hudi')");
        assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM d1").explain())
                .rootCause()
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("Unknown table format 'hudi'")
                .hasMessageContaining("[files, ")
                .hasMessageContaining("iceberg")
                .hasMessageContaining("delta]");

        tEnv.executeSql(
                "CREATE TEMPORARY TABLE d2 (k BIGINT) WITH ('connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + dir.toUri()
                        + "', 'format' = 'iceberg', 'path.snapshot-mode' = 'latest-success')");
        assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM d2").explain())
                .rootCause()
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'path.snapshot-mode' applies to 'format' = 'files' only");

        tEnv.executeSql(
                "CREATE TEMPORARY TABLE d3 (k BIGINT) WITH ('connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + dir.toUri()
                        + "', 'format' = 'iceberg')");
        assertThatThrownBy(() -> tEnv.sqlQuery("SELECT * FROM d3").explain())
                .hasStackTraceContaining("is not an Iceberg table")
                .hasStackTraceContaining("'format' = 'files'");
    }

    @Test
    void dataStreamEnrichmentReadsTheCurrentSnapshot() throws Exception {
        String location = dir.resolve("ds").toUri().toString();
        Table table = newTable(location);
        DataFile v1 = write(table, 1);
        table.newAppend().appendFile(v1).commit();
        long first = table.currentSnapshot().snapshotId();
        table.newOverwrite().deleteFile(v1).addFile(write(table, 7)).commit();

        List<Long> keys = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (long k = KEYS - 20; k < KEYS + 20; k++) {
            keys.add(k);
            expected.add(k + " " + (k < KEYS ? k + "/7" : "-"));
        }
        assertThat(
                        RefreshingJoin.labelsThroughDataStream(
                                ParquetEnrichment.<Long>from(location).format("ICEBERG"), keys))
                .containsExactlyInAnyOrderElementsOf(expected);

        // Time travel: the first snapshot, pinned with the format's own option.
        assertThat(
                        RefreshingJoin.labelsThroughDataStream(
                                ParquetEnrichment.<Long>from(location)
                                        .format("iceberg")
                                        .formatOption("scan.version", Long.toString(first)),
                                keys))
                .containsExactlyInAnyOrderElementsOf(
                        keys.stream().map(k -> k + " " + (k < KEYS ? k + "/1" : "-")).toList());
        assertThatThrownBy(() -> ParquetEnrichment.<Long>from(location).formatOption("fs.x", "y"))
                .hasMessageContaining("give Hadoop settings with hadoop(key, value)");

        assertThatThrownBy(() -> ParquetEnrichment.<Long>from(location).format("hudi"))
                .hasMessageContaining("Unknown table format 'hudi'");
    }

    /** An unpartitioned format-version 2 table of {@link #SCHEMA}, empty. */
    private static Table newTable(String location) {
        return new HadoopTables(new Configuration())
                .create(
                        SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of("format-version", "2"),
                        location);
    }

    /** One data file of keys 0..KEYS-1 sorted, labelled with {@code version}; not committed. */
    private DataFile write(Table table, int version) throws IOException {
        DataWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build()
                        .newDataWriter(
                                OutputFileFactory.builderFor(table, 1, ++fileCounter)
                                        .format(FileFormat.PARQUET)
                                        .build()
                                        .newOutputFile(),
                                table.spec(),
                                null);
        try (writer) {
            for (long k = 0; k < KEYS; k++) {
                GenericRecord r = GenericRecord.create(SCHEMA);
                r.setField("k", k);
                r.setField("ver", version);
                r.setField("label", k + "/" + version);
                writer.write(r);
            }
        }
        return writer.toDataFile();
    }
}
