package dev.parquetlookup.io;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * Lists and opens files. The engine sees only this interface and {@link RangeSource}; the Hadoop
 * implementation ({@link HadoopFileStore}) is the only place that touches a file system.
 */
public interface FileStore extends Closeable {

    /**
     * The Parquet data files at {@code path}: the file itself, or every file below a directory,
     * recursively, skipping hidden ({@code .}) and metadata ({@code _}) names. Sorted by path.
     *
     * @throws java.io.FileNotFoundException if nothing exists at {@code path}
     */
    List<FileId> list(String path) throws IOException;

    /** The current version of one file. */
    FileId stat(String path) throws IOException;

    /**
     * Opens a thread-safe source for one file version. The caller closes it. Opening does not
     * contact the file system for the length: it comes from {@code file}.
     */
    RangeSource open(FileId file) throws IOException;

    @Override
    default void close() throws IOException {}
}
