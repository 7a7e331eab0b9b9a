package dev.parquetlookup.io;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;

/**
 * Decides whether a storage failure is worth retrying: the connection dropped, timed out or was
 * refused, or the service said "busy" (HTTP 500/502/503/504, throttling). A missing file, a denied
 * access, a file changed under the reader or an interrupt is never retried: waiting cannot fix it.
 *
 * <p>A store's client ({@link AsyncRangeReader}) says so itself with a {@link
 * TransientReadException}. For the file systems' own streams the decision looks at the whole cause
 * chain and, because {@code hadoop-aws} and the AWS SDK are optional dependencies, at exception
 * class names rather than classes: S3A reports 503 as {@code AWSServiceThrottledException}, 500 as
 * {@code AWSStatus500Exception}, a refused connection as {@code AWSClientIOException} caused by
 * {@code java.net.ConnectException}, SDK timeouts as {@code ApiCallTimeoutException}.
 *
 * <p>Example: {@code isTransient(new SocketTimeoutException("Read timed out"))} is true, {@code
 * isTransient(new FileNotFoundException("s3a://b/k"))} is false.
 */
public final class TransientFailures {

    private static final Pattern STATUS =
            Pattern.compile("(?i)status code:?\\s*(500|502|503|504)\\b");

    /** Simple-name fragments of exceptions that mean "try again later". */
    private static final String[] TRANSIENT_NAMES = {
        "Timeout", // ApiCallTimeoutException, ApiCallAttemptTimeoutException, ConnectTimeout...
        "Throttl", // AWSServiceThrottledException
        "Status500", // AWSStatus500Exception
        "NoResponse", // AWSNoResponseException, NoHttpResponseException
        "ConnectionClosed", // org.apache.http.ConnectionClosedException
        "Unavailable"
    };

    /** Simple names of exceptions that never heal by waiting. */
    private static final String[] PERMANENT_NAMES = {
        "RemoteFileChangedException", // the object was replaced under the reader
        "AWSBadRequestException",
        "UnknownStoreException", // the bucket does not exist
        "NoAuthWithAWSException",
        "CredentialInitializationException"
    };

    private TransientFailures() {}

    /** Whether retrying the operation that threw {@code failure} may succeed. */
    public static boolean isTransient(Throwable failure) {
        if (Thread.currentThread().isInterrupted()) {
            return false;
        }
        boolean transientCause = false;
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure;
                t != null && seen.put(t, Boolean.TRUE) == null;
                t = t.getCause()) {
            if (isPermanent(t)) {
                return false;
            }
            transientCause |= isTransientOne(t);
        }
        return transientCause;
    }

    private static boolean isPermanent(Throwable t) {
        if (t instanceof FileNotFoundException
                || t instanceof FileChangedException
                || t instanceof NoSuchFileException
                || t instanceof AccessDeniedException) {
            return true;
        }
        // A thread interrupt surfaces as InterruptedIOException; its timeout subclass does not.
        if (t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException)) {
            String name = t.getClass().getSimpleName();
            if (!name.contains("Timeout")) {
                return true;
            }
        }
        String name = t.getClass().getSimpleName();
        for (String permanent : PERMANENT_NAMES) {
            if (name.equals(permanent)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isTransientOne(Throwable t) {
        if (t instanceof TransientReadException // a store's client says so
                || t instanceof SocketException // ConnectException, "Connection reset", broken pipe
                || t instanceof SocketTimeoutException
                || t instanceof EOFException // the connection ended before the range did
                || t instanceof ClosedChannelException // the connection closed under a request
                || t instanceof TimeoutException) {
            return true;
        }
        String name = t.getClass().getSimpleName();
        for (String fragment : TRANSIENT_NAMES) {
            if (name.contains(fragment)) {
                return true;
            }
        }
        String message = t.getMessage();
        return message != null
                && (STATUS.matcher(message).find()
                        || message.contains("Connection reset")
                        // The AWS SDK: a kept-alive connection closed by the other end under a
                        // request (its own advice: "will usually succeed on a retry").
                        || message.contains("connection was closed during the request")
                        || message.contains("SlowDown")
                        || message.contains("Service Unavailable"));
    }
}
