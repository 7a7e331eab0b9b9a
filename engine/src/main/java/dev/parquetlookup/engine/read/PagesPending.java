package dev.parquetlookup.engine.read;

/**
 * Thrown through the synchronous lookup code when an asynchronous lookup needs bytes that are still
 * on their way: the lookup stops, waits for the requests its {@code AsyncLookup} recorded, and
 * replays from the start with those bytes at hand. A control signal, never seen by callers; one
 * shared instance without a stack trace, so signalling costs no allocation.
 */
public final class PagesPending extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public static final PagesPending INSTANCE = new PagesPending();

    private PagesPending() {
        super("bytes pending", null, false, false);
    }
}
