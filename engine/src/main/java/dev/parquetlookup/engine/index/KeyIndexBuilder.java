package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.codec.EngineCodecs;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.DummyRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Builds one key index file: reads only the key column(s) of a data file, once, through
 * parquet-java's column readers (pages decompressed by the engine's codecs, {@link EngineCodecs}),
 * codes each row's key ({@link KeyCodes}; rows with a NULL key part are left out: a NULL key
 * matches nothing), sorts the codes in bounded memory ({@link CodeSorter}) and writes {@link
 * KeyIndex}'s layout to a temporary file renamed into place. Stateless; runs on a builder thread.
 *
 * <p>The engine reads the rows through its own page decoder and checks each row's key against its
 * code: two independent decoders must agree before a row is served.
 */
final class KeyIndexBuilder {

    /** Entries sorted in memory at once (about 32 MiB); more are spilled in sorted runs. */
    static final int CHUNK = 1 << 20;

    private KeyIndexBuilder() {}

    /** What to index: the key leaves of a file read through {@code source}. */
    record Input(
            RangeSource source,
            IndexHeader header,
            List<ColumnDescriptor> keyLeaves,
            List<KeyType> keyTypes) {}

    /**
     * Writes the index of {@code input} to {@code target} (replacing what is there), sorting in
     * chunks of {@code chunk} entries spilled next to it.
     *
     * @return the number of entries (rows with a non-NULL key)
     */
    static long build(Input input, Path target, int chunk) throws IOException {
        Path directory = target.getParent();
        Path tmp = Files.createTempFile(directory, "building-", ".tmp");
        try (CodeSorter sorter = new CodeSorter(chunk, directory)) {
            long rows = readKeys(input, sorter);
            if (rows != input.header().rowCount()) {
                throw new IOException(
                        "read "
                                + rows
                                + " rows of "
                                + input.header().path()
                                + ", its footer says "
                                + input.header().rowCount());
            }
            try (KeyIndexWriter writer = new KeyIndexWriter(tmp, input.header(), sorter.size())) {
                sorter.emit(writer::add);
                writer.finish();
            }
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return sorter.size();
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Feeds every non-NULL key to {@code sorter}; returns the rows read. */
    private static long readKeys(Input input, CodeSorter sorter) throws IOException {
        List<KeyType> types = input.keyTypes();
        boolean exact = KeyCodes.exact(types);
        try (ParquetFileReader reader =
                new ParquetFileReader(
                        new RangeSourceInputFile(input.source()), EngineCodecs.readOptions())) {
            reader.setRequestedSchema(input.keyLeaves());
            MessageType schema = reader.getFooter().getFileMetaData().getSchema();
            String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
            List<BlockMetaData> blocks = reader.getRowGroups();
            int n = input.keyLeaves().size();
            ColumnReader[] columns = new ColumnReader[n];
            int[] maxDefinition = new int[n];
            Object[] key = new Object[n];
            long base = 0;
            for (int b = 0; b < blocks.size(); b++) {
                long rows = blocks.get(b).getRowCount();
                if (rows == 0) {
                    continue;
                }
                PageReadStore pages = reader.readRowGroup(b);
                ColumnReadStoreImpl store =
                        new ColumnReadStoreImpl(
                                pages,
                                new DummyRecordConverter(schema).getRootConverter(),
                                schema,
                                createdBy);
                for (int k = 0; k < n; k++) {
                    columns[k] = store.getColumnReader(input.keyLeaves().get(k));
                    maxDefinition[k] = input.keyLeaves().get(k).getMaxDefinitionLevel();
                }
                if (exact) {
                    readLongs(columns[0], maxDefinition[0], types.get(0), rows, base, sorter);
                } else {
                    for (long r = 0; r < rows; r++) {
                        boolean isNull = false;
                        for (int k = 0; k < n; k++) {
                            ColumnReader column = columns[k];
                            if (column.getCurrentDefinitionLevel() == maxDefinition[k]) {
                                key[k] = KeyCodes.comparable(types.get(k), column);
                            } else {
                                isNull = true;
                            }
                            column.consume();
                        }
                        if (!isNull) {
                            sorter.add(KeyCodes.code(types, key), base + r);
                        }
                    }
                }
                base += rows;
            }
            return base;
        }
    }

    /** The fast path of one integer key: its values are the codes, read without boxing. */
    private static void readLongs(
            ColumnReader column,
            int maxDefinition,
            KeyType type,
            long rows,
            long base,
            CodeSorter sorter)
            throws IOException {
        boolean int32 = type.type().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
        for (long r = 0; r < rows; r++) {
            if (column.getCurrentDefinitionLevel() == maxDefinition) {
                sorter.add(int32 ? column.getInteger() : column.getLong(), base + r);
            }
            column.consume();
        }
    }
}
