package dev.parquetlookup.io.fake;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The client of the test-only store {@code fake://}: reads ranges of local files on a thread of its
 * own (so reads are asynchronous, as a network client's), and maps the store's failures as a real
 * store does: a missing file is a {@link FileNotFoundException}, a file whose length or
 * modification time is no longer the listed one a {@link FileChangedException}.
 */
final class FakeRangeReader implements AsyncRangeReader {

    private final AtomicLong rangesRead;
    private final ExecutorService thread =
            Executors.newSingleThreadExecutor(
                    r -> {
                        Thread t = new Thread(r, "fake-store-client");
                        t.setDaemon(true);
                        return t;
                    });

    FakeRangeReader(AtomicLong rangesRead) {
        this.rangesRead = rangesRead;
    }

    @Override
    public CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges) {
        CompletableFuture<byte[][]> result = new CompletableFuture<>();
        thread.execute(
                () -> {
                    try {
                        result.complete(read(file, ranges));
                    } catch (IOException | RuntimeException e) {
                        result.completeExceptionally(e);
                    }
                });
        return result;
    }

    private byte[][] read(FileId file, List<FileRange> ranges) throws IOException {
        File local = new File(URI.create(file.path()).getPath());
        if (!local.isFile()) {
            throw new FileNotFoundException(file.path() + ": the object is gone");
        }
        if (local.length() != file.length() || local.lastModified() != file.modificationTime()) {
            FileRange first = ranges.get(0);
            throw FileChangedException.of(
                    file,
                    first.offset(),
                    first.length(),
                    new IOException(file.path() + " is no longer the listed version"));
        }
        byte[][] result = new byte[ranges.size()][];
        try (RandomAccessFile in = new RandomAccessFile(local, "r")) {
            for (int i = 0; i < result.length; i++) {
                FileRange range = ranges.get(i);
                result[i] = new byte[range.length()];
                in.seek(range.offset());
                in.readFully(result[i]);
                rangesRead.incrementAndGet();
            }
        }
        return result;
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
