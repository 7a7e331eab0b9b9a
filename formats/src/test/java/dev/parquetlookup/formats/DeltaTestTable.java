package dev.parquetlookup.formats;

import org.apache.hadoop.conf.Configuration;

import io.delta.kernel.Operation;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.Transaction;
import io.delta.kernel.TransactionBuilder;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.internal.data.DefaultColumnarBatch;
import io.delta.kernel.defaults.internal.data.vector.DefaultGenericVector;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.data.GenericRow;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterable;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import org.roaringbitmap.RoaringBitmap;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.zip.CRC32;

/**
 * A Delta table written by the Delta kernel's own write support (on the local disk), for tests: the
 * {@link FormatTestTable} rows, and the kernel's own reader (deletion vectors applied) as the
 * independent reading of every version; data files are named by their add actions.
 *
 * <p>The kernel (4.0) writes data files and commits adds; removes and deletion vectors are
 * committed through the kernel's action classes ({@code AddFile.toRemoveFileRow}, {@code
 * AddFile.createAddFileRow} with a {@code DeletionVectorDescriptor}): the kernel has no public API
 * for them yet. The deletion vector's bytes are laid out as the Delta protocol says (a portable
 * {@code RoaringBitmapArray}, inline in Z85 or in a {@code deletion_vector_<uuid>.bin} file), and
 * the kernel's reader, not ours, checks them.
 */
final class DeltaTestTable implements FormatTestTable<io.delta.kernel.data.Row> {

    static final StructType SCHEMA =
            new StructType()
                    .add("id", LongType.LONG, false)
                    .add("name", StringType.STRING)
                    .add("region", StringType.STRING);

    final String location;
    final Engine engine;
    final Table table;

    /**
     * Column mapping on: the kernel (4.0) does not write such tables, see {@link #appendMapped}.
     */
    private final boolean mapped;

    private DeltaTestTable(String location, Map<String, String> properties) {
        this.location = location;
        this.mapped = properties.containsKey("delta.columnMapping.mode");
        this.engine = DefaultEngine.create(new Configuration());
        this.table = Table.forPath(engine, location);
    }

    /** A new empty table (version 0) with {@code properties} (e.g. deletion vectors enabled). */
    static DeltaTestTable create(String location, Map<String, String> properties) {
        DeltaTestTable t = new DeltaTestTable(location, properties);
        TransactionBuilder builder =
                t.table
                        .createTransactionBuilder(
                                t.engine, "parquet-lookup tests", Operation.CREATE_TABLE)
                        .withSchema(t.engine, SCHEMA);
        if (!properties.isEmpty()) {
            builder = builder.withTableProperties(t.engine, properties);
        }
        builder.build(t.engine).commit(t.engine, CloseableIterable.emptyIterable());
        return t;
    }

    /**
     * A new empty table with {@code properties} (e.g. {@code delta.columnMapping.mode}) whose
     * columns are {@link #SCHEMA}'s, partitioned by {@code partitionColumns}.
     */
    static DeltaTestTable create(
            String location, Map<String, String> properties, List<String> partitionColumns) {
        DeltaTestTable t = new DeltaTestTable(location, properties);
        t.table
                .createTransactionBuilder(t.engine, "parquet-lookup tests", Operation.CREATE_TABLE)
                .withSchema(t.engine, SCHEMA)
                .withTableProperties(t.engine, properties)
                .withPartitionColumns(t.engine, partitionColumns)
                .build(t.engine)
                .commit(t.engine, CloseableIterable.emptyIterable());
        return t;
    }

    /** The latest version's schema (with its column-mapping metadata). */
    StructType schema() {
        return table.getLatestSnapshot(engine).getSchema();
    }

    /**
     * Commits {@code schema} as the table's new schema (a rename, an added column), as a writer
     * with schema evolution does: a commit holding only the new {@code metaData} action (the latest
     * one with its {@code schemaString} replaced). The kernel (4.0) refuses schema changes
     * ("Evolution is not currently supported"), so this commit is written here; the kernel then
     * reads it back for the independent reading.
     */
    void evolve(StructType schema) throws IOException {
        Path log = Paths.get(URI.create(table.getPath(engine) + "/_delta_log/"));
        long version = version();
        com.fasterxml.jackson.databind.ObjectMapper json =
                new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode metadata = null;
        for (long v = version; v >= 0 && metadata == null; v--) {
            for (String line : Files.readAllLines(log.resolve(String.format("%020d.json", v)))) {
                com.fasterxml.jackson.databind.JsonNode action = json.readTree(line);
                if (action.has("metaData")) {
                    metadata =
                            (com.fasterxml.jackson.databind.node.ObjectNode) action.get("metaData");
                }
            }
        }
        metadata.put("schemaString", schema.toJson());
        long maxId = 0;
        for (io.delta.kernel.types.StructField f : schema.fields()) {
            if (f.getMetadata().contains("delta.columnMapping.id")) {
                maxId = Math.max(maxId, f.getMetadata().getLong("delta.columnMapping.id"));
            }
        }
        com.fasterxml.jackson.databind.node.ObjectNode configuration =
                (com.fasterxml.jackson.databind.node.ObjectNode) metadata.get("configuration");
        if (configuration.has("delta.columnMapping.maxColumnId")) {
            configuration.put("delta.columnMapping.maxColumnId", String.valueOf(maxId));
        }
        com.fasterxml.jackson.databind.node.ObjectNode action = json.createObjectNode();
        action.set("metaData", metadata);
        Files.writeString(
                log.resolve(String.format("%020d.json", version + 1)),
                json.writeValueAsString(action) + "\n",
                java.nio.file.StandardOpenOption.CREATE_NEW);
    }

    /**
     * {@code field} as a column-mapped table's next column: field id {@code maxId + 1} and a
     * physical name of its own ({@code col-<uuid>}), as a writer adding a column gives it.
     */
    static io.delta.kernel.types.StructField mappedColumn(
            StructType schema, String name, io.delta.kernel.types.DataType type) {
        long maxId = 0;
        for (io.delta.kernel.types.StructField f : schema.fields()) {
            maxId = Math.max(maxId, f.getMetadata().getLong("delta.columnMapping.id"));
        }
        return new io.delta.kernel.types.StructField(
                name,
                type,
                true,
                io.delta.kernel.types.FieldMetadata.builder()
                        .putLong("delta.columnMapping.id", maxId + 1)
                        .putString("delta.columnMapping.physicalName", "col-" + UUID.randomUUID())
                        .build());
    }

    @Override
    public void appendValues(List<Map<String, Object>> rows) throws IOException {
        if (mapped) {
            appendMapped(rows);
            return;
        }
        Transaction txn = newWrite();
        commit(txn, write(txn, table.getLatestSnapshot(engine), rows));
    }

    /**
     * Like {@link #appendValues} for a table with column mapping, which the kernel (4.0) creates
     * but does not write data into: the kernel's own Parquet writer writes the file under the
     * physical schema ({@code ColumnMapping.convertToPhysicalSchema}: physical names, and field ids
     * in mode {@code id}), without the partition columns, and the add action (partition values
     * under physical names, as the protocol says) is committed through the kernel.
     */
    void appendMapped(List<Map<String, Object>> rows) throws IOException {
        Snapshot snapshot = table.getLatestSnapshot(engine);
        io.delta.kernel.internal.SnapshotImpl impl =
                (io.delta.kernel.internal.SnapshotImpl) snapshot;
        StructType logical = snapshot.getSchema();
        List<String> partitions = impl.getPartitionColumnNames();
        StructType physicalAll =
                io.delta.kernel.internal.util.ColumnMapping.convertToPhysicalSchema(
                        logical,
                        logical,
                        io.delta.kernel.internal.util.ColumnMapping.getColumnMappingMode(
                                impl.getMetadata().getConfiguration()));
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        if (sortRows) {
            sorted.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        }
        StructType physical = new StructType();
        List<ColumnVector> vectors = new ArrayList<>();
        Map<String, io.delta.kernel.expressions.Literal> partition = new HashMap<>();
        for (int c = 0; c < logical.length(); c++) {
            String name = logical.at(c).getName();
            if (partitions.contains(name)) {
                partition.put(
                        physicalAll.at(c).getName(),
                        io.delta.kernel.expressions.Literal.ofString(
                                (String) sorted.get(0).get(name)));
                continue;
            }
            physical = physical.add(physicalAll.at(c));
            List<Object> values = new ArrayList<>();
            for (Map<String, Object> r : sorted) {
                values.add(r.get(name));
            }
            vectors.add(DefaultGenericVector.fromList(logical.at(c).getDataType(), values));
        }
        ColumnarBatch batch =
                new DefaultColumnarBatch(
                        sorted.size(), physical, vectors.toArray(new ColumnVector[0]));
        String root = table.getPath(engine);
        List<io.delta.kernel.data.Row> actions = new ArrayList<>();
        try (CloseableIterator<DataFileStatus> written =
                engine.getParquetHandler()
                        .writeParquetFiles(
                                root,
                                Utils.singletonCloseableIterator(
                                        new FilteredColumnarBatch(batch, Optional.empty())),
                                List.of())) {
            while (written.hasNext()) {
                AddFile add =
                        AddFile.convertDataFileStatus(
                                physical,
                                URI.create(root),
                                written.next(),
                                partition,
                                true,
                                Map.of());
                actions.add(SingleAction.createAddFileSingleAction(add.toRow()));
            }
        }
        commit(newWrite(), actions);
    }

    /**
     * The independent reading of {@code columns} (logical names of {@code version}): every row as
     * the kernel's reader returns it, by id, as {@code "v1|v2|..."} strings.
     */
    @Override
    public Map<Long, List<String>> readColumns(long version, List<String> columns)
            throws IOException {
        Map<Long, List<String>> byId = new TreeMap<>();
        Snapshot snapshot = table.getSnapshotAsOfVersion(engine, version);
        StructType logical = snapshot.getSchema();
        Scan scan = snapshot.getScanBuilder().build();
        io.delta.kernel.data.Row state = scan.getScanState(engine);
        StructType readSchema = ScanStateRow.getPhysicalDataReadSchema(engine, state);
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
            while (files.hasNext()) {
                try (CloseableIterator<io.delta.kernel.data.Row> scanFiles =
                        files.next().getRows()) {
                    while (scanFiles.hasNext()) {
                        io.delta.kernel.data.Row scanFile = scanFiles.next();
                        FileStatus status = InternalScanFileUtils.getAddFileStatus(scanFile);
                        CloseableIterator<ColumnarBatch> physical =
                                engine.getParquetHandler()
                                        .readParquetFiles(
                                                Utils.singletonCloseableIterator(status),
                                                readSchema,
                                                Optional.empty());
                        try (CloseableIterator<FilteredColumnarBatch> data =
                                Scan.transformPhysicalData(engine, state, scanFile, physical)) {
                            while (data.hasNext()) {
                                try (CloseableIterator<io.delta.kernel.data.Row> rows =
                                        data.next().getRows()) {
                                    while (rows.hasNext()) {
                                        io.delta.kernel.data.Row r = rows.next();
                                        List<Object> values = new ArrayList<>();
                                        for (String c : columns) {
                                            values.add(value(r, logical, c));
                                        }
                                        long id = r.getLong(logical.indexOf("id"));
                                        byId.computeIfAbsent(id, k -> new ArrayList<>())
                                                .add(FormatTestTable.joined(values.toArray()));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        byId.values().forEach(l -> l.sort(null));
        return byId;
    }

    private static Object value(io.delta.kernel.data.Row r, StructType schema, String column) {
        int i = schema.indexOf(column);
        if (r.isNullAt(i)) {
            return null;
        }
        io.delta.kernel.types.DataType type = schema.at(i).getDataType();
        if (type instanceof LongType) {
            return r.getLong(i);
        }
        if (type instanceof io.delta.kernel.types.IntegerType) {
            return r.getInt(i);
        }
        return r.getString(i);
    }

    @Override
    public io.delta.kernel.data.Row append(List<Row> rows) {
        Transaction txn = newWrite();
        List<io.delta.kernel.data.Row> actions = write(txn, rows);
        commit(txn, actions);
        return actions.get(0);
    }

    @Override
    public void appendFiles(List<List<Row>> files) {
        Transaction txn = newWrite();
        List<io.delta.kernel.data.Row> actions = new ArrayList<>();
        for (List<Row> rows : files) {
            actions.addAll(write(txn, rows));
        }
        commit(txn, actions);
    }

    /** Writes a checkpoint of the latest version (readers then start from it). */
    void checkpoint() throws IOException {
        table.checkpoint(engine, version());
    }

    @Override
    public io.delta.kernel.data.Row overwrite(io.delta.kernel.data.Row old, List<Row> rows) {
        Transaction txn = newWrite();
        List<io.delta.kernel.data.Row> actions = new ArrayList<>(write(txn, rows));
        io.delta.kernel.data.Row added = actions.get(0);
        actions.add(remove(old));
        commit(txn, actions);
        return added;
    }

    @Override
    public void deleteFile(io.delta.kernel.data.Row old) {
        Transaction txn = newWrite();
        commit(txn, List.of(remove(old)));
    }

    /**
     * Deletes the rows at {@code positions} of the file of {@code old} with a deletion vector
     * (inline in the log, or in a {@code deletion_vector_<uuid>.bin} file beside the data); returns
     * the new add action of the file, which carries the vector.
     */
    io.delta.kernel.data.Row deleteRows(
            io.delta.kernel.data.Row old, boolean inline, long... positions) throws IOException {
        byte[] bitmap = portableBitmapArray(positions);
        DeletionVectorDescriptor dv;
        if (inline) {
            dv =
                    new DeletionVectorDescriptor(
                            "i",
                            Base85Codec.encodeBytes(bitmap),
                            Optional.empty(),
                            bitmap.length,
                            positions.length);
        } else {
            UUID uuid = UUID.randomUUID();
            Path file =
                    Paths.get(URI.create(table.getPath(engine) + "/"))
                            .resolve("deletion_vector_" + uuid + ".bin");
            // Format version 1, then per vector: its size, its bytes, their CRC-32 (big endian).
            ByteBuffer buffer = ByteBuffer.allocate(1 + 4 + bitmap.length + 4);
            CRC32 crc = new CRC32();
            crc.update(bitmap);
            buffer.put((byte) 1).putInt(bitmap.length).put(bitmap).putInt((int) crc.getValue());
            try (OutputStream out = Files.newOutputStream(file)) {
                out.write(buffer.array());
            }
            dv =
                    new DeletionVectorDescriptor(
                            "u",
                            Base85Codec.encodeUUID(uuid),
                            Optional.of(1),
                            bitmap.length,
                            positions.length);
        }
        // AddFile.createAddFileRow refuses deletion vectors in kernel 4.0: the same add row with
        // the vector set, the statistics kept (numRecords still counts the file's rows).
        AddFile add = new AddFile(old.getStruct(SingleAction.ADD_FILE_ORDINAL));
        Map<Integer, Object> dvFields = new HashMap<>();
        dvFields.put(0, dv.getStorageType());
        dvFields.put(1, dv.getPathOrInlineDv());
        dv.getOffset().ifPresent(o -> dvFields.put(2, o));
        dvFields.put(3, dv.getSizeInBytes());
        dvFields.put(4, dv.getCardinality());
        StructType schema = AddFile.FULL_SCHEMA;
        Map<Integer, Object> fields = new HashMap<>();
        fields.put(schema.indexOf("path"), add.getPath());
        fields.put(schema.indexOf("partitionValues"), add.getPartitionValues());
        fields.put(schema.indexOf("size"), add.getSize());
        fields.put(schema.indexOf("modificationTime"), add.getModificationTime());
        fields.put(schema.indexOf("dataChange"), true);
        fields.put(
                schema.indexOf("deletionVector"),
                new GenericRow(DeletionVectorDescriptor.READ_SCHEMA, dvFields));
        add.getStatsJson().ifPresent(stats -> fields.put(schema.indexOf("stats"), stats));
        io.delta.kernel.data.Row withDv =
                SingleAction.createAddFileSingleAction(new GenericRow(schema, fields));
        Transaction txn = newWrite();
        commit(txn, List.of(remove(old), withDv));
        return withDv;
    }

    /**
     * Positions as the protocol's portable RoaringBitmapArray (little endian, one per high word).
     */
    private static byte[] portableBitmapArray(long... positions) {
        TreeMap<Integer, RoaringBitmap> byHigh = new TreeMap<>();
        for (long p : positions) {
            byHigh.computeIfAbsent((int) (p >>> 32), k -> new RoaringBitmap()).add((int) p);
        }
        int size = 4 + 8;
        for (RoaringBitmap b : byHigh.values()) {
            b.runOptimize();
            size += 4 + b.serializedSizeInBytes();
        }
        ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(1681511377).putLong(byHigh.size());
        for (Map.Entry<Integer, RoaringBitmap> e : byHigh.entrySet()) {
            buffer.putInt(e.getKey());
            e.getValue().serialize(buffer);
        }
        return buffer.array();
    }

    private Transaction newWrite() {
        return table.createTransactionBuilder(engine, "parquet-lookup tests", Operation.WRITE)
                .build(engine);
    }

    private static io.delta.kernel.data.Row remove(io.delta.kernel.data.Row addAction) {
        return DeltaKernelWrites.remove(addAction);
    }

    private void commit(Transaction txn, List<io.delta.kernel.data.Row> actions) {
        DeltaKernelWrites.commit(engine, txn, actions);
    }

    /** Whether data files are written sorted by id (else in the order given). */
    private boolean sortRows = true;

    /** Later data files keep the rows in the order given (as Spark's OPTIMIZE may leave them). */
    public DeltaTestTable unsorted() {
        sortRows = false;
        return this;
    }

    /** Writes {@code rows} sorted by id into a data file; returns its add action. */
    private List<io.delta.kernel.data.Row> write(Transaction txn, List<Row> rows) {
        return write(txn, table.getLatestSnapshot(engine), Row.values(rows));
    }

    /**
     * Writes rows of {@code snapshot}'s schema (column name to value; absent columns NULL), sorted
     * by {@code id}, into a data file in the partition of the first row; returns its add action.
     */
    private List<io.delta.kernel.data.Row> write(
            Transaction txn, Snapshot snapshot, List<Map<String, Object>> rows) {
        StructType schema = snapshot.getSchema();
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        if (sortRows) {
            sorted.sort(Comparator.comparingLong(r -> (Long) r.get("id")));
        }
        ColumnVector[] vectors = new ColumnVector[schema.length()];
        for (int c = 0; c < vectors.length; c++) {
            String name = schema.at(c).getName();
            List<Object> values = new ArrayList<>();
            for (Map<String, Object> r : sorted) {
                values.add(r.get(name));
            }
            vectors[c] = DefaultGenericVector.fromList(schema.at(c).getDataType(), values);
        }
        Map<String, io.delta.kernel.expressions.Literal> partition = new HashMap<>();
        for (String column :
                ((io.delta.kernel.internal.SnapshotImpl) snapshot).getPartitionColumnNames()) {
            Object v = sorted.get(0).get(column);
            partition.put(
                    column,
                    v instanceof Long l
                            ? io.delta.kernel.expressions.Literal.ofLong(l)
                            : v instanceof Integer i
                                    ? io.delta.kernel.expressions.Literal.ofInt(i)
                                    : io.delta.kernel.expressions.Literal.ofString((String) v));
        }
        ColumnarBatch batch = new DefaultColumnarBatch(sorted.size(), schema, vectors);
        try {
            return DeltaKernelWrites.appendActions(engine, txn, batch, partition);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public Path dataFile(io.delta.kernel.data.Row addAction) {
        URI path =
                URI.create(
                        new AddFile(addAction.getStruct(SingleAction.ADD_FILE_ORDINAL)).getPath());
        return path.isAbsolute()
                ? Paths.get(path)
                : Paths.get(URI.create(table.getPath(engine) + "/")).resolve(path.getPath());
    }

    @Override
    public String versionLabel(long version) {
        return "delta version " + version;
    }

    @Override
    public long version() {
        return table.getLatestSnapshot(engine).getVersion();
    }
}
