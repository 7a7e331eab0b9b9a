package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.io.disk.DiskTier;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

import javax.annotation.Nullable;

/**
 * Gauges of the local disk tier and of the table's warm-up, in the group {@value
 * LookupMetrics#GROUP} beside {@link LookupMetrics}; registered only for tables on remote files
 * with {@code local-cache.max-bytes} &gt; 0.
 *
 * <pre>
 * localCacheBytes             gauge  bytes the TaskManager's disk tier holds (shared by its tables)
 * localCacheHits              gauge  ranges (pages, footers) served from the disk tier
 * localCacheMisses            gauge  ranges read from the store (and then written to the tier)
 * localCacheWriteFailures     gauge  writes that failed (disk full, I/O error)
 * localCacheChecksumFailures  gauge  ranges whose bytes on disk failed their checksum (refetched)
 * localCacheLostFiles         gauge  cache files deleted from outside (their ranges refetched)
 * localCacheEvictedBytes      gauge  bytes evicted to keep local-cache.max-bytes
 * warmupPlannedBytes          gauge  bytes this function's warm-up fetches (0 with warmup 'none')
 * warmupBytes                 gauge  bytes of that plan held in the tier so far
 * warmupProgress              gauge  warmupBytes / warmupPlannedBytes, 0.0 to 1.0
 * </pre>
 */
final class DiskTierMetrics {

    private DiskTierMetrics() {}

    static void register(MetricGroup functionGroup, DiskTier tier, @Nullable TableWarmup warmup) {
        MetricGroup group = functionGroup.addGroup(LookupMetrics.GROUP);
        group.gauge("localCacheBytes", (Gauge<Long>) () -> tier.stats().bytes());
        group.gauge("localCacheHits", (Gauge<Long>) () -> tier.stats().hits());
        group.gauge("localCacheMisses", (Gauge<Long>) () -> tier.stats().misses());
        group.gauge("localCacheWriteFailures", (Gauge<Long>) () -> tier.stats().writeFailures());
        group.gauge(
                "localCacheChecksumFailures", (Gauge<Long>) () -> tier.stats().checksumFailures());
        group.gauge("localCacheLostFiles", (Gauge<Long>) () -> tier.stats().lostFiles());
        group.gauge("localCacheEvictedBytes", (Gauge<Long>) () -> tier.stats().evictedBytes());
        group.gauge(
                "warmupPlannedBytes",
                (Gauge<Long>) () -> warmup == null ? 0L : warmup.plannedBytes());
        group.gauge("warmupBytes", (Gauge<Long>) () -> warmup == null ? 0L : warmup.warmedBytes());
        group.gauge(
                "warmupProgress", (Gauge<Double>) () -> warmup == null ? 1.0 : warmup.progress());
    }
}
