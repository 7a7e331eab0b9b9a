package dev.parquetlookup.bench;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.jfree.data.category.DefaultCategoryDataset;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code flink} suite: a SQL lookup join on one embedded cluster (MiniCluster, {@code
 * --parallelism} slots, default 2) that all jobs share. Events come from a FLIP-27 sequence source
 * ( {@code id} 1..N, key {@code k = (id * 7919) mod N + 1}, so every event hits and the keys jump
 * across the file) and are enriched from the seed dataset, written in the writer's default layout
 * (256-row pages, key uncompressed), by this connector: sync and async, {@code lookup.cache} NONE
 * and PARTIAL, against {@code FULL} and against a regular join that loads the whole dimension into
 * Flink state. The rows go to a {@code blackhole} sink through a function that fingerprints them (a
 * collecting sink would measure its own polling). Reported per variant: enriched events/s and the
 * time to the first enriched row, both from job submission. Every variant's rows are fingerprinted
 * and must equal the dataset's answer.
 */
final class FlinkSuite {

    static final String SUITE = "flink";

    /** Events as Flink's internal rows, so the table conversion copies nothing. */
    private static final InternalTypeInfo<RowData> EVENT_TYPE =
            InternalTypeInfo.of(
                    RowType.of(new LogicalType[] {new BigIntType(false)}, new String[] {"id"}));

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    FlinkSuite(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    private record Job(long nanos, long firstRowNanos, long rows, long fingerprint) {}

    void run() throws Exception {
        // The layout users get from prepare: this suite measures the connector as deployed.
        SeedLayout layout = SeedLayout.writerDefault(options.rows());
        Path file = SeedDataset.get(report.out(), layout, log);
        long events =
                options.events() > 0
                        ? options.events()
                        : options.rows() < 1_000_000 ? 2_000 : options.quick() ? 20_000 : 200_000;
        int parallelism = options.parallelism();
        Map<String, String> variants = new LinkedHashMap<>();
        variants.put("sync-nocache", "'lookup.async' = 'false', 'lookup.cache' = 'NONE'");
        variants.put("async-nocache", "'lookup.async' = 'true', 'lookup.cache' = 'NONE'");
        variants.put(
                "sync-partial",
                "'lookup.async' = 'false', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '100000'");
        variants.put(
                "async-partial",
                "'lookup.async' = 'true', 'lookup.cache' = 'PARTIAL',"
                        + " 'lookup.partial-cache.max-rows' = '100000'");
        variants.put("full-cache", "'lookup.cache' = 'FULL'");
        variants.put("in-memory-join", null);
        report.conditions(
                SUITE,
                layout.describe()
                        + " events="
                        + events
                        + " parallelism="
                        + parallelism
                        + " minicluster=embedded sink=blackhole keys=(id*7919)mod_N+1 reps="
                        + options.repetitions());
        long expected = 0;
        for (long id = 1; id <= events; id++) {
            long k = key(id);
            expected += Fingerprint.answer(0, id, CaseRunner.truth(options.rows(), k));
        }
        // One embedded cluster for every job: a local environment would start a new MiniCluster
        // per job, and its start-up would dominate the measured times.
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        MiniClusterConfiguration clusterConf =
                new MiniClusterConfiguration.Builder()
                        .setConfiguration(conf)
                        .setNumTaskManagers(1)
                        .setNumSlotsPerTaskManager(Math.max(2, parallelism))
                        .build();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            URI rest = cluster.getRestAddress().get();
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.createRemoteEnvironment(
                            rest.getHost(), rest.getPort());
            env.setParallelism(parallelism);
            measure(
                    env,
                    StreamTableEnvironment.create(env),
                    file,
                    events,
                    parallelism,
                    variants,
                    expected);
        }
    }

    private void measure(
            StreamExecutionEnvironment env,
            StreamTableEnvironment tables,
            Path file,
            long events,
            int parallelism,
            Map<String, String> variants,
            long expected)
            throws Exception {
        tables.createTemporarySystemFunction("fingerprinted", FingerprintFunction.class);
        tables.executeSql(
                "CREATE TEMPORARY TABLE enriched (f BIGINT) WITH ('connector' = 'blackhole')");
        // Events from a FLIP-27 source (the kind a Kafka job has), one equal range per subtask.
        // Flink does not chain an asynchronous operator after a legacy SourceFunction (SQL's
        // datagen), so with datagen the async variants would pay a network hop the sync ones do
        // not.
        tables.createTemporaryView(
                "events",
                tables.fromDataStream(
                        env.fromSource(
                                        new BalancedSequenceSource(1, events),
                                        WatermarkStrategy.noWatermarks(),
                                        "events")
                                .map(id -> (RowData) GenericRowData.of(id))
                                .returns(EVENT_TYPE),
                        Schema.newBuilder()
                                .column("id", DataTypes.BIGINT().notNull())
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
        tables.executeSql(
                String.format(
                        Locale.ROOT,
                        "CREATE TEMPORARY VIEW keyed AS SELECT id, MOD(id * 7919, CAST(%d AS"
                                + " BIGINT)) + 1 AS k, proc FROM events",
                        options.rows()));
        for (Map.Entry<String, String> v : variants.entrySet()) {
            String with = v.getValue() == null ? "" : ", " + v.getValue();
            tables.executeSql(
                    "CREATE TEMPORARY TABLE dim_"
                            + v.getKey().replace('-', '_')
                            + " (k BIGINT, v STRING) WITH ('connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + file.toAbsolutePath().toUri()
                            + "', 'sort-key' = 'k'"
                            + with
                            + ")");
        }
        Map<String, List<Job>> jobs = new LinkedHashMap<>();
        // Warm-up: one job of the first variant (class loading, planner), not recorded.
        runJob(tables, "sync-nocache", false);
        for (int rep = 0; rep < options.repetitions(); rep++) {
            List<String> order = new ArrayList<>(variants.keySet());
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                Job job = runJob(tables, name, variants.get(name) == null);
                if (job.rows() != events || job.fingerprint() != expected) {
                    throw new IllegalStateException(
                            String.format(
                                    "fingerprint mismatch in suite=flink case=%s: %d rows %s,"
                                            + " expected %d rows %s",
                                    name,
                                    job.rows(),
                                    Fingerprint.hex(job.fingerprint()),
                                    events,
                                    Fingerprint.hex(expected)));
                }
                jobs.computeIfAbsent(name, n -> new ArrayList<>()).add(job);
            }
        }
        report.note(
                String.format(
                        "fingerprint suite=flink events=%d %s agree=%s",
                        events, Fingerprint.hex(expected), String.join(",", jobs.keySet())));
        DefaultCategoryDataset chart = new DefaultCategoryDataset();
        for (Map.Entry<String, List<Job>> e : jobs.entrySet()) {
            List<Job> sorted = new ArrayList<>(e.getValue());
            sorted.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
            Job median = sorted.get(sorted.size() / 2);
            long[] firsts = e.getValue().stream().mapToLong(Job::firstRowNanos).sorted().toArray();
            Map<String, String> extra = new LinkedHashMap<>();
            extra.put("events", Long.toString(events));
            extra.put(
                    "first_row_ms",
                    String.format(Locale.ROOT, "%.1f", firsts[firsts.length / 2] / 1e6));
            extra.put("total_ms", String.format(Locale.ROOT, "%.1f", median.nanos() / 1e6));
            double perSec = events * 1e9 / median.nanos();
            report.result(
                    new ResultRow(
                            SUITE,
                            "flink-sql",
                            e.getKey(),
                            parallelism,
                            perSec,
                            median.nanos() / 1e3 / events,
                            sorted.get(sorted.size() - 1).nanos() / 1e3 / events,
                            null,
                            null,
                            null,
                            events * 1e9 / sorted.get(sorted.size() - 1).nanos(),
                            events * 1e9 / sorted.get(0).nanos(),
                            sorted.size(),
                            extra));
            chart.addValue(perSec, "events/s", e.getKey());
        }
        for (String ours :
                List.of("sync-nocache", "async-nocache", "sync-partial", "async-partial")) {
            ResultRow row = report.find(SUITE, "flink-sql", ours, parallelism);
            for (String peer : List.of("full-cache", "in-memory-join")) {
                ResultRow other = report.find(SUITE, "flink-sql", peer, parallelism);
                report.ratioLine(
                        SUITE,
                        ours,
                        parallelism,
                        ours + "/" + peer,
                        row.opsPerSec() / other.opsPerSec());
            }
        }
        Charts.bars(
                report.out().resolve("flink-events.png"),
                "SQL lookup join on MiniCluster: enriched events/s (" + events + " events)",
                "events/s",
                chart,
                false);
    }

    private long key(long id) {
        return Math.floorMod(id * 7919, options.rows()) + 1;
    }

    private Job runJob(StreamTableEnvironment tables, String variant, boolean regularJoin)
            throws Exception {
        String dim = "dim_" + variant.replace('-', '_');
        String join =
                regularJoin
                        ? "keyed AS e JOIN " + dim + " AS d ON e.k = d.k"
                        : "keyed AS e LEFT JOIN "
                                + dim
                                + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.k = d.k";
        FingerprintFunction.reset();
        long start = System.nanoTime();
        TableResult result =
                tables.executeSql(
                        "INSERT INTO enriched SELECT fingerprinted(e.id, d.v) FROM " + join);
        result.await();
        long end = System.nanoTime();
        long first = FingerprintFunction.FIRST.get();
        return new Job(
                end - start,
                first == 0 ? -1 : first - start,
                FingerprintFunction.ROWS.sum(),
                FingerprintFunction.SUM.sum());
    }

    /**
     * Fingerprints the enriched rows where the job runs (the embedded cluster shares this JVM and
     * class loader), order-independently, and notes when the first one came.
     */
    public static final class FingerprintFunction extends ScalarFunction {
        static final LongAdder ROWS = new LongAdder();
        static final LongAdder SUM = new LongAdder();
        static final AtomicLong FIRST = new AtomicLong();

        static void reset() {
            ROWS.reset();
            SUM.reset();
            FIRST.set(0);
        }

        public Long eval(Long id, String value) {
            FIRST.compareAndSet(0, System.nanoTime());
            long f = Fingerprint.answer(0, id, value);
            ROWS.increment();
            SUM.add(f);
            return f;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }
    }
}
