package dev.parquetlookup.bench;

import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One lookup-join job of the {@code paimon} suite, as measured: its time from submission, the time
 * to its first enriched row, the rows and fingerprint it produced, and the peak size of Paimon's
 * local lookup store while it ran ({@link #run}); and the RESULT row of a (system, mix) from its
 * repetitions ({@link #row}).
 */
record PaimonJob(long nanos, long firstRowNanos, long rows, long fingerprint, long peakDiskBytes) {

    static PaimonJob run(
            MiniCluster cluster,
            StreamTableEnvironment tables,
            String mix,
            String system,
            String dim,
            Path ioTmp)
            throws Exception {
        FingerprintFunction.reset();
        AtomicLong peak = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread sampler =
                new Thread(
                        () -> {
                            while (!done.get()) {
                                peak.accumulateAndGet(
                                        PaimonFiles.lookupStoreBytes(ioTmp), Math::max);
                                try {
                                    Thread.sleep(PaimonSuite.SAMPLE_MILLIS);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "paimon-disk-sampler");
        sampler.setDaemon(true);
        long start = System.nanoTime();
        sampler.start();
        long end;
        try {
            TableResult result =
                    tables.executeSql(
                            "INSERT INTO enriched SELECT "
                                    + (system.endsWith(PaimonSuite.SHUFFLE_SUFFIX)
                                            ? "/*+ LOOKUP('table'='d', 'shuffle'='true') */ "
                                            : "")
                                    + "fingerprinted(e.id, d.v) FROM events_"
                                    + mix
                                    + " AS e LEFT JOIN "
                                    + dim
                                    + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.k = d.k");
            // The cluster's job-result future: TableResult.await() polls REST with waits of up
            // to 2 s, which rounded the job's end up by as much.
            end = JobEnd.await(cluster, result).endNanos();
        } finally {
            done.set(true);
            sampler.interrupt();
            sampler.join();
        }
        long first = FingerprintFunction.FIRST.get();
        return new PaimonJob(
                end - start,
                first == 0 ? -1 : first - start,
                FingerprintFunction.ROWS.sum(),
                FingerprintFunction.SUM.sum(),
                peak.get());
    }

    static ResultRow row(
            String system,
            String mix,
            int parallelism,
            long events,
            List<PaimonJob> runs,
            Map<String, String> more) {
        List<PaimonJob> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(PaimonJob::nanos));
        PaimonJob median = sorted.get(sorted.size() / 2);
        long[] firsts = runs.stream().mapToLong(PaimonJob::firstRowNanos).sorted().toArray();
        long[] disks = runs.stream().mapToLong(PaimonJob::peakDiskBytes).sorted().toArray();
        double[] after =
                runs.stream()
                        .mapToDouble(
                                j ->
                                        (events - 1)
                                                * 1e9
                                                / Math.max(1, j.nanos() - j.firstRowNanos()))
                        .sorted()
                        .toArray();
        Map<String, String> extra = new LinkedHashMap<>();
        extra.put("events", Long.toString(events));
        extra.put("first_row_ms", ResultRow.fmt1(firsts[firsts.length / 2] / 1e6));
        extra.put("first_row_ms_max", ResultRow.fmt1(firsts[firsts.length - 1] / 1e6));
        extra.put("after_first_row_per_s", ResultRow.fmt0(after[after.length / 2]));
        extra.put("total_ms", ResultRow.fmt1(median.nanos() / 1e6));
        extra.put("disk_bytes", Long.toString(disks[disks.length / 2]));
        extra.put("disk_bytes_max", Long.toString(disks[disks.length - 1]));
        extra.putAll(more);
        extra.put("load", ObjectStoreSuite.loadAverage());
        return new ResultRow(
                PaimonSuite.SUITE,
                system,
                mix,
                parallelism,
                events * 1e9 / median.nanos(),
                median.nanos() / 1e3 / events,
                sorted.get(sorted.size() - 1).nanos() / 1e3 / events,
                null,
                null,
                null,
                events * 1e9 / sorted.get(sorted.size() - 1).nanos(),
                events * 1e9 / sorted.get(0).nanos(),
                sorted.size(),
                extra);
    }
}
