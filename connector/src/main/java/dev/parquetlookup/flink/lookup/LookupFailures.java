package dev.parquetlookup.flink.lookup;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletionException;

/**
 * How a failed lookup is told and retried: the messages that name the table, its path and what to
 * do, the backoff between attempts (100 ms, doubling, at most 6.4 s), and the JVM's report of a
 * memory-mapped page lost under a reader.
 */
final class LookupFailures {

    /** First retry after this long, the next after twice as long, ... */
    private static final long RETRY_BACKOFF_MILLIS = 100;

    private final String tableName;
    private final String path;

    LookupFailures(String tableName, String path) {
        this.tableName = tableName;
        this.path = path;
    }

    /** The error of a lookup whose last attempt ({@code attempt}, from 0) failed with {@code e}. */
    IOException failedAfter(int attempt, Throwable e) {
        return new IOException(
                String.format(
                        "Lookup in table '%s' (%s) failed after %d attempt%s: %s",
                        tableName, path, attempt + 1, attempt == 0 ? "" : "s", e.getMessage()),
                e);
    }

    /**
     * The error of a lookup that read a memory-mapped page the file no longer has (truncated or
     * rewritten in place, an NFS file dropped): the JVM raises an {@link InternalError} in the
     * reading thread, which Flink would treat as fatal to the TaskManager. It is a failed read that
     * a retry cannot fix; the restart opens the files again.
     */
    IOException lostMappedPage(InternalError e) {
        return new IOException(
                String.format(
                        "Lookup in table '%s' (%s) failed: a memory-mapped file changed in"
                                + " place while it was read (%s). Publish files by rename"
                                + " or in new directories, or set 'local-files.mmap' ="
                                + " 'false'.",
                        tableName, path, e.getMessage()),
                e);
    }

    /** The JVM's report of a fault in a memory-mapped buffer (SIGBUS). */
    static boolean isLostMappedPage(InternalError e) {
        String message = e.getMessage();
        return message != null && message.contains("unsafe memory access");
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** The wait before attempt {@code attempt + 1}. */
    static long backoffMillis(int attempt) {
        return RETRY_BACKOFF_MILLIS << Math.min(attempt, 6);
    }

    /** Waits before a synchronous retry; an interrupt (the function closing) ends the lookup. */
    static void backoff(int attempt) throws InterruptedIOException {
        try {
            Thread.sleep(backoffMillis(attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting to retry a lookup");
        }
    }
}
