package dev.parquetlookup.io;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Owns asynchronous ranged reads of one file system, for {@link HadoopRangeSource#readAllAsync}: a
 * client whose requests hold no thread while they are out (S3: {@link S3AsyncRangeReader}).
 */
interface AsyncRangeReader {

    /**
     * Reads {@code ranges} of {@code file}, one request per range. The future completes with one
     * array per range, in order, or fails with an {@link java.io.IOException} naming the file and
     * range (a changed file: one whose cause chain holds S3A's {@code RemoteFileChangedException}).
     */
    CompletableFuture<byte[][]> readAll(FileId file, List<FileRange> ranges);

    /** Releases a client this reader built itself (not one its file system owns). */
    default void close() {}
}
