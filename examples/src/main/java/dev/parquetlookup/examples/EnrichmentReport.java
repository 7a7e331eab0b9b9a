package dev.parquetlookup.examples;

import java.io.PrintStream;
import java.util.List;

/**
 * What an example run measured: events in and out, time to the first enriched row and the
 * throughput, both from job submission on the embedded cluster (start-up included).
 *
 * @param orders orders generated
 * @param enriched enriched rows received (one per order in a left join on a unique key)
 * @param withoutCustomer enriched rows whose customer was not found (the customer columns null)
 * @param seconds submission to the last row
 * @param firstRowSeconds submission to the first row
 * @param sample the first rows, as printed
 */
public record EnrichmentReport(
        long orders,
        long enriched,
        long withoutCustomer,
        double seconds,
        double firstRowSeconds,
        List<String> sample) {

    /** Enriched rows per second, submission to last row. */
    public double eventsPerSecond() {
        return enriched / seconds;
    }

    /** Enriched rows per second after the first one (start-up excluded). */
    public double steadyEventsPerSecond() {
        double span = seconds - firstRowSeconds;
        return span > 0 ? (enriched - 1) / span : Double.NaN;
    }

    /**
     * The report of a run that started at {@code startNanos} and saw its first enriched row at
     * {@code firstNanos}, printed to {@code out}.
     */
    static EnrichmentReport finish(
            long orders,
            long enriched,
            long misses,
            long startNanos,
            long firstNanos,
            List<String> sample,
            PrintStream out) {
        long end = System.nanoTime();
        EnrichmentReport report =
                new EnrichmentReport(
                        orders,
                        enriched,
                        misses,
                        (end - startNanos) / 1e9,
                        (firstNanos - startNanos) / 1e9,
                        sample);
        report.print(out);
        return report;
    }

    void print(PrintStream out) {
        out.printf(
                "Enriched %,d orders (%,d without a known customer) in %.1f s: %,.0f events/s"
                        + " (%,.0f events/s after the first row).%n",
                enriched, withoutCustomer, seconds, eventsPerSecond(), steadyEventsPerSecond());
        out.printf(
                "Time to first enriched row: %.2f s (includes starting the job on the embedded"
                        + " cluster).%n",
                firstRowSeconds);
    }
}
