package dev.parquetlookup.formats;

import org.apache.hadoop.conf.Configuration;

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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An Iceberg table written by Iceberg's own generic writers (a Hadoop table on the local disk), for
 * tests: rows {@code (id BIGINT NOT NULL, name STRING, region STRING)} sorted by {@code id} within
 * each data file, small pages so lookups cross pages, and the table's own reader as the independent
 * reading of every version.
 */
final class IcebergTestTable {

    static final Schema SCHEMA =
            new Schema(
                    Types.NestedField.required(1, "id", Types.LongType.get()),
                    Types.NestedField.optional(2, "name", Types.StringType.get()),
                    Types.NestedField.optional(3, "region", Types.StringType.get()));

    /** One row. */
    record Row(long id, String name, String region) {}

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

    /** Rows {@code ids} named {@code prefix-id}, all in {@code region}. */
    static List<Row> rows(String prefix, String region, long... ids) {
        List<Row> rows = new ArrayList<>();
        for (long id : ids) {
            rows.add(new Row(id, prefix + "-" + id, region));
        }
        return rows;
    }

    static long[] range(long from, long to, long step) {
        List<Long> ids = new ArrayList<>();
        for (long i = from; i < to; i += step) {
            ids.add(i);
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** Writes {@code rows} (sorted by id here) into one data file, not yet committed. */
    DataFile write(List<Row> rows) throws IOException {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(Row::id));
        PartitionKey partition = null;
        GenericRecord record = GenericRecord.create(table.schema());
        if (table.spec().isPartitioned()) {
            partition = new PartitionKey(table.spec(), table.schema());
            partition.partition(toRecord(record, sorted.get(0)));
        }
        OutputFileFactory files =
                OutputFileFactory.builderFor(table, 1, ++fileCounter)
                        .format(FileFormat.PARQUET)
                        .build();
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
            for (Row r : sorted) {
                writer.write(toRecord(record.copy(), r));
            }
        }
        return writer.toDataFile();
    }

    private static Record toRecord(GenericRecord record, Row r) {
        record.setField("id", r.id());
        record.setField("name", r.name());
        record.setField("region", r.region());
        return record;
    }

    /**
     * Writes rows of the table's current schema (column name to value, Iceberg's representation;
     * absent columns NULL), sorted by {@code id}, into one data file of the partition of the first
     * row, not yet committed.
     */
    DataFile writeValues(List<Map<String, Object>> rows) throws IOException {
        table.refresh();
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        Schema schema = table.schema();
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
        OutputFileFactory files =
                OutputFileFactory.builderFor(table, 1, ++fileCounter)
                        .format(FileFormat.PARQUET)
                        .build();
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

    /** Appends one data file of {@code rows} (see {@link #writeValues}); returns it. */
    DataFile appendValues(List<Map<String, Object>> rows) throws IOException {
        DataFile file = writeValues(rows);
        table.newAppend().appendFile(file).commit();
        return file;
    }

    /**
     * The independent reading of {@code columns} (current names): every row of snapshot {@code
     * snapshotId} as Iceberg's generic reader returns it, by id, as {@code "v1|v2|..."} strings.
     */
    Map<Long, List<String>> readColumns(long snapshotId, List<String> columns) throws IOException {
        table.refresh();
        Map<Long, List<String>> byId = new TreeMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            for (Record r : records) {
                List<Object> values = new ArrayList<>();
                for (String c : columns) {
                    values.add(r.getField(c));
                }
                byId.computeIfAbsent((Long) r.getField("id"), k -> new ArrayList<>())
                        .add(joined(values.toArray()));
            }
        }
        byId.values().forEach(l -> l.sort(null));
        return byId;
    }

    /** Values as text joined by '|', strings decoded from the engine's UTF-8 bytes. */
    static String joined(Object... values) {
        List<String> parts = new ArrayList<>();
        for (Object v : values) {
            parts.add(String.valueOf(string(v)));
        }
        return String.join("|", parts);
    }

    /** Appends one data file of {@code rows}; returns it. */
    DataFile append(List<Row> rows) throws IOException {
        DataFile file = write(rows);
        table.newAppend().appendFile(file).commit();
        return file;
    }

    /** Replaces {@code old} by a new file of {@code rows} in one snapshot; returns the new file. */
    DataFile overwrite(DataFile old, List<Row> rows) throws IOException {
        DataFile file = write(rows);
        table.newOverwrite().deleteFile(old).addFile(file).commit();
        return file;
    }

    /** Drops a whole data file in one snapshot (no delete file). */
    void deleteFile(DataFile file) {
        table.newDelete().deleteFile(file).commit();
    }

    /** Commits a position-delete file removing {@code positions} of {@code file}. */
    void deletePositions(DataFile file, long... positions) throws IOException {
        PositionDeleteWriter<Record> writer =
                new GenericFileWriterFactory.Builder(table)
                        .deleteFileFormat(FileFormat.PARQUET)
                        .build()
                        .newPositionDeleteWriter(
                                OutputFileFactory.builderFor(table, 2, ++fileCounter)
                                        .format(FileFormat.PARQUET)
                                        .build()
                                        .newOutputFile(),
                                table.spec(),
                                null);
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
                new BaseDVFileWriter(
                        OutputFileFactory.builderFor(table, 4, ++fileCounter)
                                .format(FileFormat.PUFFIN)
                                .build(),
                        location -> null);
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
                                OutputFileFactory.builderFor(table, 3, ++fileCounter)
                                        .format(FileFormat.PARQUET)
                                        .build()
                                        .newOutputFile(),
                                table.spec(),
                                null);
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

    long currentSnapshotId() {
        table.refresh();
        return table.currentSnapshot().snapshotId();
    }

    /**
     * The independent reading: every row of snapshot {@code snapshotId} as Iceberg's own generic
     * reader returns it (deletes applied), grouped by id as {@code "id|name|region"} strings.
     */
    Map<Long, List<String>> read(long snapshotId) throws IOException {
        Map<Long, List<String>> byId = new TreeMap<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(table).useSnapshot(snapshotId).build()) {
            for (Record r : records) {
                long id = (Long) r.getField("id");
                byId.computeIfAbsent(id, k -> new ArrayList<>())
                        .add(text(id, r.getField("name"), r.getField("region")));
            }
        }
        byId.values().forEach(l -> l.sort(null));
        return byId;
    }

    /** One row as text; the engine returns strings as UTF-8 bytes. */
    static String text(Object id, Object name, Object region) {
        return id + "|" + string(name) + "|" + string(region);
    }

    private static Object string(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : value;
    }
}
