package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.CauseChain;
import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.TransientReadException;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.concurrent.CompletionException;

/**
 * Owns what an answer to a ranged GET of {@link NettyS3RangeReader} means: 206 (or 200 for a range
 * from offset 0) with at least the range's bytes is the data; 412 (the object no longer has the
 * listed ETag) a {@link FileChangedException}, 404 {@link FileNotFoundException}, 403 {@link
 * AccessDeniedException}, 429 and 500/502/503/504 a {@link TransientReadException}, each naming the
 * file, the byte range and S3's error code; a transport that failed (reset, closed, refused, timed
 * out) a {@link TransientReadException} too.
 */
final class S3RangeAnswers {

    /** The most of an error answer's body kept to find S3's error code and message in. */
    static final int ERROR_BODY_BYTES = 1024;

    private S3RangeAnswers() {}

    /** Whether an answer with {@code status} carries the bytes of {@code range}. */
    static boolean isData(int status, FileRange range) {
        return status == 206 || (status == 200 && range.offset() == 0);
    }

    /**
     * Null if a data answer ({@link #isData}) of {@code received} bytes holds {@code range} (a 206
     * may hold more: the first {@code range.length()} are the range), else the failure.
     */
    static IOException lengthFailure(FileId file, FileRange range, int status, long received) {
        if (received < range.length() || (status == 200 && received != range.length())) {
            return new EOFException(
                    what(file, range) + " returned " + received + " bytes (HTTP " + status + ")");
        }
        return null;
    }

    /**
     * The failure an answer with {@code status} (not data) means; {@code body} holds the first
     * {@code bodyLength} bytes of its body (S3's error XML).
     */
    static IOException statusFailure(
            FileId file, FileRange range, int status, byte[] body, int bodyLength) {
        String what = what(file, range);
        String said = error(body, bodyLength);
        return switch (status) {
            case 404 ->
                    new FileNotFoundException(
                            what + ": the object is gone (HTTP 404 " + said + ")");
            case 403 -> denied(file, what, "HTTP 403 " + said);
            case 412 ->
                    FileChangedException.of(
                            file,
                            range.offset(),
                            range.length(),
                            new IOException(
                                    what
                                            + ": the object no longer has ETag "
                                            + file.etag()
                                            + " (HTTP 412 "
                                            + said
                                            + ")"));
            case 429 ->
                    new TransientReadException(what + ": SlowDown (HTTP 429 " + said + ")", null);
            case 500, 502, 503, 504 ->
                    new TransientReadException(what + " failed: HTTP " + status + " " + said, null);
            default -> new IOException(what + " failed: HTTP " + status + " " + said);
        };
    }

    /** Access denied, with where to look. */
    static AccessDeniedException denied(FileId file, String what, String status) {
        return new AccessDeniedException(
                file.path(),
                null,
                what
                        + ": access denied ("
                        + status
                        + "); check the credentials of fs.s3a.aws.credentials.provider"
                        + " and the bucket policy");
    }

    /**
     * The failure {@code t} of the transport means: an I/O failure (a connection refused, reset or
     * closed, a timeout) is a {@link TransientReadException}, anything else an {@link IOException};
     * both name every cause.
     */
    static IOException transportFailure(FileId file, FileRange range, Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        String message = what(file, range) + " failed: " + CauseChain.describe(t);
        if (t instanceof IOException || t.getClass().getSimpleName().contains("Timeout")) {
            return new TransientReadException(message, t);
        }
        return new IOException(message, t);
    }

    /** "GET of bytes 0..100 of s3a://bucket/key". */
    static String what(FileId file, FileRange range) {
        return "GET of bytes " + range.offset() + ".." + range.end() + " of " + file.path();
    }

    /** S3's error code and message in an error body ("NoSuchKey: The key does not exist"). */
    static String error(byte[] body, int length) {
        String text =
                new String(body, 0, Math.min(length, ERROR_BODY_BYTES), StandardCharsets.UTF_8);
        String code = element(text, "Code");
        String message = element(text, "Message");
        if (code.isEmpty() || message.isEmpty()) {
            return code;
        }
        return code + ": " + message;
    }

    private static String element(String xml, String name) {
        int start = xml.indexOf("<" + name + ">");
        int end = xml.indexOf("</" + name + ">");
        return start >= 0 && end > start ? xml.substring(start + name.length() + 2, end) : "";
    }
}
