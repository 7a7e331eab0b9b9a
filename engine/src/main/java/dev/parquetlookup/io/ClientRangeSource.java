package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * {@link RangeSource} of a remote file whose store has an {@link AsyncRangeReader}: every read is a
 * request of that client, so one table never runs two HTTP stacks. Asynchronous reads (lookups) go
 * to one instance of it ({@code lookups}), synchronous ones ({@link #readFully}, {@link #readAll}:
 * footers, the disk tier's warm-up) to another ({@code bulk}) and wait for its answer, so neither
 * kind queues behind the other's connections and event loops. Each instance is resolved on its
 * first read, so opening a file starts nothing, and kept: a read does not look it up again in the
 * store's map of readers.
 */
final class ClientRangeSource implements RangeSource {

    private final FileId file;
    private final Supplier<AsyncRangeReader> lookups;
    private final Supplier<AsyncRangeReader> bulk;

    ClientRangeSource(
            FileId file, Supplier<AsyncRangeReader> lookups, Supplier<AsyncRangeReader> bulk) {
        this.file = file;
        this.lookups = new Once(lookups);
        this.bulk = new Once(bulk);
    }

    @Override
    public FileId file() {
        return file;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        byte[] bytes = readAll(List.of(new FileRange(position, length)))[0];
        System.arraycopy(bytes, 0, buffer, offset, length);
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        CompletableFuture<byte[][]> read = read(bulk, ranges);
        try {
            return read.get();
        } catch (InterruptedException e) {
            read.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted reading " + file.path());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new IOException("cannot read " + file.path() + ": " + cause, cause);
        }
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        return read(lookups, ranges);
    }

    private CompletableFuture<byte[][]> read(
            Supplier<AsyncRangeReader> reader, List<FileRange> ranges) {
        for (FileRange range : ranges) {
            if (range.end() > file.length()) {
                return CompletableFuture.failedFuture(
                        new EOFException(
                                String.format(
                                        "range %s is past the end of %s (%d bytes): the file is"
                                                + " truncated or was rewritten",
                                        range, file.path(), file.length())));
            }
        }
        try {
            return reader.get().readAll(file, ranges);
        } catch (UncheckedIOException e) { // the client could not be built
            return CompletableFuture.failedFuture(e.getCause());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * The reader of one kind of traffic, resolved on the first read that succeeds and kept (a
     * failure to build it is thrown again to the next read, which tries again).
     */
    private static final class Once implements Supplier<AsyncRangeReader> {
        private final Supplier<AsyncRangeReader> resolve;
        private volatile AsyncRangeReader reader;

        Once(Supplier<AsyncRangeReader> resolve) {
            this.resolve = resolve;
        }

        @Override
        public AsyncRangeReader get() {
            AsyncRangeReader r = reader;
            if (r == null) {
                r = resolve.get();
                reader = r;
            }
            return r;
        }
    }

    /** Nothing to release: the client belongs to the file store. */
    @Override
    public void close() {}
}
