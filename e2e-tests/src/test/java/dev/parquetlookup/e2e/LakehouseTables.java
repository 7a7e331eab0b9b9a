package dev.parquetlookup.e2e;

import dev.parquetlookup.formats.DeltaKernelWrites;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.Operation;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.internal.data.DefaultColumnarBatch;
import io.delta.kernel.defaults.internal.data.vector.DefaultGenericVector;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@link DimensionFiles} customers {@code (id BIGINT, name STRING, tier INT)} as a Delta table
 * and as an Iceberg table, each written in the test JVM by the format's own writers (the Delta
 * kernel's transactions and Parquet writer, through formats' DeltaKernelWrites; Iceberg's generic
 * Parquet writers), in {@code files} data files of consecutive ids, sorted by {@code id}, committed
 * as one version.
 *
 * <pre>{@code
 * LakehouseTables.writeDelta(dir.resolve("delta"), 8_000, 4);   // serve with 'sort-key' = 'id'
 * LakehouseTables.writeIceberg(dir.resolve("iceberg"), 8_000, 4); // its sort order names id
 * }</pre>
 */
final class LakehouseTables {

    private static final Schema ICEBERG_SCHEMA =
            new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get()),
                    Types.NestedField.required(3, "tier", Types.IntegerType.get()));

    private static final StructType DELTA_SCHEMA =
            new StructType()
                    .add("id", LongType.LONG, false)
                    .add("name", StringType.STRING, true)
                    .add("tier", IntegerType.INTEGER, false);

    private LakehouseTables() {}

    /** A Delta table (no sort order in Delta: readers declare {@code 'sort-key' = 'id'}). */
    static void writeDelta(Path root, long customers, int files) throws IOException {
        Engine engine = DefaultEngine.create(new Configuration());
        Table table = Table.forPath(engine, root.toUri().toString());
        table.createTransactionBuilder(engine, "parquet-lookup e2e", Operation.CREATE_TABLE)
                .withSchema(engine, DELTA_SCHEMA)
                .build(engine)
                .commit(engine, CloseableIterable.emptyIterable());
        Transaction txn =
                table.createTransactionBuilder(engine, "parquet-lookup e2e", Operation.WRITE)
                        .build(engine);
        List<Row> actions = new ArrayList<>();
        for (List<DimensionFiles.Customer> rows : split(customers, files)) {
            List<Object> ids = new ArrayList<>();
            List<Object> names = new ArrayList<>();
            List<Object> tiers = new ArrayList<>();
            for (DimensionFiles.Customer c : rows) {
                ids.add(c.id());
                names.add(c.name());
                tiers.add(c.tier());
            }
            ColumnarBatch batch =
                    new DefaultColumnarBatch(
                            rows.size(),
                            DELTA_SCHEMA,
                            new ColumnVector[] {
                                DefaultGenericVector.fromList(LongType.LONG, ids),
                                DefaultGenericVector.fromList(StringType.STRING, names),
                                DefaultGenericVector.fromList(IntegerType.INTEGER, tiers)
                            });
            actions.addAll(DeltaKernelWrites.appendActions(engine, txn, batch, Map.of()));
        }
        DeltaKernelWrites.commit(engine, txn, actions);
    }

    /** A format-version 2 Iceberg table whose sort order is {@code id} ascending. */
    static void writeIceberg(Path root, long customers, int files) throws IOException {
        org.apache.iceberg.Table table =
                new HadoopTables(new Configuration())
                        .create(
                                ICEBERG_SCHEMA,
                                PartitionSpec.unpartitioned(),
                                SortOrder.builderFor(ICEBERG_SCHEMA).asc("id").build(),
                                Map.of(
                                        "format-version", "2",
                                        "write.parquet.page-row-limit", "256",
                                        "write.parquet.row-group-size-bytes", "65536"),
                                root.toUri().toString());
        GenericFileWriterFactory writers =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build();
        OutputFileFactory outputs =
                OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
        var append = table.newAppend();
        for (List<DimensionFiles.Customer> rows : split(customers, files)) {
            DataWriter<Record> writer =
                    writers.newDataWriter(
                            outputs.newOutputFile(), PartitionSpec.unpartitioned(), null);
            try (writer) {
                for (DimensionFiles.Customer c : rows) {
                    GenericRecord r = GenericRecord.create(ICEBERG_SCHEMA);
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

    /** The first {@code customers} customers in {@code files} runs of consecutive ids. */
    private static List<List<DimensionFiles.Customer>> split(long customers, int files) {
        List<List<DimensionFiles.Customer>> split = new ArrayList<>();
        long perFile = (customers + files - 1) / files;
        for (int f = 0; f < files; f++) {
            List<DimensionFiles.Customer> rows = new ArrayList<>();
            for (long i = f * perFile; i < Math.min(customers, (f + 1) * perFile); i++) {
                rows.add(DimensionFiles.customer(2 * i).orElseThrow());
            }
            split.add(rows);
        }
        return split;
    }
}
