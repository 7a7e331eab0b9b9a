package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;

import org.apache.parquet.column.ColumnDescriptor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * How one opened file gets served through a key index when it turns out not to be sorted by its
 * key: where the JVM's indexes are kept, and how to read its metadata again without the order
 * checks (for a file found unsorted at a lookup, by a key page out of order). The index is on the
 * file's leading stored key column; later key columns are compared in the rows read.
 */
final class FileIndexing {

    /** Reads the file's metadata for serving through an index (nothing checked sorted). */
    @FunctionalInterface
    interface Reopen {
        FileMetadata metadata() throws IOException;
    }

    private final Path directory;
    private final Reopen reopen;

    FileIndexing(Path directory, Reopen reopen) {
        this.directory = directory;
        this.reopen = reopen;
    }

    FileMetadata reopen() throws IOException {
        return reopen.metadata();
    }

    /** Holds the index of {@code meta}'s file (its build starts in the background). */
    KeyIndexes.Handle acquire(FileMetadata meta, RangeSource source, ColumnDescriptor[] leaves) {
        return KeyIndexes.shared()
                .acquire(
                        new KeyIndexes.Request(
                                meta.file(),
                                List.of(meta.sortKey().get(0)),
                                List.of(meta.keyTypes().get(0)),
                                List.of(leaves[meta.keyLeaves()[0]]),
                                meta.rowCount(),
                                directory,
                                source));
    }
}
