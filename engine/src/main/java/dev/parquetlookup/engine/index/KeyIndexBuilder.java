package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.codec.EngineCodecs;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * Builds one key index file: reads only the key column(s) of a data file, once, page by page
 * through parquet-java's page reader and value decoders ({@link KeyColumnReader}; pages
 * decompressed by the engine's codecs, {@link EngineCodecs}), codes each row's key in batches of
 * rows ({@link KeyCodes}; rows with a NULL key part are left out: a NULL key matches nothing),
 * sorts the codes in bounded memory ({@link CodeSorter}) and writes {@link KeyIndex}'s layout to a
 * temporary file renamed into place. Stateless; runs on a builder thread.
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

    /** Rows coded at once, column by column. */
    private static final int BATCH = 4096;

    /** Feeds every non-NULL key to {@code sorter}; returns the rows read. */
    private static long readKeys(Input input, CodeSorter sorter) throws IOException {
        List<KeyType> types = input.keyTypes();
        boolean exact = KeyCodes.exact(types);
        int n = input.keyLeaves().size();
        boolean[] integer = new boolean[n];
        for (int k = 0; k < n; k++) {
            integer[k] = types.get(k).kind() == KeyType.Kind.LONG;
        }
        long[][] parts = new long[n][BATCH];
        boolean[][] present = new boolean[n][BATCH];
        try (ParquetFileReader reader =
                new ParquetFileReader(
                        new RangeSourceInputFile(input.source()), EngineCodecs.readOptions())) {
            reader.setRequestedSchema(input.keyLeaves());
            List<BlockMetaData> blocks = reader.getRowGroups();
            KeyColumnReader[] columns = new KeyColumnReader[n];
            long base = 0;
            for (int b = 0; b < blocks.size(); b++) {
                long rows = blocks.get(b).getRowCount();
                if (rows == 0) {
                    continue;
                }
                PageReadStore pages = reader.readRowGroup(b);
                for (int k = 0; k < n; k++) {
                    ColumnDescriptor leaf = input.keyLeaves().get(k);
                    columns[k] =
                            new KeyColumnReader(
                                    pages.getPageReader(leaf), leaf, types.get(k), rows);
                }
                for (long at = 0; at < rows; at += BATCH) {
                    int batch = (int) Math.min(BATCH, rows - at);
                    for (int k = 0; k < n; k++) {
                        columns[k].read(parts[k], present[k], batch);
                    }
                    if (exact) {
                        for (int i = 0; i < batch; i++) {
                            if (present[0][i]) {
                                sorter.add(parts[0][i], base + at + i);
                            }
                        }
                        continue;
                    }
                    rows:
                    for (int i = 0; i < batch; i++) {
                        long h = KeyCodes.start(n);
                        for (int k = 0; k < n; k++) {
                            if (!present[k][i]) {
                                continue rows;
                            }
                            long part = parts[k][i];
                            h = KeyCodes.step(h, integer[k] ? KeyCodes.longPart(part) : part);
                        }
                        sorter.add(h, base + at + i);
                    }
                }
                base += rows;
            }
            return base;
        }
    }
}
