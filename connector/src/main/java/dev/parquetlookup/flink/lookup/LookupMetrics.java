package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.index.KeyIndexes;
import dev.parquetlookup.engine.read.PageCache;
import dev.parquetlookup.engine.table.RefreshStatus;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.ThreadSafeSimpleCounter;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

import javax.annotation.Nullable;

import java.util.function.Supplier;

/**
 * The metrics of one lookup function, in the group {@value #GROUP} below the function's metric
 * group (Flink's own {@code cache.*} metrics sit beside it when {@code lookup.cache} is set).
 *
 * <pre>
 * numLookups           counter    lookups made (a key with a null component counts, reads nothing)
 * numRowsReturned      counter    rows returned, after residual key filters
 * numMisses            counter    lookups that returned no row
 * numFailedLookups     counter    lookups that failed after all retries
 * lookupLatencyMicros  histogram  time of one lookup in the engine, microseconds (last 1024)
 * bytesRead            gauge      bytes read from the files by this function's table
 * readRequests         gauge      read requests (positioned reads, vectored-read ranges)
 * metadataCacheHits    gauge      hits of the TaskManager-wide metadata cache (footers, indexes)
 * metadataCacheMisses  gauge      its misses (a file's metadata parsed)
 * metadataCacheBytes   gauge      bytes it holds
 * pageCacheHits        gauge      hits of the TaskManager-wide page cache (only when enabled)
 * pageCacheMisses      gauge      its misses
 * pageCacheBytes       gauge      bytes it holds
 * keyIndexFiles        gauge      key indexes the TaskManager built (files not sorted by the key)
 * keyIndexBytes        gauge      bytes of the key indexes it built
 * keyIndexBuildMillis  gauge      time spent building them, milliseconds
 * storeGets            gauge      GETs of the TaskManager's object-store clients (hedges not counted)
 * hedgesSent           gauge      hedges: GETs sent again as their answer was late (at most 2 per
 *                                 GET): the extra requests (at most parquet-lookup.hedge.budget of
 *                                 storeGets, plus 50)
 * hedgesWon            gauge      hedges answered first (the other requests were cancelled)
 * hedgesOverBudget     gauge      late GETs answered while they waited for the budget to allow
 *                                 their hedge
 * hedgeDelayMicros     gauge      the delay after which a GET is hedged, as last learnt
 * </pre>
 *
 * The cache and hedge gauges report the shared caches and the TaskManager's object-store clients
 * ({@link HedgeStatistics#shared()}), so every function of the job in one TaskManager shows the
 * same values. Counters are thread-safe (asynchronous lookups update them from several threads).
 */
public final class LookupMetrics {

    public static final String GROUP = "parquetLookup";

    static final String LOOKUPS = "numLookups";
    static final String ROWS = "numRowsReturned";
    static final String MISSES = "numMisses";
    static final String FAILURES = "numFailedLookups";
    static final String LATENCY = "lookupLatencyMicros";
    static final String BYTES_READ = "bytesRead";
    static final String READ_REQUESTS = "readRequests";
    static final String METADATA_HITS = "metadataCacheHits";
    static final String METADATA_MISSES = "metadataCacheMisses";
    static final String METADATA_BYTES = "metadataCacheBytes";
    static final String PAGE_HITS = "pageCacheHits";
    static final String PAGE_MISSES = "pageCacheMisses";
    static final String PAGE_BYTES = "pageCacheBytes";
    static final String INDEX_FILES = "keyIndexFiles";
    static final String INDEX_BYTES = "keyIndexBytes";
    static final String INDEX_MILLIS = "keyIndexBuildMillis";
    static final String STORE_GETS = "storeGets";
    static final String HEDGES_SENT = "hedgesSent";
    static final String HEDGES_WON = "hedgesWon";
    static final String HEDGES_OVER_BUDGET = "hedgesOverBudget";
    static final String HEDGE_DELAY = "hedgeDelayMicros";

    private static final int LATENCY_WINDOW = 1024;

    private final Counter lookups;
    private final Counter rows;
    private final Counter misses;
    private final Counter failures;
    private final Histogram latency;

    public LookupMetrics(
            MetricGroup functionGroup,
            Supplier<ReadStatistics> readStatistics,
            MetadataCache metadataCache,
            @Nullable PageCache pageCache) {
        MetricGroup group = functionGroup.addGroup(GROUP);
        lookups = group.counter(LOOKUPS, new ThreadSafeSimpleCounter());
        rows = group.counter(ROWS, new ThreadSafeSimpleCounter());
        misses = group.counter(MISSES, new ThreadSafeSimpleCounter());
        failures = group.counter(FAILURES, new ThreadSafeSimpleCounter());
        latency = group.histogram(LATENCY, new DescriptiveStatisticsHistogram(LATENCY_WINDOW));
        group.gauge(BYTES_READ, (Gauge<Long>) () -> readStatistics.get().bytesRead());
        group.gauge(READ_REQUESTS, (Gauge<Long>) () -> readStatistics.get().readRequests());
        group.gauge(METADATA_HITS, (Gauge<Long>) () -> metadataCache.stats().hits());
        group.gauge(METADATA_MISSES, (Gauge<Long>) () -> metadataCache.stats().misses());
        group.gauge(METADATA_BYTES, (Gauge<Long>) () -> metadataCache.stats().bytes());
        if (pageCache != null) {
            group.gauge(PAGE_HITS, (Gauge<Long>) () -> pageCache.stats().hits());
            group.gauge(PAGE_MISSES, (Gauge<Long>) () -> pageCache.stats().misses());
            group.gauge(PAGE_BYTES, (Gauge<Long>) () -> pageCache.stats().bytes());
        }
        KeyIndexes indexes = KeyIndexes.shared();
        group.gauge(INDEX_FILES, (Gauge<Long>) () -> indexes.statistics().filesIndexed());
        group.gauge(INDEX_BYTES, (Gauge<Long>) () -> indexes.statistics().indexBytes());
        group.gauge(
                INDEX_MILLIS, (Gauge<Long>) () -> indexes.statistics().buildNanos() / 1_000_000);
        HedgeStatistics hedges = HedgeStatistics.shared();
        group.gauge(STORE_GETS, (Gauge<Long>) hedges::gets);
        group.gauge(HEDGES_SENT, (Gauge<Long>) hedges::hedgesSent);
        group.gauge(HEDGES_WON, (Gauge<Long>) hedges::hedgesWon);
        group.gauge(HEDGES_OVER_BUDGET, (Gauge<Long>) hedges::hedgesOverBudget);
        group.gauge(HEDGE_DELAY, (Gauge<Long>) hedges::delayMicros);
    }

    /** Records one completed lookup. */
    public void recordLookup(long nanos, int rowCount) {
        lookups.inc();
        latency.update(nanos / 1000);
        if (rowCount == 0) {
            misses.inc();
        } else {
            rows.inc(rowCount);
        }
    }

    /** Records a lookup that failed after its retries. */
    public void recordFailure() {
        lookups.inc();
        failures.inc();
    }

    /**
     * Gauges of the snapshot being served ({@code refresh.interval}): its version, age, failed
     * refreshes, and the version as its source names it ("iceberg snapshot 4713", a directory).
     */
    void registerSnapshot(MetricGroup metricGroup, Supplier<RefreshStatus> status) {
        MetricGroup group = metricGroup.addGroup(GROUP);
        group.gauge("snapshotVersion", (Gauge<Long>) () -> status.get().version());
        group.gauge(
                "snapshotAgeMillis",
                (Gauge<Long>) () -> status.get().ageMillis(System.currentTimeMillis()));
        group.gauge("failedRefreshes", (Gauge<Long>) () -> status.get().failedRefreshes());
        group.gauge("snapshotSourceVersion", (Gauge<String>) () -> status.get().sourceVersion());
    }
}
