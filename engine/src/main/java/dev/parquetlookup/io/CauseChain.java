package dev.parquetlookup.io;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Owns the one-line description of a failure and its causes for error messages: failures are logged
 * by their {@code toString()} (lookup retries, warm-up), so a client's exception whose own message
 * says little (the AWS SDK's {@code SdkClientException} for a connection closed under a request, a
 * Netty channel error) must carry its causes in the message of the exception we throw.
 *
 * <p>Example: {@code describe(new IOException("Unable to execute HTTP request", new
 * ClosedChannelException()))} is {@code "IOException: Unable to execute HTTP request (caused by
 * ClosedChannelException)"}.
 */
public final class CauseChain {

    /** Characters kept of each message: SDK messages add paragraphs of advice. */
    private static final int MESSAGE_CHARS = 200;

    /** Causes named at most. */
    private static final int DEPTH = 5;

    private CauseChain() {}

    /** Each failure in {@code t}'s cause chain as its simple class name and message's start. */
    public static String describe(Throwable t) {
        StringBuilder s = new StringBuilder();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        int depth = 0;
        String previous = null;
        for (; t != null && seen.put(t, Boolean.TRUE) == null && depth < DEPTH; t = t.getCause()) {
            if ((t instanceof CompletionException || t instanceof ExecutionException)
                    && t.getCause() != null) {
                continue;
            }
            if (depth > 0) {
                s.append(depth == 1 ? " (caused by " : "; caused by ");
            }
            s.append(t.getClass().getSimpleName());
            String message = t.getMessage();
            // A cause whose message its wrapper repeated (the SDK's) is named by its class only.
            boolean repeated = message != null && previous != null && previous.contains(message);
            previous = message;
            if (message != null && !message.isBlank() && !repeated) {
                message = message.strip();
                int newline = message.indexOf('\n');
                if (newline > 0) {
                    message = message.substring(0, newline);
                }
                if (message.length() > MESSAGE_CHARS) {
                    message = message.substring(0, MESSAGE_CHARS) + "...";
                }
                s.append(": ").append(message);
            }
            depth++;
        }
        if (depth > 1) {
            s.append(')');
        }
        return s.toString();
    }
}
