package dev.parquetlookup.io;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often and how patiently a transient storage failure is retried: at most {@code maxAttempts}
 * attempts in all, waiting {@code initialBackoff} before the second, twice as long before the
 * third, ..., never longer than {@code maxBackoff}. Each wait is drawn between half and all of that
 * bound ("equal jitter"), so many readers failing at once do not retry in lockstep.
 *
 * <p>The worst case is bounded: with the {@linkplain #defaults() defaults} (4 attempts, 100 ms, 2
 * s) a read gives up after at most 0.1 + 0.2 + 0.4 = 0.7 s of waiting plus the attempts themselves.
 * Example: {@code new RetryPolicy(3, Duration.ofMillis(10), Duration.ofMillis(50))}.
 *
 * @param maxAttempts attempts in all, at least 1 (1 means no retry)
 * @param initialBackoff bound of the first wait
 * @param maxBackoff bound of every wait
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException(
                    "retry attempts must be at least 1 (1 = no retry), got " + maxAttempts);
        }
        if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "retry backoff must satisfy 0 <= initial ("
                            + initialBackoff
                            + ") <= max ("
                            + maxBackoff
                            + ")");
        }
    }

    /** 4 attempts, waits of at most 100 ms, 200 ms, 400 ms (bounded by 2 s). */
    public static RetryPolicy defaults() {
        return new RetryPolicy(4, Duration.ofMillis(100), Duration.ofSeconds(2));
    }

    /** One attempt, no retry. */
    public static RetryPolicy none() {
        return new RetryPolicy(1, Duration.ZERO, Duration.ZERO);
    }

    /**
     * The upper bound of the wait before retry number {@code retry} (1 = the wait after the first
     * failed attempt): {@code min(maxBackoff, initialBackoff * 2^(retry-1))}.
     */
    public long backoffBoundMillis(int retry) {
        long initial = initialBackoff.toMillis();
        long max = maxBackoff.toMillis();
        int shift = Math.min(Math.max(retry - 1, 0), 30);
        long bound = initial << shift;
        return bound < initial || bound > max ? max : bound;
    }

    /** A wait drawn in {@code [bound/2, bound]} for retry number {@code retry}. */
    long backoffMillis(int retry) {
        long bound = backoffBoundMillis(retry);
        long half = bound / 2;
        return half + ThreadLocalRandom.current().nextLong(bound - half + 1);
    }
}
