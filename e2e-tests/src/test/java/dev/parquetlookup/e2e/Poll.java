package dev.parquetlookup.e2e;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Waits for a condition of another process (a REST state, a file) with a deadline. There is no push
 * notification from a Flink cluster, so the caller's state is polled at a short interval: 10 ms
 * first, doubling up to 200 ms (most SQL statements finish within tens of milliseconds, jobs and
 * processes take seconds); the deadline only bounds a hung cluster, the condition is what
 * synchronises.
 *
 * <pre>{@code
 * JsonNode job = Poll.until("job finished", Duration.ofMinutes(2),
 *         () -> finishedOrEmpty(jobId));
 * }</pre>
 */
final class Poll {

    private static final long FIRST_INTERVAL_MILLIS = 10;
    private static final long MAX_INTERVAL_MILLIS = 200;

    private Poll() {}

    static <T> T until(String what, Duration timeout, Supplier<Optional<T>> probe)
            throws TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long interval = FIRST_INTERVAL_MILLIS;
        while (true) {
            Optional<T> value = probe.get();
            if (value.isPresent()) {
                return value.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(interval);
                interval = Math.min(2 * interval, MAX_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }
}
