package dev.parquetlookup.writer;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copies a Parquet file into the point-read page layout of {@link WriterOptions} without changing
 * what it holds: the same schema, the same rows in the same order, the same row groups (one output
 * row group per input row group), its footer key-value metadata; only the pages change (at most
 * {@link WriterOptions#pageRows()} rows each, the options' codec and dictionary setting, a
 * ColumnIndex and OffsetIndex, untruncated statistics). Row positions therefore stay valid: a
 * deleted-row bitmap or a key index of the source file applies to the copy.
 *
 * <p>Values are moved column by column, record by record, with their repetition and definition
 * levels, through parquet-java's column readers and writers: no conversion to engine values, so
 * every physical type (INT96 included) and every nested shape is copied as stored. Flat chunks of
 * PLAIN pages are read by {@link PlainFlatColumn} (no buffer per value), and LZ4_RAW pages are
 * compressed by {@link Lz4RawPageCompressor}. Example:
 *
 * <pre>{@code
 * RepagedCopy.Result r = RepagedCopy.copy(
 *         new LocalInputFile(source), ParquetReadOptions.builder().build(),
 *         new LocalOutputFile(target), Set.of("id"), WriterOptions.defaults(), Map.of());
 * }</pre>
 */
public final class RepagedCopy {

    private RepagedCopy() {}

    /** What a copy wrote: rows and row groups. */
    public record Result(long rows, int rowGroups) {}

    /**
     * Copies {@code in} to {@code out} (which must not exist).
     *
     * @param keyColumns top-level columns written UNCOMPRESSED unless {@code options} name a codec
     *     for them (as {@link LookupFileWriter} writes sort-key columns)
     * @param extraMetadata footer key-value entries added to the source's own
     */
    public static Result copy(
            InputFile in,
            ParquetReadOptions readOptions,
            OutputFile out,
            Set<String> keyColumns,
            WriterOptions options,
            Map<String, String> extraMetadata)
            throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(in, readOptions)) {
            FileMetaData meta = reader.getFooter().getFileMetaData();
            MessageType schema = meta.getSchema();
            // Page buffers recycled: a 256-row page's buffers are otherwise allocated anew, zeroed,
            // for every page of every column (measured: half of the copy's time).
            RecyclingAllocator allocator = new RecyclingAllocator();
            ParquetProperties props =
                    ParquetProperties.builder()
                            .withAllocator(allocator)
                            .withPageRowCountLimit(options.pageRows())
                            .withPageSize(options.pageBytes())
                            .withDictionaryEncoding(options.dictionary())
                            .withWriterVersion(options.writerVersion().parquet())
                            .withColumnIndexTruncateLength(options.statisticsTruncateLength())
                            .withStatisticsTruncateLength(options.statisticsTruncateLength())
                            .withPageWriteChecksumEnabled(false)
                            .withBloomFilterEnabled(false)
                            .build();
            Map<String, String> metadata = new HashMap<>(meta.getKeyValueMetaData());
            metadata.putAll(extraMetadata);
            CodecFactory codecs =
                    new CodecFactory(new PlainParquetConfiguration(), options.pageBytes());
            Lz4RawPageCompressor lz4 = new Lz4RawPageCompressor();
            ParquetFileWriter writer =
                    new ParquetFileWriter(
                            out,
                            schema,
                            ParquetFileWriter.Mode.CREATE,
                            options.rowGroupBytes(),
                            0,
                            null,
                            props);
            boolean done = false;
            try {
                writer.start();
                long rows = 0;
                int rowGroup = 0;
                PageReadStore source;
                while ((source = reader.readNextRowGroup()) != null) {
                    rows += source.getRowCount();
                    copyRowGroup(
                            source,
                            reader.getRowGroups().get(rowGroup),
                            schema,
                            meta.getCreatedBy(),
                            writer,
                            props,
                            codecs,
                            lz4,
                            keyColumns,
                            options,
                            rowGroup++);
                }
                writer.end(metadata);
                done = true;
                return new Result(rows, rowGroup);
            } finally {
                codecs.release();
                if (!done) {
                    writer.abort();
                }
            }
        }
    }

    /** Copies one row group, record by record. */
    private static void copyRowGroup(
            PageReadStore source,
            BlockMetaData block,
            MessageType schema,
            String createdBy,
            ParquetFileWriter writer,
            ParquetProperties props,
            CodecFactory codecs,
            Lz4RawPageCompressor lz4,
            Set<String> keyColumns,
            WriterOptions options,
            int ordinal)
            throws IOException {
        ColumnChunkPageWriteStore pageStore =
                ColumnChunkPageWriteStore.builder()
                        .withCompressorProvider(
                                d -> {
                                    CompressionCodecName codec = codec(d, keyColumns, options);
                                    return codec == CompressionCodecName.LZ4_RAW
                                            ? lz4
                                            : codecs.getCompressor(codec);
                                })
                        .withSchema(schema)
                        .withAllocator(props.getAllocator())
                        .withColumnIndexTruncateLength(options.statisticsTruncateLength())
                        .withPageWriteChecksumEnabled(false)
                        .withRowGroupOrdinal(ordinal)
                        .build();
        ColumnWriteStore columns = props.newColumnWriteStore(schema, pageStore);
        ColumnReadStoreImpl readers =
                new ColumnReadStoreImpl(
                        source,
                        new GroupRecordConverter(schema).getRootConverter(),
                        schema,
                        createdBy);
        List<ColumnDescriptor> descriptors = schema.getColumns();
        int n = descriptors.size();
        ColumnReader[] in = new ColumnReader[n];
        PlainFlatColumn[] plain = new PlainFlatColumn[n];
        ColumnWriter[] out = new ColumnWriter[n];
        long[] left = new long[n];
        for (int c = 0; c < n; c++) {
            ColumnDescriptor d = descriptors.get(c);
            ColumnChunkMetaData chunk = block.getColumns().get(c);
            if (chunk.getPath().equals(ColumnPath.get(d.getPath()))
                    && PlainFlatColumn.fits(d, chunk)) {
                plain[c] = new PlainFlatColumn(source.getPageReader(d), d);
            } else {
                in[c] = readers.getColumnReader(d);
                left[c] = in[c].getTotalValueCount();
            }
            out[c] = columns.getColumnWriter(d);
        }
        long rows = source.getRowCount();
        for (long r = 0; r < rows; r++) {
            for (int c = 0; c < n; c++) {
                ColumnWriter w = out[c];
                if (plain[c] != null) {
                    plain[c].copyNext(w); // a flat column: one value per record
                    continue;
                }
                // One record: its first value, then every value that repeats within it.
                ColumnReader reader = in[c];
                int maxDefinition = descriptors.get(c).getMaxDefinitionLevel();
                do {
                    copyValue(reader, w, descriptors.get(c), maxDefinition);
                    left[c]--;
                } while (left[c] > 0 && reader.getCurrentRepetitionLevel() != 0);
            }
            columns.endRecord();
        }
        writer.startBlock(rows);
        columns.flush();
        pageStore.flushToFileWriter(writer);
        writer.endBlock();
        columns.close();
        pageStore.close();
    }

    private static void copyValue(
            ColumnReader reader, ColumnWriter w, ColumnDescriptor d, int maxDefinition) {
        int repetition = reader.getCurrentRepetitionLevel();
        int definition = reader.getCurrentDefinitionLevel();
        if (definition < maxDefinition) {
            w.writeNull(repetition, definition);
        } else {
            switch (d.getPrimitiveType().getPrimitiveTypeName()) {
                case BOOLEAN -> w.write(reader.getBoolean(), repetition, definition);
                case INT32 -> w.write(reader.getInteger(), repetition, definition);
                case INT64 -> w.write(reader.getLong(), repetition, definition);
                case FLOAT -> w.write(reader.getFloat(), repetition, definition);
                case DOUBLE -> w.write(reader.getDouble(), repetition, definition);
                case INT96, BINARY, FIXED_LEN_BYTE_ARRAY ->
                        w.write(reader.getBinary(), repetition, definition);
            }
        }
        reader.consume();
    }

    private static CompressionCodecName codec(
            ColumnDescriptor d, Set<String> keyColumns, WriterOptions options) {
        String top = d.getPath()[0];
        return LookupFileWriter.codec(options.codecFor(top, keyColumns.contains(top)));
    }
}
