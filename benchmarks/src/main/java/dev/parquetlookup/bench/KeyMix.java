package dev.parquetlookup.bench;

import java.util.SplittableRandom;

/**
 * The query mixes of the protocol, each a fixed-seed sequence of keys over {@code k = 1..rows}.
 *
 * <ul>
 *   <li>{@code uniform}: uniformly random existing keys.
 *   <li>{@code miss10}: the same with 10% misses. The keys are dense, so a miss lies outside {@code
 *       [1, rows]}: half below the minimum, half above the maximum.
 *   <li>{@code zipf}: Zipf-distributed ranks (s = 1.1) spread over the key space by a fixed
 *       bijection, so the hot keys sit in different pages (the mix for caches).
 * </ul>
 */
public enum KeyMix {
    UNIFORM("uniform"),
    MISS10("miss10"),
    ZIPF("zipf");

    private final String label;

    KeyMix(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** {@code count} keys; {@code salt} separates the warm-up sequence from the measured one. */
    public long[] keys(long rows, int count, long salt) {
        SplittableRandom random = new SplittableRandom(0x5EED_0000L + ordinal() * 7919L + salt);
        long[] keys = new long[count];
        switch (this) {
            case UNIFORM -> {
                for (int i = 0; i < count; i++) {
                    keys[i] = 1 + random.nextLong(rows);
                }
            }
            case MISS10 -> {
                for (int i = 0; i < count; i++) {
                    if (random.nextInt(10) == 0) {
                        keys[i] =
                                random.nextBoolean()
                                        ? -random.nextLong(rows)
                                        : rows + 1 + random.nextLong(rows);
                    } else {
                        keys[i] = 1 + random.nextLong(rows);
                    }
                }
            }
            case ZIPF -> {
                Zipf zipf = new Zipf(rows, 1.1);
                Scramble scramble = new Scramble(rows);
                for (int i = 0; i < count; i++) {
                    keys[i] = scramble.apply(zipf.sample(random) - 1) + 1;
                }
            }
        }
        return keys;
    }

    /**
     * Zipf sampling by rejection-inversion (Hörmann and Derflinger, 1996): O(1) per sample with no
     * table, so it works for 100M ranks.
     */
    static final class Zipf {
        private final long n;
        private final double s;
        private final double hIntegralX1;
        private final double hIntegralN;
        private final double threshold;

        Zipf(long n, double s) {
            this.n = n;
            this.s = s;
            this.hIntegralX1 = hIntegral(1.5) - 1.0;
            this.hIntegralN = hIntegral(n + 0.5);
            this.threshold = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
        }

        /** A rank in {@code [1, n]}; rank 1 is the most frequent. */
        long sample(SplittableRandom random) {
            while (true) {
                double u = hIntegralN + random.nextDouble() * (hIntegralX1 - hIntegralN);
                double x = hIntegralInverse(u);
                long k = (long) (x + 0.5);
                if (k < 1) {
                    k = 1;
                } else if (k > n) {
                    k = n;
                }
                if (k - x <= threshold || u >= hIntegral(k + 0.5) - h(k)) {
                    return k;
                }
            }
        }

        private double h(double x) {
            return Math.exp(-s * Math.log(x));
        }

        private double hIntegral(double x) {
            double logX = Math.log(x);
            return helper2((1.0 - s) * logX) * logX;
        }

        private double hIntegralInverse(double x) {
            double t = x * (1.0 - s);
            if (t < -1.0) {
                t = -1.0;
            }
            return Math.exp(helper1(t) * x);
        }

        /** log(1 + x) / x, accurate near 0. */
        private static double helper1(double x) {
            return Math.abs(x) > 1e-8
                    ? Math.log1p(x) / x
                    : 1.0 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
        }

        /** (exp(x) - 1) / x, accurate near 0. */
        private static double helper2(double x) {
            return Math.abs(x) > 1e-8
                    ? Math.expm1(x) / x
                    : 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3) * (1.0 + 0.25 * x));
        }
    }
}
