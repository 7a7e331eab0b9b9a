package dev.parquetlookup.bench;

import org.apache.flink.api.common.JobID;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.table.api.TableResult;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;

/**
 * When a job submitted to the embedded cluster ended, from the cluster's own job-result future.
 *
 * <p>Why not {@link TableResult#await()}: on a remote environment it asks the REST endpoint for the
 * job's result with waits that double from 10 ms to 2 s ({@code RestClusterClient}'s {@code
 * ExponentialWaitStrategy(10, 2000)}), so it returns at about 0.01, 0.03, 0.07, ..., 1.27, 2.55,
 * 4.55 s after submission: a job of 1.3 s was timed as 2.6 s. That made every variant of the {@code
 * flink} suite land near 105k or 205k events/s at 300k events. Both times are returned, so a report
 * can show the difference.
 *
 * <pre>{@code
 * TableResult result = tables.executeSql("INSERT INTO ...");
 * JobEnd.Times t = JobEnd.await(cluster, result);   // t.endNanos(): System.nanoTime() at the end
 * }</pre>
 *
 * <p>It also reads the process's CPU time at the end: on a machine shared with other work, the
 * events/s of a job follow the share of the cores it got, while the CPU time per event (all threads
 * of this JVM, the embedded cluster's included) measures what the job cost.
 */
final class JobEnd {

    private JobEnd() {}

    /**
     * @param endNanos {@link System#nanoTime()} when the cluster's job-result future completed
     * @param awaitedNanos {@link System#nanoTime()} when {@link TableResult#await()} returned
     * @param endCpuNanos {@link #processCpuNanos()} when the job-result future completed
     */
    record Times(long endNanos, long awaitedNanos, long endCpuNanos) {}

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** CPU time of every thread of this JVM so far, in nanoseconds. */
    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    /** Waits for the job of {@code result}; throws if it failed. */
    static Times await(MiniCluster cluster, TableResult result) throws Exception {
        JobID id =
                result.getJobClient()
                        .orElseThrow(() -> new IllegalStateException("no job was submitted"))
                        .getJobID();
        CompletableFuture<JobResult> done = cluster.requestJobResult(id);
        CompletableFuture<long[]> endAt =
                done.thenApply(r -> new long[] {System.nanoTime(), processCpuNanos()});
        result.await();
        long awaited = System.nanoTime();
        JobResult job = done.get();
        if (!job.isSuccess()) {
            throw new IllegalStateException(
                    "job " + id + " ended " + job.getJobStatus().orElse(null),
                    job.getSerializedThrowable()
                            .map(t -> t.deserializeError(JobEnd.class.getClassLoader()))
                            .orElse(null));
        }
        long[] end = endAt.get();
        return new Times(end[0], awaited, end[1]);
    }
}
