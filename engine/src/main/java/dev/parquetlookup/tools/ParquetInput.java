package dev.parquetlookup.tools;

import dev.parquetlookup.engine.codec.EngineCodecs;
import dev.parquetlookup.engine.lookup.TableSchema;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.metadata.FooterReader;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.types.Widening;
import dev.parquetlookup.writer.ColumnSpec;

import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the rows of Parquet files (any writer) in the engine's value representation, with the
 * column specs that write the same types again. Reads through {@link RangeSource}, so any file
 * system Hadoop reaches works.
 */
final class ParquetInput implements PrepareInput {

    private final FileStore store;
    private final List<FileId> files;

    /** Per file, its own types of the selected columns (in one order). */
    private final List<MessageType> projections;

    private final List<ColumnSpec> columns;
    private final long totalRows;

    private ParquetInput(
            FileStore store,
            List<FileId> files,
            List<MessageType> projections,
            List<ColumnSpec> columns,
            long totalRows) {
        this.store = store;
        this.files = files;
        this.projections = projections;
        this.columns = columns;
        this.totalRows = totalRows;
    }

    /**
     * Opens the footers of {@code files}, checks that they share the selected columns, and maps
     * their types.
     *
     * @param select the columns to keep, or empty for all
     * @throws IllegalArgumentException for unsupported columns, naming them
     */
    static ParquetInput open(FileStore store, List<FileId> files, List<String> select)
            throws IOException {
        List<MessageType> projections = new ArrayList<>();
        long rows = 0;
        for (FileId file : files) {
            ParquetMetadata footer;
            try (RangeSource source = store.open(file)) {
                // The engine's footer reader: an empty, truncated, foreign or damaged file gets the
                // same message (and exit code 3) in prepare as in inspect, get and SQL.
                footer = FooterReader.read(source).metadata();
            }
            MessageType schema = footer.getFileMetaData().getSchema();
            rows += footer.getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
            // Later files: the first file's columns they have (what they lack is a difference,
            // reported below with both file names).
            List<String> names = select;
            if (!projections.isEmpty()) {
                names = new ArrayList<>();
                for (Type t : projections.get(0).getFields()) {
                    if (schema.containsField(t.getName())) {
                        names.add(t.getName());
                    }
                }
                if (select.isEmpty()) {
                    for (Type t : schema.getFields()) {
                        if (!projections.get(0).containsField(t.getName())) {
                            names.add(t.getName()); // an extra column: a difference
                        }
                    }
                }
            }
            projections.add(project(schema, names, file));
        }
        if (projections.isEmpty()) {
            throw new IllegalArgumentException("no input files");
        }
        // The engine's own check: nullability, the storage of one logical type and lossless
        // widening (INT32 and INT64, FLOAT and DOUBLE) may differ.
        List<TableSchema.Difference> differences =
                TableSchema.differences(files, projections, List.of());
        if (!differences.isEmpty()) {
            throw new IllegalArgumentException(
                    differences.get(0).description()
                            + ": all input files need the same columns, read as the same types"
                            + " or types one of them holds without loss (choose common ones with"
                            + " --columns)");
        }
        List<ColumnSpec> columns = new ArrayList<>();
        for (Type field : projections.get(0).getFields()) {
            columns.add(written(field.getName(), projections));
        }
        return new ParquetInput(store, files, projections, columns, rows);
    }

    /**
     * The spec a column is written with: the type of the file holding the widest values, nullable
     * when the column is nullable in any file.
     */
    private static ColumnSpec written(String column, List<MessageType> projections) {
        ColumnSpec widest = null;
        boolean nullable = false;
        ValueType common = null;
        for (MessageType p : projections) {
            Type field = p.getType(column);
            ColumnSpec spec = InputTypes.spec(field);
            nullable |= spec.nullable();
            common = common == null ? spec.type() : Widening.common(common, spec.type());
            if (widest == null
                    || !widest.type().equals(Widening.common(widest.type(), spec.type()))) {
                widest = spec;
            }
        }
        if (common != null && common.isNested()) {
            // The parts may widen in different files: the common type, default storage.
            return new ColumnSpec(widest.name(), common, nullable, null, null);
        }
        return new ColumnSpec(
                widest.name(), widest.type(), nullable, widest.decimalStorage(), widest.timeUnit());
    }

    private static MessageType project(MessageType schema, List<String> select, FileId file) {
        if (select.isEmpty()) {
            return schema;
        }
        List<Type> fields = new ArrayList<>();
        for (String name : select) {
            if (!schema.containsField(name)) {
                throw new IllegalArgumentException(
                        "--columns names '"
                                + name
                                + "', which "
                                + file
                                + " does not have; its columns are "
                                + schema.getFields().stream().map(Type::getName).toList());
            }
            fields.add(schema.getType(name));
        }
        return new MessageType(schema.getName(), fields);
    }

    @Override
    public List<ColumnSpec> columns() {
        return columns;
    }

    @Override
    public double fraction(long rows) {
        return totalRows > 0 ? Math.min(1.0, (double) rows / totalRows) : -1;
    }

    @Override
    public void read(RowSink sink) throws IOException {
        for (int f = 0; f < files.size(); f++) {
            FileId file = files.get(f);
            MessageType projection = projections.get(f);
            MessageColumnIO columnIO = new ColumnIOFactory().getColumnIO(projection);
            // Values are read with the file's own types, then widened to the written ones.
            List<Integer> widened = new ArrayList<>();
            boolean[] physical = new boolean[projection.getFieldCount()];
            for (int c = 0; c < physical.length; c++) {
                Type field = projection.getType(c);
                ColumnSpec own = InputTypes.spec(field);
                if (Widening.changesValues(own.type(), columns.get(c).type())) {
                    widened.add(c);
                }
                physical[c] = copiesAsIs(field, own, columns.get(c));
            }
            try (RangeSource source = store.open(file);
                    ParquetFileReader reader =
                            ParquetFileReader.open(
                                    new RangeSourceInputFile(source), EngineCodecs.readOptions())) {
                reader.setRequestedSchema(projection);
                int rowGroup = 0;
                for (PageReadStore pages = nextRowGroup(reader, file, rowGroup);
                        pages != null;
                        pages = nextRowGroup(reader, file, ++rowGroup)) {
                    RecordReader<Object[]> records =
                            columnIO.getRecordReader(pages, new Materializer(projection, physical));
                    for (long i = 0; i < pages.getRowCount(); i++) {
                        Object[] row;
                        try {
                            row = records.read();
                        } catch (ParquetDecodingException e) {
                            throw damaged(file, rowGroup, e);
                        }
                        for (int c : widened) {
                            row[c] = Widening.widen(row[c], columns.get(c).type());
                        }
                        sink.accept(row, physical);
                    }
                }
            }
        }
    }

    /** The next row group's pages; a page that cannot be read names the file and row group. */
    private static PageReadStore nextRowGroup(ParquetFileReader reader, FileId file, int rowGroup)
            throws IOException {
        try {
            return reader.readNextRowGroup();
        } catch (IOException | RuntimeException e) {
            throw damaged(file, rowGroup, e);
        }
    }

    /**
     * A page of the input that parquet-java cannot read (a corrupt page header or body): its own
     * message names no file.
     */
    private static LookupFileException damaged(FileId file, int rowGroup, Exception e) {
        return new LookupFileException(
                "File "
                        + file
                        + ", row group "
                        + rowGroup
                        + ": a page cannot be read ("
                        + e
                        + "). The file is damaged: remove it from IN, or write it again.",
                e);
    }

    /**
     * Whether a column's values as the Parquet reader gives them are the values written for it: the
     * written column has the file's type and storage, and that type is one whose values need
     * neither conversion nor a range check (not narrow or unsigned integers, decimals, times or
     * INT96 timestamps).
     */
    private static boolean copiesAsIs(Type field, ColumnSpec own, ColumnSpec written) {
        if (!field.isPrimitive()
                || field.isRepetition(Type.Repetition.REPEATED)
                || !own.type().equals(written.type())
                || own.decimalStorage() != written.decimalStorage()
                || own.timeUnit() != written.timeUnit()) {
            return false;
        }
        LogicalTypeAnnotation logical = field.getLogicalTypeAnnotation();
        return switch (field.asPrimitiveType().getPrimitiveTypeName()) {
            case BOOLEAN, FLOAT, DOUBLE, BINARY, FIXED_LEN_BYTE_ARRAY ->
                    own.type().kind() != Kind.DECIMAL;
            case INT32 ->
                    logical == null
                            || logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
                            || (logical instanceof IntLogicalTypeAnnotation i
                                    && i.isSigned()
                                    && i.getBitWidth() == 32);
            case INT64 ->
                    logical == null
                            || logical
                                    instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
                            || (logical instanceof IntLogicalTypeAnnotation i && i.isSigned());
            case INT96 -> false;
        };
    }

    /** A row's converters: the file's own types, or physical values kept as they are. */
    private static final class Materializer extends RecordMaterializer<Object[]> {
        private final GroupConverter root;
        private Object[] row;

        Materializer(MessageType projection, boolean[] physical) {
            this.root =
                    new NestedInput.Fields(
                            projection,
                            values -> row = values,
                            (i, sink) ->
                                    physical[i]
                                            ? new NestedInput.Leaf(null, sink)
                                            : NestedInput.content(projection.getType(i), sink));
        }

        @Override
        public Object[] getCurrentRecord() {
            return row;
        }

        @Override
        public GroupConverter getRootConverter() {
            return root;
        }
    }
}
