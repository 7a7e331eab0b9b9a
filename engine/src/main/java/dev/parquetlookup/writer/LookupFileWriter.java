package dev.parquetlookup.writer;

import dev.parquetlookup.io.ParquetOutputs;
import dev.parquetlookup.metadata.MetadataReader;

import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one Parquet file laid out for point reads: rows sorted by a key, small pages, a page
 * index, untruncated key statistics and the sort key declared in the footer (see {@link
 * WriterOptions} for the defaults).
 *
 * <p>Rows are {@code Object[]} in the engine's value representation ({@link
 * dev.parquetlookup.types.ValueType}), one value per column in the order of the column list. By
 * default the rows must already be sorted by the sort key (duplicates allowed); otherwise {@link
 * #write} fails naming the row and the two keys out of order. With {@link
 * WriterOptions.Builder#sortInput(boolean)} the writer sorts them itself.
 *
 * <p>The sort key is recorded twice: in every row group's {@code sorting_columns} (ascending, nulls
 * first) and in the footer key-value metadata under {@value #SORT_KEY_METADATA} as comma-separated
 * column names. Example:
 *
 * <pre>{@code
 * List<ColumnSpec> columns = List.of(
 *         ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
 *         ColumnSpec.optional("name", ValueType.of(Kind.STRING)));
 * try (LookupFileWriter writer = LookupFileWriter.open(
 *         "/data/customers/part-0.parquet", columns, List.of("id"), WriterOptions.defaults())) {
 *     writer.write(new Object[] {1L, "Ada"});
 *     writer.write(new Object[] {2L, null});
 * }
 * }</pre>
 *
 * <p>Not thread-safe. If writing fails, {@link #close()} deletes the partial file.
 */
public final class LookupFileWriter implements Closeable {

    /** Footer key-value metadata key holding the sort key, e.g. {@code "id"} or {@code "a,b"}. */
    public static final String SORT_KEY_METADATA = MetadataReader.SORT_KEY_METADATA;

    private static final Logger LOG = LoggerFactory.getLogger(LookupFileWriter.class);

    private final RowLayout layout;
    private final WriterOptions options;
    private final ParquetOutputs.Target target;
    private final FooterRewritingOutputFile output;
    private final ParquetWriter<Object[]> writer;
    private final ExternalSorter sorter;

    private Object[] previous;
    private long rowsGiven;
    private long rowsWritten;
    private boolean failed;
    private boolean closed;

    private LookupFileWriter(
            RowLayout layout,
            WriterOptions options,
            ParquetOutputs.Target target,
            FooterRewritingOutputFile output,
            ParquetWriter<Object[]> writer) {
        this.layout = layout;
        this.options = options;
        this.target = target;
        this.output = output;
        this.writer = writer;
        this.sorter = options.sortInput() ? new ExternalSorter(layout, options) : null;
    }

    /**
     * Creates the file at {@code path} (a local path or any Hadoop URI) and returns a writer for
     * it.
     *
     * @param columns the columns, in file order
     * @param sortKey the columns the rows are sorted by, most significant first
     * @throws IllegalArgumentException if the columns or sort key are invalid
     * @throws IOException if the file exists (and {@code overwrite} is off) or cannot be created
     */
    public static LookupFileWriter open(
            String path, List<ColumnSpec> columns, List<String> sortKey, WriterOptions options)
            throws IOException {
        return open(path, columns, sortKey, options, true);
    }

    /**
     * {@link #open}, with parquet-java's page buffers recycled ({@link RecyclingAllocator}) or not
     * (for tests comparing the two).
     */
    static LookupFileWriter open(
            String path,
            List<ColumnSpec> columns,
            List<String> sortKey,
            WriterOptions options,
            boolean recycleBuffers)
            throws IOException {
        RowLayout layout = new RowLayout(columns, sortKey);
        for (String name : options.byteStreamSplitColumns()) {
            requireColumn(layout, name, "byteStreamSplit");
        }
        for (String name : options.dictionaryColumns().keySet()) {
            requireColumn(layout, name, "dictionary");
        }
        for (String name : options.columnCodecs().keySet()) {
            requireColumn(layout, name, "codec");
        }
        ParquetOutputs.Target target = ParquetOutputs.create(path, options.hadoopOptions());
        try {
            if (!options.overwrite() && target.exists()) {
                throw new IOException(
                        target.path()
                                + " already exists: remove it, choose another path, or set"
                                + " WriterOptions.builder().overwrite(true)");
            }
            List<SortingColumn> sorting = new ArrayList<>();
            MessageType schema = layout.schema();
            for (String key : sortKey) {
                // The index of the key's column chunk: nested columns before it have several.
                int leaf =
                        schema.getColumns()
                                .indexOf(schema.getColumnDescription(new String[] {key}));
                sorting.add(new SortingColumn(leaf, false, true));
            }
            FooterRewritingOutputFile output =
                    new FooterRewritingOutputFile(
                            target.outputFile(), sorting, options.pageIndex());
            Map<String, String> metadata = new LinkedHashMap<>(options.extraMetadata());
            metadata.put(SORT_KEY_METADATA, String.join(",", sortKey));
            ParquetWriter.Builder<Object[], ?> builder =
                    ParquetOutputs.writerBuilder(
                                    output, new RowWriteSupport(layout.schema(), metadata))
                            .withWriteMode(
                                    options.overwrite()
                                            ? ParquetFileWriter.Mode.OVERWRITE
                                            : ParquetFileWriter.Mode.CREATE)
                            .withCompressionCodec(codec(options.codec()))
                            .withRowGroupRowCountLimit(options.rowGroupRows())
                            .withRowGroupSize(options.rowGroupBytes())
                            .withPageRowCountLimit(options.pageRows())
                            .withPageSize(options.pageBytes())
                            .withDictionaryEncoding(options.dictionary())
                            .withWriterVersion(options.writerVersion().parquet())
                            .withBloomFilterEnabled(false)
                            .withColumnIndexTruncateLength(options.statisticsTruncateLength())
                            .withStatisticsTruncateLength(options.statisticsTruncateLength())
                            .withMaxPaddingSize(0)
                            .withValidation(false);
            if (recycleBuffers) {
                builder.withAllocator(new RecyclingAllocator());
            }
            options.dictionaryColumns().forEach(builder::withDictionaryEncoding);
            for (ColumnSpec column : layout.columns()) {
                WriterOptions.Codec codec =
                        options.codecFor(column.name(), sortKey.contains(column.name()));
                if (codec != options.codec()) {
                    builder.withCompressionCodec(column.name(), codec(codec));
                }
            }
            for (String name : options.byteStreamSplitColumns()) {
                builder.withByteStreamSplitEncoding(name, true);
            }
            ParquetWriter<Object[]> writer = builder.build();
            LOG.debug("Writing {} sorted by {}", target.path(), sortKey);
            return new LookupFileWriter(layout, options, target, output, writer);
        } catch (IOException | RuntimeException e) {
            target.close();
            throw e;
        }
    }

    private static void requireColumn(RowLayout layout, String name, String option) {
        if (layout.columns().stream().noneMatch(c -> c.name().equals(name))) {
            throw new IllegalArgumentException(
                    "option "
                            + option
                            + " names column '"
                            + name
                            + "', which is not one of the columns "
                            + layout.columns().stream().map(ColumnSpec::name).toList());
        }
    }

    /** parquet-java's name of a codec: the same name. */
    static CompressionCodecName codec(WriterOptions.Codec codec) {
        return CompressionCodecName.valueOf(codec.name());
    }

    /**
     * Writes one row (or hands it to the sort when sorting is on).
     *
     * @throws IllegalArgumentException if a value does not fit its column, or the row's key is
     *     smaller than the previous row's and sorting is off; the writer stays usable after a bad
     *     value, but not after unsorted input
     */
    public void write(Object[] row) throws IOException {
        if (closed) {
            throw new IllegalStateException("writer of " + target.path() + " is closed");
        }
        if (failed) {
            throw new IllegalStateException(
                    "writer of " + target.path() + " failed earlier; close it (deletes the file)");
        }
        long rowNumber = rowsGiven + 1;
        Object[] prepared = layout.prepare(row, null, rowNumber, target.path());
        rowsGiven++;
        if (sorter != null) {
            sorter.add(prepared);
            return;
        }
        writePrepared(prepared, rowNumber);
    }

    private void writePrepared(Object[] prepared, long rowNumber) throws IOException {
        if (previous != null && layout.compareKeys(previous, prepared) > 0) {
            failed = true;
            throw new IllegalArgumentException(
                    layout.unsortedMessage(target.path(), rowNumber, prepared, previous));
        }
        try {
            writer.write(prepared);
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e;
        }
        previous = prepared;
        rowsWritten++;
    }

    /** Writes a row already converted by {@link RowLayout#prepare} (for the dataset writer). */
    void writePreparedRow(Object[] prepared) throws IOException {
        if (closed || failed) {
            throw new IllegalStateException("writer of " + target.path() + " is closed or failed");
        }
        rowsGiven++;
        writePrepared(prepared, rowsGiven);
    }

    /** Marks the file as failed: {@link #close()} then deletes it instead of finishing it. */
    void markFailed() {
        failed = true;
    }

    /** Rows given to {@link #write} so far. */
    public long rowCount() {
        return rowsGiven;
    }

    /**
     * Bytes written to the file plus bytes buffered for the current row group: an estimate of the
     * file size so far (with sorting on, only after {@link #close}).
     */
    public long dataSize() {
        return writer.getDataSize();
    }

    /** The fully qualified path written. */
    public String path() {
        return target.path();
    }

    /**
     * Finishes the file: sorts and writes the buffered rows when sorting is on, then writes the
     * last row group, the page index and the footer. After a failure, deletes the partial file
     * instead.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!failed && sorter != null) {
                try {
                    sorter.finishInto(this::writePrepared);
                } catch (IOException | RuntimeException e) {
                    failed = true;
                    throw e;
                }
            }
            if (failed) {
                abort();
                return;
            }
            output.beginTail();
            try {
                writer.close();
            } catch (IOException | RuntimeException e) {
                failed = true;
                abort();
                throw e;
            }
            LOG.debug("Wrote {} rows to {}", rowsWritten, target.path());
        } finally {
            if (sorter != null) {
                sorter.close();
            }
            target.close();
        }
    }

    private void abort() throws IOException {
        output.discard();
        try {
            writer.close();
        } catch (IOException | RuntimeException e) {
            LOG.debug("Ignoring error while abandoning {}", target.path(), e);
        }
        target.delete();
    }
}
