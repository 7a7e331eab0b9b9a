package dev.parquetlookup.tools;

import java.io.PrintWriter;

/** A progress line on stderr, at most every two seconds, for work that takes long. */
final class Progress {

    private static final long INTERVAL_NANOS = 2_000_000_000L;

    private final PrintWriter err;
    private final long start = System.nanoTime();
    private long lastPrint = start;

    Progress(PrintWriter err) {
        this.err = err;
    }

    /** Prints {@code what} if two seconds passed since the last line. */
    void update(String phase, long done, long total) {
        long now = System.nanoTime();
        if (now - lastPrint < INTERVAL_NANOS) {
            return;
        }
        lastPrint = now;
        double seconds = (now - start) / 1e9;
        String percent =
                total > 0
                        ? String.format(java.util.Locale.ROOT, " (%.0f%%)", 100.0 * done / total)
                        : "";
        err.printf(
                java.util.Locale.ROOT,
                "%s: %s rows%s, %.0f s%n",
                phase,
                Formats.count(done),
                percent,
                seconds);
        err.flush();
    }

    long elapsedNanos() {
        return System.nanoTime() - start;
    }
}
