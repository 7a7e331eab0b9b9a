package dev.parquetlookup.s3proxy;

import java.time.Duration;

/**
 * Faults a {@link LatencyProxy} injects, each into exactly 1 in N of the messages it applies to
 * (counted, not drawn: the Nth, 2Nth, ...; 0 = never), for tests and benchmarks of how clients ride
 * out an object store's bad moments:
 *
 * <ul>
 *   <li>{@code holdOneIn}: a ranged GET's response is held a further {@code holdMin} to {@code
 *       holdMax} (drawn with {@code seed}) before its first byte: a tail latency;
 *   <li>{@code resetOneIn}: a ranged GET's response is cut after its head and a few body bytes and
 *       the connection reset;
 *   <li>{@code cutListingOneIn}: a listing's ({@code ?list-type=}) response is cut the same way;
 *   <li>{@code errorOneIn}: a ranged GET is answered {@code 503 SlowDown} by the proxy (the
 *       server's own answer is dropped), the connection kept;
 *   <li>{@code refuseOneIn}: a new connection is reset as soon as it is accepted.
 * </ul>
 *
 * <pre>{@code
 * proxy.setFaults(Faults.none().withHolds(50, Duration.ofSeconds(3), Duration.ofSeconds(8), 42));
 * proxy.faultCounts().held();
 * }</pre>
 */
public record Faults(
        int holdOneIn,
        Duration holdMin,
        Duration holdMax,
        long seed,
        int resetOneIn,
        int cutListingOneIn,
        int errorOneIn,
        int refuseOneIn) {

    public Faults {
        if (holdOneIn < 0
                || resetOneIn < 0
                || cutListingOneIn < 0
                || errorOneIn < 0
                || refuseOneIn < 0) {
            throw new IllegalArgumentException("1 in N needs N >= 0 (0: never)");
        }
        if (holdMin.isNegative() || holdMax.compareTo(holdMin) < 0) {
            throw new IllegalArgumentException(
                    "holds need 0 <= min (" + holdMin + ") <= max (" + holdMax + ")");
        }
    }

    /** No fault. */
    public static Faults none() {
        return new Faults(0, Duration.ZERO, Duration.ZERO, 0, 0, 0, 0, 0);
    }

    /** These faults with 1 in {@code n} ranged GETs held {@code min} to {@code max} more. */
    public Faults withHolds(int n, Duration min, Duration max, long seed) {
        return new Faults(n, min, max, seed, resetOneIn, cutListingOneIn, errorOneIn, refuseOneIn);
    }

    /** These faults with 1 in {@code n} ranged GETs' responses reset mid-body. */
    public Faults withResets(int n) {
        return new Faults(
                holdOneIn, holdMin, holdMax, seed, n, cutListingOneIn, errorOneIn, refuseOneIn);
    }

    /** These faults with 1 in {@code n} listings' responses reset mid-body. */
    public Faults withCutListings(int n) {
        return new Faults(
                holdOneIn, holdMin, holdMax, seed, resetOneIn, n, errorOneIn, refuseOneIn);
    }

    /** These faults with 1 in {@code n} ranged GETs answered 503 SlowDown. */
    public Faults withErrors(int n) {
        return new Faults(
                holdOneIn, holdMin, holdMax, seed, resetOneIn, cutListingOneIn, n, refuseOneIn);
    }

    /** These faults with 1 in {@code n} new connections reset when accepted. */
    public Faults withRefusals(int n) {
        return new Faults(
                holdOneIn, holdMin, holdMax, seed, resetOneIn, cutListingOneIn, errorOneIn, n);
    }

    /**
     * What was injected since the faults were set.
     *
     * @param held responses held
     * @param resets ranged GETs' responses reset mid-body
     * @param cutListings listings' responses reset mid-body
     * @param errors ranged GETs answered 503
     * @param refused connections reset when accepted
     */
    public record Counts(long held, long resets, long cutListings, long errors, long refused) {}
}
