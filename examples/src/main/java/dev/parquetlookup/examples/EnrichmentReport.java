package dev.parquetlookup.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * What an example run measured, split so that each figure means one thing: the time to plan and
 * submit the job (in a fresh JVM mostly Flink's planner, class loading and code generation), the
 * time from submission to the first enriched row (tasks deployed, the table opened, the first
 * lookups), and the throughput over the second half of the orders, when the job is warm.
 *
 * @param orders orders generated
 * @param enriched enriched rows received (one per order in a left join on a unique key)
 * @param withoutCustomer enriched rows whose customer was not found (the customer columns null)
 * @param seconds start of planning to the last row
 * @param submitSeconds start of planning to the job's submission
 * @param firstRowSeconds start of planning to the first row
 * @param secondHalfSeconds the row that completed the first half to the last row
 * @param sample the first rows, as printed
 */
public record EnrichmentReport(
        long orders,
        long enriched,
        long withoutCustomer,
        double seconds,
        double submitSeconds,
        double firstRowSeconds,
        double secondHalfSeconds,
        List<String> sample) {

    /** Enriched rows per second, start of planning to last row. */
    public double eventsPerSecond() {
        return enriched / seconds;
    }

    /**
     * Enriched rows per second over the second half of the rows (start-up and warm-up excluded).
     */
    public double warmEventsPerSecond() {
        long half = enriched - enriched / 2;
        return secondHalfSeconds > 0 && half > 1 ? (half - 1) / secondHalfSeconds : Double.NaN;
    }

    /**
     * Times one run: create it before planning the job, call {@link #submitted} once the job is
     * submitted and {@link #row} for every row received.
     */
    static final class Clock {
        private final long orders;
        private final long start = System.nanoTime();
        private long submitted;
        private long first;
        private long half;
        private long rows;

        Clock(long orders) {
            this.orders = orders;
        }

        void submitted() {
            submitted = System.nanoTime();
        }

        /** Counts a row; true for the first one. */
        boolean row() {
            long now = System.nanoTime();
            rows++;
            if (rows == 1) {
                first = now;
            }
            if (rows == orders / 2 + 1) {
                half = now;
            }
            return rows == 1;
        }

        /** The report of the run, printed to {@code out}. */
        EnrichmentReport finish(long enriched, long misses, List<String> sample, PrintStream out) {
            long end = System.nanoTime();
            long halfStart = half == 0 ? end : half;
            EnrichmentReport report =
                    new EnrichmentReport(
                            orders,
                            enriched,
                            misses,
                            (end - start) / 1e9,
                            (submitted - start) / 1e9,
                            (first - start) / 1e9,
                            (end - halfStart) / 1e9,
                            sample);
            report.print(out);
            return report;
        }
    }

    void print(PrintStream out) {
        out.printf(
                "Enriched %,d orders (%,d without a known customer) in %.1f s:%n",
                enriched, withoutCustomer, seconds);
        out.printf(
                "  planning and submitting the job: %.2f s (in a fresh JVM mostly Flink's planner"
                        + " and code generation)%n",
                submitSeconds);
        out.printf(
                "  time to first enriched row: %.2f s after submission (tasks started, the table's"
                        + " footers and page indexes read, the first lookups)%n",
                firstRowSeconds - submitSeconds);
        out.printf(
                "  throughput: %,.0f events/s over the second half of the orders (warm), %,.0f"
                        + " events/s overall%n",
                warmEventsPerSecond(), eventsPerSecond());
    }
}
