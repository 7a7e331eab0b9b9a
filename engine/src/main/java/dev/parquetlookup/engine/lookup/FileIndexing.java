package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * How one opened file gets key indexes: where the JVM's indexes are kept, whether a file found not
 * sorted by its key is served through one (and how to read its metadata again without the order
 * checks, for a file found unsorted at a lookup, by a key page out of order), and the indexes of
 * secondary keys (lookups on columns that are not a prefix of the sort key). The index of an
 * unsorted file is on its leading stored key column, later key columns compared in the rows read; a
 * secondary key's index is on all its stored columns.
 */
final class FileIndexing {

    /** Reads the file's metadata for serving through an index (nothing checked sorted). */
    @FunctionalInterface
    interface Reopen {
        FileMetadata metadata() throws IOException;
    }

    private final Path directory;
    private final Reopen reopen;
    private final boolean indexUnsorted;

    /**
     * @param indexUnsorted whether a file not sorted by its key is served through an index ({@code
     *     'unsorted-files' = 'index'}) rather than refused
     */
    FileIndexing(Path directory, Reopen reopen, boolean indexUnsorted) {
        this.directory = directory;
        this.reopen = reopen;
        this.indexUnsorted = indexUnsorted;
    }

    /** Secondary-key indexes only, in {@code directory}: unsorted files are refused. */
    static FileIndexing secondaryOnly(Path directory) {
        return new FileIndexing(
                directory,
                () -> {
                    throw new IllegalStateException("unsorted files are refused");
                },
                false);
    }

    boolean indexUnsorted() {
        return indexUnsorted;
    }

    FileMetadata reopen() throws IOException {
        return reopen.metadata();
    }

    /** Holds the index of {@code meta}'s file (its build starts in the background). */
    KeyIndexes.Handle acquire(FileMetadata meta, RangeSource source, ColumnDescriptor[] leaves) {
        return acquire(
                meta.file(),
                List.of(meta.sortKey().get(0)),
                List.of(meta.keyTypes().get(0)),
                List.of(leaves[meta.keyLeaves()[0]]),
                meta.rowCount(),
                source);
    }

    /**
     * Holds the index of {@code file} on the stored columns {@code physicalColumns} (its build
     * starts in the background unless held, built or building already).
     */
    KeyIndexes.Handle acquire(
            FileId file,
            List<String> physicalColumns,
            List<KeyType> types,
            List<ColumnDescriptor> keyLeaves,
            long rowCount,
            RangeSource source) {
        return KeyIndexes.shared()
                .acquire(
                        new KeyIndexes.Request(
                                file,
                                physicalColumns,
                                types,
                                keyLeaves,
                                rowCount,
                                directory,
                                source));
    }
}
