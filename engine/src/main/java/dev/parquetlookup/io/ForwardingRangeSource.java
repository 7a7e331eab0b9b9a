package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link RangeSource} that passes every call to another, fast paths included ({@link #readWith},
 * {@link #readHeld}, {@link #readsInline}, {@link #readAllAsync}); decorators extend it and
 * override what they change, so none silently falls back to an interface default and loses a fast
 * path of the source below it ({@code ForwardingRangeSourceTest} checks that every method of {@link
 * RangeSource} is forwarded here and that every decorator of the engine extends this class).
 *
 * <p>Example: a source that logs every asynchronous read: {@code new ForwardingRangeSource(source)
 * { public CompletableFuture<byte[][]> readAllAsync(List<FileRange> r) { log(r); return
 * super.readAllAsync(r); } }}.
 */
public abstract class ForwardingRangeSource implements RangeSource {

    private final RangeSource delegate;

    protected ForwardingRangeSource(RangeSource delegate) {
        this.delegate = delegate;
    }

    /** The source calls are passed to. */
    protected final RangeSource delegate() {
        return delegate;
    }

    @Override
    public FileId file() {
        return delegate.file();
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        delegate.readFully(position, buffer, offset, length);
    }

    @Override
    public <T> T readWith(long position, int length, RangeReader<T> reader) throws IOException {
        return delegate.readWith(position, length, reader);
    }

    @Override
    public byte[] read(FileRange range) throws IOException {
        return delegate.read(range);
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        return delegate.readAll(ranges);
    }

    @Override
    public boolean readsInline() {
        return delegate.readsInline();
    }

    @Override
    public byte[] readHeld(FileRange range) {
        return delegate.readHeld(range);
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        return delegate.readAllAsync(ranges);
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
