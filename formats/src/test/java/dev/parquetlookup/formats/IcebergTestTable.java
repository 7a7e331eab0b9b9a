package dev.parquetlookup.formats;

import org.apache.hadoop.conf.Configuration;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An Iceberg table written by Iceberg's own generic writers (a Hadoop table on the local disk), for
 * tests: the {@link FormatTestTable} rows, small pages so lookups cross pages, and the table's own
 * reader (deletes applied) as the independent reading of every snapshot.
 */
final class IcebergTestTable implements FormatTestTable<DataFile> {

    static final Schema SCHEMA =
            new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get()),
                    Types.NestedField.optional(3, "region", Types.StringType.get()));

    final Table table;
    private int fileCounter;

    private IcebergTestTable(Table table) {
        this.table = table;
    }

    /** A table made elsewhere (e.g. through a catalog) with {@link #SCHEMA}'s columns. */
    static IcebergTestTable of(Table table) {
        return new IcebergTestTable(table);
    }

    /** A format-version 2 table at {@code location}, partitioned by {@code spec}. */
    static IcebergTestTable create(String location, PartitionSpec spec) {
        return create(location, spec, 2);
    }

    /** A table of {@code formatVersion} (3 has deletion vectors) at {@code location}. */
    static IcebergTestTable create(String location, PartitionSpec spec, int formatVersion) {
        Table table =
                new HadoopTables(new Configuration())
                        .create(
                                SCHEMA,
                                spec,
                                Map.of(
                                        "format-version", String.valueOf(formatVersion),
                                        "write.parquet.page-row-limit", "64",
                                        "write.parquet.dict-size-bytes", "1024"),
                                location);
        return new IcebergTestTable(table);
    }

    static PartitionSpec byRegion() {
        return PartitionSpec.builderFor(SCHEMA).identity("region").build();
    }

    @Override
    public String versionLabel(long snapshotId) {
        return "iceberg snapshot " + snapshotId;
    }

    @Override
    public long version() {
        table.refresh();
        return table.currentSnapshot().snapshotId();
    }

    /** Writes {@code rows} (sorted by id here) into one data file, not yet committed. */
    DataFile write(List<Row> rows) throws IOException {
        return writeValues(Row.values(rows));
    }

    /**
     * Writes rows of the table's current schema (column name to value, Iceberg's representation;
     * absent columns NULL), sorted by {@code id} (field 1, under its current name), into one data
     * file of the partition of the first row, not yet committed.
     */
    DataFile writeValues(List<Map<String, Object>> rows) throws IOException {
        table.refresh();
        Schema schema = table.schema();
        String id = schema.findColumnName(1); // 'id', or its name after a rename
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(r -> (Long) r.get(id)));
        List<Record> records = new ArrayList<>();
        for (Map<String, Object> values : sorted) {
            GenericRecord record = GenericRecord.create(schema);
            values.forEach(record::setField);
            records.add(record);
        }
        PartitionKey partition = null;
        if (table.spec().isPartitioned()) {
            partition = new PartitionKey(table.spec(), schema);
            partition.partition(records.get(0));
        }
        OutputFileFactory files = files(1, FileFormat.PARQUET);
        DataWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build()
                        .newDataWriter(
                                partition == null
                                        ? files.newOutputFile()
                                        : files.newOutputFile(partition),
                                table.spec(),
                                partition);
        try (writer) {
            for (Record r : records) {
                writer.write(r);
            }
        }
        return writer.toDataFile();
    }

    @Override
    public void appendValues(List<Map<String, Object>> rows) throws IOException {
        table.newAppend().appendFile(writeValues(rows)).commit();
    }

    @Override
    public Map<Long, List<String>> readColumns(long snapshotId, List<String> columns)
            throws IOException {
        table.refresh();
        Map<Long, List<String>> byId = new TreeMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            for (Record r : records) {
                List<Object> values = new ArrayList<>();
                for (String c : columns) {
                    values.add(r.getField(c));
                }
                byId.computeIfAbsent((Long) r.get(0, Long.class), k -> new ArrayList<>())
                        .add(FormatTestTable.joined(values.toArray()));
            }
        }
        byId.values().forEach(l -> l.sort(null));
        return byId;
    }

    @Override
    public DataFile append(List<Row> rows) throws IOException {
        DataFile file = write(rows);
        table.newAppend().appendFile(file).commit();
        return file;
    }

    @Override
    public void appendFiles(List<List<Row>> files) throws IOException {
        AppendFiles append = table.newAppend();
        for (List<Row> rows : files) {
            append.appendFile(write(rows));
        }
        append.commit();
    }

    @Override
    public DataFile overwrite(DataFile old, List<Row> rows) throws IOException {
        DataFile file = write(rows);
        table.newOverwrite().deleteFile(old).addFile(file).commit();
        return file;
    }

    @Override
    public void deleteFile(DataFile file) {
        table.newDelete().deleteFile(file).commit();
    }

    @Override
    public Path dataFile(DataFile file) {
        return Path.of(URI.create(file.location()));
    }

    /**
     * New files of {@code format}, named after {@code partitionId}: 1 data, 2 position deletes, 3
     * equality deletes, 4 deletion vectors.
     */
    private OutputFileFactory files(int partitionId, FileFormat format) {
        return OutputFileFactory.builderFor(table, partitionId, ++fileCounter)
                .format(format)
                .build();
    }

    /** Commits a position-delete file removing {@code positions} of {@code file}. */
    void deletePositions(DataFile file, long... positions) throws IOException {
        PositionDeleteWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .deleteFileFormat(FileFormat.PARQUET)
                        .build()
                        .newPositionDeleteWriter(
                                files(2, FileFormat.PARQUET).newOutputFile(), table.spec(), null);
        try (writer) {
            for (long p : positions) {
                writer.write(PositionDelete.<Record>create().set(file.location(), p));
            }
        }
        commitDeletes(writer.toDeleteFile());
    }

    /**
     * Commits a deletion vector (format version 3, a blob in a Puffin file written by Iceberg's
     * {@code BaseDVFileWriter}) removing {@code positions} of {@code file}, which must have none.
     */
    void deleteWithVector(DataFile file, long... positions) throws IOException {
        BaseDVFileWriter writer =
                new BaseDVFileWriter(files(4, FileFormat.PUFFIN), location -> null);
        try (writer) {
            for (long p : positions) {
                writer.delete(file.location(), p, table.spec(), null);
            }
        }
        RowDelta delta = table.newRowDelta();
        writer.result().deleteFiles().forEach(delta::addDeletes);
        delta.commit();
    }

    /** Commits an equality-delete file removing the rows with these ids. */
    void deleteIds(long... ids) throws IOException {
        Schema idOnly = table.schema().select("id");
        EqualityDeleteWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .deleteFileFormat(FileFormat.PARQUET)
                        .equalityFieldIds(new int[] {1})
                        .equalityDeleteRowSchema(idOnly)
                        .build()
                        .newEqualityDeleteWriter(
                                files(3, FileFormat.PARQUET).newOutputFile(), table.spec(), null);
        try (writer) {
            for (long id : ids) {
                GenericRecord r = GenericRecord.create(idOnly);
                r.setField("id", id);
                writer.write(r);
            }
        }
        commitDeletes(writer.toDeleteFile());
    }

    private void commitDeletes(DeleteFile deletes) {
        table.newRowDelta().addDeletes(deletes).commit();
    }
}
