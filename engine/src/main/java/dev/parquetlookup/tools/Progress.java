package dev.parquetlookup.tools;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress line on stderr, at most every two seconds, for work that takes long: rows so far, the
 * rate, the share done and the time left when the total is known.
 *
 * <p>Example line: {@code reading: 2,400,000 rows (48%), 1,190,000 rows/s, 2 s, about 2 s left}.
 * The share comes from rows when the row count is known (Parquet input, the writing phase) and from
 * bytes read otherwise (CSV input).
 */
final class Progress {

    private static final long INTERVAL_NANOS = 2_000_000_000L;

    private final PrintWriter err;
    private final LongSupplier clock;
    private final long start;
    private long lastPrint;
    private String phase;
    private long phaseStart;

    Progress(PrintWriter err) {
        this(err, System::nanoTime);
    }

    /** With a clock in nanoseconds, so tests can drive time. */
    Progress(PrintWriter err, LongSupplier clock) {
        this.err = err;
        this.clock = clock;
        this.start = clock.getAsLong();
        this.lastPrint = start;
    }

    /**
     * Prints a line if two seconds passed since the last one.
     *
     * @param done rows done in this phase
     * @param fraction share of the phase done, in [0, 1], or a negative number when unknown
     */
    void update(String phase, long done, double fraction) {
        long now = clock.getAsLong();
        if (!phase.equals(this.phase)) {
            this.phase = phase;
            this.phaseStart = now;
        }
        if (now - lastPrint < INTERVAL_NANOS) {
            return;
        }
        lastPrint = now;
        err.println(line(phase, done, fraction, now - phaseStart, now - start));
        err.flush();
    }

    /** {@link #update(String, long, double)} with the share as {@code done / total}. */
    void updateRows(String phase, long done, long total) {
        update(phase, done, total > 0 ? Math.min(1.0, (double) done / total) : -1);
    }

    /** How long a phase runs before its rate and time left are printed. */
    static final long RATE_NANOS = 1_000_000_000L;

    static String line(String phase, long done, double fraction, long phaseNanos, long totalNanos) {
        double phaseSeconds = phaseNanos / 1e9;
        StringBuilder sb = new StringBuilder();
        sb.append(phase).append(": ").append(Formats.count(done)).append(" rows");
        if (fraction >= 0) {
            sb.append(String.format(Locale.ROOT, " (%.0f%%)", 100 * fraction));
        }
        // A phase younger than a second has no rate yet: no rate and no time left ("about 0 s").
        boolean rated = phaseNanos >= RATE_NANOS && done > 0;
        if (rated) {
            sb.append(", ")
                    .append(Formats.count(Math.round(done / phaseSeconds)))
                    .append(" rows/s");
        }
        sb.append(String.format(Locale.ROOT, ", %.0f s", totalNanos / 1e9));
        if (rated && fraction > 0 && fraction < 1) {
            double left = phaseSeconds * (1 - fraction) / fraction;
            sb.append(String.format(Locale.ROOT, ", about %.0f s left", Math.ceil(left)));
        }
        return sb.toString();
    }

    long elapsedNanos() {
        return clock.getAsLong() - start;
    }
}
