package dev.parquetlookup.e2e;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The formats' deployment path for SQL users (docs/formats.md, "Dependencies"): the shaded SQL jar,
 * the {@code parquet-lookup-formats} jar and the dependencies collected beside it by the documented
 * command ({@code formats/target/formats-lib}) are added with {@code ADD JAR} to a running
 * multi-process cluster, and an Iceberg table written by Iceberg's own generic writers, declared
 * with {@code 'format' = 'iceberg'} and no {@code sort-key} (the table's sort order names it),
 * enriches a stream through a lookup join whose rows must equal the enrichment computed here.
 */
class IcebergJarITCase {

    @RegisterExtension
    static final FlinkClusterExtension FLINK = new FlinkClusterExtension(2, Map.of());

    private static final long SEED = 20_261_201L;
    private static final long CUSTOMERS = 8_000; // even ids 0 .. 15_998
    private static final int EVENTS = 3_000;

    private static final Schema SCHEMA =
            new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get()),
                    Types.NestedField.required(3, "tier", Types.IntegerType.get()));

    @Test
    @Timeout(300)
    void icebergTableServedThroughTheSqlJarAndTheFormatsJar() throws Exception {
        FlinkCluster cluster = FLINK.cluster();
        Path data = cluster.home().resolve("data");
        Path tableDir = data.resolve("warehouse/customers");
        writeTable(tableDir.toUri().toString(), 4);
        List<long[]> events = EnrichmentJob.events(new Random(SEED), EVENTS, 18_000);
        Path eventsDir = data.resolve("events");
        EnrichmentJob.writeEventsCsv(eventsDir, events);
        Path out = data.resolve("enriched");

        List<Path> jars = new ArrayList<>();
        jars.add(Path.of(FlinkCluster.requiredProperty("e2e.connector.jar")));
        jars.add(Path.of(FlinkCluster.requiredProperty("e2e.formats.jar")));
        try (Stream<Path> lib =
                Files.list(Path.of(FlinkCluster.requiredProperty("e2e.formats.lib")))) {
            lib.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        assertThat(jars).allSatisfy(j -> assertThat(j).isRegularFile());
        assertThat(jars.subList(2, jars.size()).stream().map(j -> j.getFileName().toString()))
                .as("the collected dependencies hold Iceberg and no Hadoop or Parquet")
                .anyMatch(n -> n.startsWith("iceberg-core-"))
                .noneMatch(n -> n.startsWith("hadoop-") || n.startsWith("parquet-"));

        try (SqlGatewayClient.Session sql =
                cluster.gateway().openSession(Map.of("parallelism.default", "2"))) {
            for (Path jar : jars) {
                sql.execute("ADD JAR '" + jar + "'");
            }
            sql.execute(
                    "CREATE TABLE customers (id BIGINT, name STRING, tier INT) WITH ("
                            + " 'connector' = 'parquet-lookup',"
                            + " 'format' = 'iceberg',"
                            + " 'path' = '"
                            + tableDir.toUri()
                            + "')");
            EnrichmentJob.run(sql, cluster, eventsDir, out);
        }

        EnrichmentJob.assertEnriched(out, events, CUSTOMERS, SEED);
    }

    /**
     * A format-version 2 Hadoop table sorted by {@code id}, the customers of {@link DimensionFiles}
     * in {@code files} data files of consecutive ids, one append.
     */
    private static void writeTable(String location, int files) throws IOException {
        Table table =
                new HadoopTables(new Configuration())
                        .create(
                                SCHEMA,
                                PartitionSpec.unpartitioned(),
                                SortOrder.builderFor(SCHEMA).asc("id").build(),
                                Map.of(
                                        "format-version", "2",
                                        "write.parquet.page-row-limit", "256",
                                        "write.parquet.row-group-size-bytes", "65536"),
                                location);
        GenericFileWriterFactory writers =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build();
        OutputFileFactory outputs =
                OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
        var append = table.newAppend();
        long perFile = (CUSTOMERS + files - 1) / files;
        for (int f = 0; f < files; f++) {
            DataWriter<Record> writer =
                    writers.newDataWriter(
                            outputs.newOutputFile(), PartitionSpec.unpartitioned(), null);
            try (writer) {
                for (long i = f * perFile; i < Math.min(CUSTOMERS, (f + 1) * perFile); i++) {
                    DimensionFiles.Customer c = DimensionFiles.customer(2 * i).orElseThrow();
                    GenericRecord r = GenericRecord.create(SCHEMA);
                    r.setField("id", c.id());
                    r.setField("name", c.name());
                    r.setField("tier", c.tier());
                    writer.write(r);
                }
            }
            DataFile file = writer.toDataFile();
            append.appendFile(file);
        }
        append.commit();
    }
}
