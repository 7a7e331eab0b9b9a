package dev.parquetlookup.io;

import java.io.IOException;

/**
 * A read failed in a way that may heal by waiting: the store was busy (throttling, HTTP 429 or 5xx)
 * or the connection dropped or timed out. An {@link AsyncRangeReader} maps its store's transient
 * answers to it, and {@link TransientFailures} retries it wherever it sits in a cause chain.
 *
 * <p>Example: {@code new TransientReadException("GET of bytes 0..100 of s3a://b/k: SlowDown (HTTP
 * 429)", null)}.
 */
public final class TransientReadException extends IOException {

    public TransientReadException(String message, Throwable cause) {
        super(message, cause);
    }
}
