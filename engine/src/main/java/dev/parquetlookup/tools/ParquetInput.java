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
import dev.parquetlookup.writer.LookupDatasetWriter;

import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the rows of Parquet files (any writer) in the engine's value representation, with the
 * column specs that write the same types again. Reads through {@link RangeSource}, so any file
 * system Hadoop reaches works.
 */
final class ParquetInput {

    /** Receives rows. */
    @FunctionalInterface
    interface RowSink {
        /**
         * @param physical per column, whether its value is the physical value of the written
         *     column's type ({@link LookupDatasetWriter#write(Object[], boolean[])}); null for none
         */
        void accept(Object[] row, @Nullable boolean[] physical) throws IOException;
    }

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
            try (RangeSource source = store.open(file)) {
                // The engine's check first: an empty, truncated or foreign file gets the same
                // message (and exit code 3) in prepare as in inspect, get and SQL.
                FooterReader.read(source);
            }
            try (RangeSource source = store.open(file);
                    ParquetFileReader reader =
                            ParquetFileReader.open(
                                    new RangeSourceInputFile(source), EngineCodecs.readOptions())) {
                MessageType schema = reader.getFooter().getFileMetaData().getSchema();
                rows += reader.getRecordCount();
                // Later files: the first file's columns they have (what they lack is a
                // difference, reported below with both file names).
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
            } catch (RuntimeException e) {
                if (e instanceof IllegalArgumentException) {
                    throw e;
                }
                throw new IOException(
                        "cannot read the Parquet footer of " + file + ": " + e.getMessage(), e);
            }
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

    List<ColumnSpec> columns() {
        return columns;
    }

    long totalRows() {
        return totalRows;
    }

    /** Reads every row of every file, in file order. */
    void read(RowSink sink) throws IOException {
        for (int f = 0; f < files.size(); f++) {
            FileId file = files.get(f);
            MessageType projection = projections.get(f);
            MessageColumnIO columnIO = new ColumnIOFactory().getColumnIO(projection);
            // Values are read with the file's own types, then widened to the written ones.
            List<ColumnSpec> own = new ArrayList<>();
            List<Integer> widened = new ArrayList<>();
            boolean[] physical = new boolean[projection.getFieldCount()];
            for (Type field : projection.getFields()) {
                ColumnSpec spec = InputTypes.spec(field);
                ColumnSpec written = columns.get(own.size());
                if (Widening.changesValues(spec.type(), written.type())) {
                    widened.add(own.size());
                }
                physical[own.size()] = copiesAsIs(field, spec, written);
                own.add(spec);
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
                            columnIO.getRecordReader(
                                    pages, new Materializer(projection, own, physical));
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

    // -------------------------------------------------------------------------------------------
    // Values

    private static final class Materializer extends RecordMaterializer<Object[]> {
        private final Root root;

        Materializer(MessageType projection, List<ColumnSpec> specs, boolean[] physical) {
            this.root = new Root(projection, specs, physical);
        }

        @Override
        public Object[] getCurrentRecord() {
            return root.row;
        }

        @Override
        public GroupConverter getRootConverter() {
            return root;
        }
    }

    /** One row's converters, with the file's own column specs. */
    private static final class Root extends GroupConverter {
        private final Converter[] converters;
        private Object[] row;

        private final boolean[] repeated;

        Root(MessageType projection, List<ColumnSpec> specs, boolean[] physical) {
            converters = new Converter[specs.size()];
            repeated = new boolean[converters.length];
            for (int i = 0; i < converters.length; i++) {
                int index = i;
                Type field = projection.getType(i);
                repeated[i] = field.isRepetition(Type.Repetition.REPEATED);
                NestedInput.Sink sink = repeated[i] ? v -> addTo(index, v) : v -> row[index] = v;
                if (physical[i]) {
                    converters[i] = new Physical(i);
                } else if (field.isPrimitive() && !repeated[i]) {
                    converters[i] = new NestedInput.Leaf(specs.get(i), sink);
                } else {
                    converters[i] = NestedInput.content(field, sink);
                }
            }
        }

        @SuppressWarnings("unchecked")
        private void addTo(int index, Object v) {
            ((List<Object>) row[index]).add(v);
        }

        @Override
        public Converter getConverter(int fieldIndex) {
            return converters[fieldIndex];
        }

        @Override
        public void start() {
            row = new Object[converters.length];
            for (int i = 0; i < row.length; i++) {
                if (repeated[i]) {
                    row[i] = new ArrayList<>();
                }
            }
        }

        @Override
        public void end() {}

        /** Keeps one column's physical values as they are. */
        private final class Physical extends PrimitiveConverter {
            private final int index;

            Physical(int index) {
                this.index = index;
            }

            @Override
            public void addBoolean(boolean value) {
                row[index] = value;
            }

            @Override
            public void addFloat(float value) {
                row[index] = value;
            }

            @Override
            public void addDouble(double value) {
                row[index] = value;
            }

            @Override
            public void addInt(int value) {
                row[index] = value;
            }

            @Override
            public void addLong(long value) {
                row[index] = value;
            }

            @Override
            public void addBinary(Binary value) {
                row[index] = value;
            }
        }
    }
}
