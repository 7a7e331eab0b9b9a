package dev.parquetlookup.examples;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.functions.ScalarFunction;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rough measurement of the SQL lookup join (issue 3's performance figures), not a test and not
 * the benchmark suite: a local MiniCluster with parallelism 2 joins {@code --events} pseudo-random
 * existing keys against the seed dataset of {@code --rows} rows, once per mode, and prints enriched
 * events per second (job start to last row, and first to last row), the time to the first enriched
 * row, and the peak heap above the baseline (sampled every 20 ms, all JVM-wide).
 *
 * <p>Run: {@code java -Xmx6g -cp <examples test class path> -Dmodes=async,sync,partial,full
 * dev.parquetlookup.examples.SqlLookupJoinMeasurement --rows 10m --events 2m --dir /tmp/seed}.
 */
public final class SqlLookupJoinMeasurement {

    private SqlLookupJoinMeasurement() {}

    public static void main(String[] args) throws Exception {
        Args a = Args.parse(args, java.util.Set.of("rows", "events", "dir"));
        long rows = a.count("rows", 1_000_000);
        long events = a.count("events", 1_000_000);
        Path dir = a.path("dir", Path.of(System.getProperty("java.io.tmpdir"), "pl-measure"));
        String[] modes = System.getProperty("modes", "async,sync,full").split(",");
        Path file = dir.resolve("seed-" + rows + ".parquet");
        if (!Files.exists(file)) {
            long start = System.nanoTime();
            SeedDataset.write(file, rows);
            System.out.printf(
                    "wrote %s (%d rows, %d MB) in %.1f s%n",
                    file, rows, Files.size(file) >> 20, (System.nanoTime() - start) / 1e9);
        }
        for (String mode : modes) {
            run(file, rows, events, mode.trim());
        }
        System.exit(0);
    }

    /** Heap in use right after a full collection: live data, not garbage (perturbs the run). */
    private static long liveHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void run(Path file, long rows, long events, String mode) throws Exception {
        String options =
                switch (mode) {
                    // Local files get only the sync function unless async is asked for.
                    case "async" -> "'lookup.async' = 'true'";
                    case "sync" -> "'lookup.async' = 'false'";
                    case "partial" ->
                            "'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '100000'";
                    case "full" -> "'lookup.cache' = 'FULL'";
                    default -> throw new IllegalArgumentException(mode);
                };
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.NUM_TASK_SLOTS, 2);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        long n = rows;
        // Deterministic pseudo-random existing keys, spread over the whole key range.
        DataStream<Long> keys =
                env.fromSequence(1, events).map(i -> Math.floorMod(i * 0x9E3779B97F4A7C15L, n) + 1);
        tEnv.createTemporaryView(
                "events",
                keys,
                Schema.newBuilder()
                        .column("f0", DataTypes.BIGINT())
                        .columnByExpression("proc", "PROCTIME()")
                        .build());
        tEnv.executeSql(
                "CREATE TABLE dim (k BIGINT, v STRING) WITH ('connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + file.toUri()
                        + "', "
                        + options
                        + ")");
        long baseline = liveHeapAfterGc();
        AtomicLong peak = new AtomicLong(baseline);
        AtomicBoolean running = new AtomicBoolean(true);
        Thread sampler =
                new Thread(
                        () -> {
                            while (running.get()) {
                                peak.accumulateAndGet(liveHeapAfterGc(), Math::max);
                                try {
                                    Thread.sleep(1000);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        });
        sampler.setDaemon(true);
        // A discarding sink, as throughput benchmarks do (collecting to the client would measure
        // the collect sink's polling); a function in the projection counts the enriched rows.
        Counter.reset();
        tEnv.createTemporarySystemFunction("counted", Counter.class);
        tEnv.executeSql("CREATE TEMPORARY TABLE sink (c INT) WITH ('connector' = 'blackhole')");
        JobClient job =
                tEnv.executeSql(
                                "INSERT INTO sink SELECT counted(d.v) FROM events AS e JOIN dim"
                                        + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.f0 = d.k")
                        .getJobClient()
                        .orElseThrow();
        // The clock starts when the job runs: cluster start-up and planning are not the join's.
        while (job.getJobStatus().get() != JobStatus.RUNNING) {
            Thread.onSpinWait();
        }
        sampler.start();
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        job.getJobExecutionResult().get();
        long end = System.nanoTime();
        long cpu = processCpuNanos() - cpuStart;
        running.set(false);
        sampler.join();
        long count = Counter.COUNT.get();
        long first = Counter.FIRST.get();
        System.out.printf(
                "RESULT mode=%s rows=%d events=%d enriched=%d events_per_s_total=%.0f"
                        + " events_per_s_steady=%.0f first_row_after_running_s=%.2f"
                        + " cpu_us_per_event=%.1f live_heap_after_gc_above_baseline_mb=%d"
                        + " checksum=%d%n",
                mode,
                rows,
                events,
                count,
                count / ((end - start) / 1e9),
                (count - 1) / ((end - first) / 1e9),
                (first - start) / 1e9,
                cpu / 1e3 / count,
                (peak.get() - baseline) >> 20,
                Counter.CHECKSUM.get());
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Counts enriched rows in this JVM (the MiniCluster runs here) and notes the first one. */
    public static final class Counter extends ScalarFunction {
        static final AtomicLong COUNT = new AtomicLong();
        static final AtomicLong FIRST = new AtomicLong();
        static final AtomicLong CHECKSUM = new AtomicLong();

        static void reset() {
            COUNT.set(0);
            FIRST.set(0);
            CHECKSUM.set(0);
        }

        public Integer eval(String value) {
            if (COUNT.getAndIncrement() == 0) {
                FIRST.set(System.nanoTime());
            }
            int c = value.charAt(0);
            CHECKSUM.addAndGet(c);
            return c;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }
}
