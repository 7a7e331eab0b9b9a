package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

import javax.annotation.Nullable;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * {@link RangeSource} over one Hadoop stream shared by every thread, without a lock of ours: the
 * read path of local files and of remote files whose store has no {@link AsyncRangeReader} (HDFS,
 * ..., or S3A with settings only S3A's own client applies). Local files use positioned reads
 * ({@code readFully(position, ...)}, a {@code pread} on the raw local file system), other file
 * systems use vectored reads, which do not hold the stream's lock.
 *
 * <p>Its {@link IOStatistics} are the stream's (S3A: GET requests, vectored ranges, bytes discarded
 * between coalesced ranges), live while it is open; benchmarks and tests read them with {@code
 * IOStatisticsSupport.retrieveIOStatistics(source)}.
 */
final class HadoopRangeSource implements RangeSource, IOStatisticsSource {

    private final FileId file;
    private final FSDataInputStream in;

    /** Local files: several preads beat the asynchronous channel of vectored reads. */
    private final boolean local;

    /** The store's pool of blocking reads, for asynchronous reads of remote files; else null. */
    @Nullable private final Supplier<Executor> blockingReads;

    HadoopRangeSource(
            FileId file,
            FSDataInputStream in,
            boolean local,
            @Nullable Supplier<Executor> blockingReads) {
        this.file = file;
        this.in = in;
        this.local = local;
        this.blockingReads = blockingReads;
    }

    @Override
    public FileId file() {
        return file;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        if (position + length > file.length()) {
            throw new EOFException(
                    String.format(
                            "read of %d bytes at %d is past the end of %s (%d bytes): the file is"
                                    + " truncated or was rewritten",
                            length, position, file.path(), file.length()));
        }
        if (local) {
            try {
                in.readFully(position, buffer, offset, length);
            } catch (IOException e) {
                throw rangeError(position, length, e);
            }
            return;
        }
        byte[] bytes = readAll(List.of(new FileRange(position, length)))[0];
        System.arraycopy(bytes, 0, buffer, offset, length);
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        if (local) {
            return RangeSource.super.readAll(ranges);
        }
        // Object stores: positioned readFully is synchronized per stream (S3A's classic stream
        // seeks and reads under its lock), so it would serialise every lookup on a file. Vectored
        // reads take no stream lock, run ranges in parallel and coalesce close ones.
        List<org.apache.hadoop.fs.FileRange> hadoopRanges = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            if (range.end() > file.length()) {
                throw new EOFException(
                        "range "
                                + range
                                + " is past the end of "
                                + file.path()
                                + " ("
                                + file.length()
                                + " bytes)");
            }
            hadoopRanges.add(
                    org.apache.hadoop.fs.FileRange.createFileRange(range.offset(), range.length()));
        }
        in.readVectored(hadoopRanges, ByteBuffer::allocate);
        byte[][] result = new byte[ranges.size()][];
        for (int i = 0; i < result.length; i++) {
            org.apache.hadoop.fs.FileRange range = hadoopRanges.get(i);
            try {
                ByteBuffer data = range.getData().get();
                byte[] bytes = new byte[range.getLength()];
                data.get(bytes);
                result[i] = bytes;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted reading " + file.path());
            } catch (ExecutionException e) {
                throw rangeError(range.getOffset(), range.getLength(), e.getCause());
            }
        }
        return result;
    }

    /**
     * Local files: read in the calling thread (a pread is microseconds). Remote file systems read
     * through their streams (HDFS, ..., and S3A where its settings need its own client): the
     * blocking read on the store's bounded pool.
     */
    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        if (local || blockingReads == null) {
            return RangeSource.super.readAllAsync(ranges);
        }
        return BlockingReads.supply(blockingReads.get(), () -> readAll(ranges));
    }

    /** Local files: a positioned read of the raw local file system. */
    @Override
    public boolean readsInline() {
        return local;
    }

    @Override
    public IOStatistics getIOStatistics() {
        return in.getIOStatistics();
    }

    private IOException rangeError(long position, int length, Throwable cause) {
        if (changedUnderTheReader(cause)) {
            return FileChangedException.of(file, position, length, cause);
        }
        return new IOException(
                String.format(
                        "cannot read %d bytes at offset %d of %s: %s",
                        length, position, file.path(), CauseChain.describe(cause)),
                cause);
    }

    /**
     * S3A's {@code RemoteFileChangedException} (by name: {@code hadoop-aws} is optional), which its
     * streams throw for HTTP 412 to an {@code If-Match} GET or a response whose ETag differs from
     * the opened one.
     */
    private static boolean changedUnderTheReader(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getClass().getSimpleName().equals("RemoteFileChangedException")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
