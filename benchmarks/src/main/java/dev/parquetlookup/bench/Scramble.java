package dev.parquetlookup.bench;

/**
 * A fixed bijection of {@code [0, n)}: {@code i -> i * a mod n} with {@code a} coprime to {@code
 * n}. Used to write unsorted files and to spread Zipf ranks over the key space, so hot keys are not
 * all in one page.
 */
final class Scramble {

    private final long n;
    private final long a;

    Scramble(long n) {
        if (n <= 0 || n > 3_000_000_000L) {
            throw new IllegalArgumentException("scramble domain out of range: " + n);
        }
        this.n = n;
        long candidate = (long) (n * 0.6180339887498949) | 1;
        while (gcd(candidate, n) != 1) {
            candidate += 2;
        }
        this.a = candidate % n == 0 ? 1 : candidate % n;
    }

    long apply(long i) {
        // i < n <= 3e9 and a < n, so i * a < 9e18 fits in a long.
        return (i * a) % n;
    }

    private static long gcd(long x, long y) {
        while (y != 0) {
            long t = x % y;
            x = y;
            y = t;
        }
        return x;
    }
}
