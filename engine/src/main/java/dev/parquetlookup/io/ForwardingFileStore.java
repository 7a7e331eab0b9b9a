package dev.parquetlookup.io;

import java.io.IOException;
import java.util.List;

/**
 * A {@link FileStore} that passes every call to another; subclasses override what they change
 * (retries, listings pinned to a snapshot, counting, fault hooks in tests).
 *
 * <p>Example: a store that logs every open: {@code new ForwardingFileStore(store) { public
 * RangeSource open(FileId f) throws IOException { log(f); return super.open(f); } }}.
 */
public abstract class ForwardingFileStore implements FileStore {

    private final FileStore delegate;

    protected ForwardingFileStore(FileStore delegate) {
        this.delegate = delegate;
    }

    /** The store calls are passed to. */
    protected final FileStore delegate() {
        return delegate;
    }

    @Override
    public List<FileId> list(String path) throws IOException {
        return delegate.list(path);
    }

    @Override
    public FileId stat(String path) throws IOException {
        return delegate.stat(path);
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        return delegate.open(file);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
