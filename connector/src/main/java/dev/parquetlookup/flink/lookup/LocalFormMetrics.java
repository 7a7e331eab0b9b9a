package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.local.LocalForms;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Gauges of the TaskManager's local forms ({@code repage} = {@code auto}), in the group {@value
 * LookupMetrics#GROUP} beside {@link LookupMetrics}. The forms are shared by the TaskManager's
 * tables, so every subtask reports the same values.
 *
 * <pre>
 * localFormsBuilt        gauge  files re-paged into a local form by this TaskManager
 * localFormBytes         gauge  bytes of local forms on its disk
 * localFormBuildMillis   gauge  time spent building them
 * localFormsOverBudget   gauge  files read as they are because their form did not fit
 * localFormsDamaged      gauge  forms found damaged or truncated (deleted and rebuilt)
 * </pre>
 */
final class LocalFormMetrics {

    private LocalFormMetrics() {}

    static void register(MetricGroup functionGroup, LocalForms forms) {
        MetricGroup group = functionGroup.addGroup(LookupMetrics.GROUP);
        group.gauge("localFormsBuilt", (Gauge<Long>) () -> forms.stats().built());
        group.gauge("localFormBytes", (Gauge<Long>) () -> forms.stats().bytes());
        group.gauge(
                "localFormBuildMillis", (Gauge<Long>) () -> forms.stats().buildNanos() / 1_000_000);
        group.gauge("localFormsOverBudget", (Gauge<Long>) () -> forms.stats().overBudget());
        group.gauge("localFormsDamaged", (Gauge<Long>) () -> forms.stats().damaged());
    }
}
