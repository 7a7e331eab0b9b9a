package dev.parquetlookup.bench;

import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code paimon} suite's child JVM: both systems on one embedded cluster. Writes and compacts
 * Paimon's table, runs every (system, key mix) job in alternating order, checks each job's
 * fingerprint against the dataset's answer and prints RESULT and NOTE lines for the parent ({@link
 * PaimonSuite}) to record.
 */
final class PaimonChild {

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;

    PaimonChild(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    void measure() throws Exception {
        long rows = options.rows();
        long events = PaimonSuite.events(options);
        int parallelism = options.parallelism();
        Path base = options.out().toAbsolutePath().resolve("paimon");
        Path ioTmp = base.resolve("io-tmp");
        Path warehouse = base.resolve("warehouse-" + rows);
        LocalCluster.deleteTree(ioTmp);
        LocalCluster.deleteTree(warehouse);
        Files.createDirectories(ioTmp);
        Path file = SeedDataset.get(options.out(), SeedLayout.writerDefault(rows), log);

        Map<String, Long> expected = expected(rows, events);

        Configuration conf = new Configuration();
        // Where Paimon's lookup store goes (TaskManagerRuntimeInfo.getTmpDirectories).
        conf.set(CoreOptions.TMP_DIRS, ioTmp.toString());
        MiniClusterConfiguration clusterConf = LocalCluster.configuration(conf, parallelism);
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            URI rest = cluster.getRestAddress().get();
            String catalog =
                    "CREATE CATALOG paimon WITH ('type' = 'paimon', 'warehouse' = '"
                            + warehouse.toUri()
                            + "')";

            PaimonTable table = writeTable(rest, catalog, warehouse);
            StreamTableEnvironment tables = joinTables(rest, catalog, file);
            Map<String, String> dims = dims();
            Map<String, List<PaimonJob>> jobs = runJobs(cluster, tables, dims, expected, ioTmp);
            results(expected, dims, jobs, table, file);
        }
        report.note(
                "paimon local store: peak bytes under io.tmp.dirs/lookup-*/ sampled every "
                        + PaimonSuite.SAMPLE_MILLIS
                        + " ms per job (Paimon deletes it when the job ends);"
                        + " lookup.cache-file-retention and lookup.local-file-type at their"
                        + " defaults");
    }

    /** The fingerprint of every key mix's answers, from the dataset's definition. */
    private static Map<String, Long> expected(long rows, long events) {
        Map<String, Long> expected = new LinkedHashMap<>();
        for (String mix : PaimonSuite.MIXES) {
            LookupKeys keys = new LookupKeys(rows, mix.equals("skewed"));
            long sum = 0;
            for (long id = 1; id <= events; id++) {
                long k = keys.key(id);
                sum += Fingerprint.answer(0, id, CaseRunner.truth(rows, k));
            }
            expected.put(mix, sum);
        }
        return expected;
    }

    /** What writing and compacting Paimon's table cost, and its size. */
    private record PaimonTable(long writeNanos, long compactNanos, long bytes) {}

    /** 1. Paimon's table: a batch INSERT from a bounded source, then a full compaction. */
    private PaimonTable writeTable(URI rest, String catalog, Path warehouse) throws Exception {
        long rows = options.rows();
        int parallelism = options.parallelism();
        StreamExecutionEnvironment batchEnv =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort());
        batchEnv.setParallelism(parallelism);
        batchEnv.setRuntimeMode(RuntimeExecutionMode.BATCH);
        StreamTableEnvironment batch = StreamTableEnvironment.create(batchEnv);
        batch.executeSql(catalog);
        batch.executeSql(
                "CREATE TABLE paimon.`default`.dim (k BIGINT, v STRING, PRIMARY KEY (k) NOT"
                        + " ENFORCED) WITH ('bucket' = '"
                        + PaimonSuite.BUCKETS
                        + "')");
        batch.createTemporaryView(
                "seed",
                batch.fromDataStream(
                        batchEnv.fromSequence(1, rows)
                                .name("seed")
                                .map(new PaimonStreams.SeedRow())
                                .returns(PaimonStreams.SEED_TYPE),
                        Schema.newBuilder()
                                .column("k", DataTypes.BIGINT().notNull())
                                .column("v", DataTypes.STRING().notNull())
                                .build()));
        long t0 = System.nanoTime();
        batch.executeSql("INSERT INTO paimon.`default`.dim SELECT k, v FROM seed").await();
        long writeNanos = System.nanoTime() - t0;
        batch.getConfig().set("table.dml-sync", "true");
        // Paimon's procedures run their job in StreamExecutionEnvironment
        // .getExecutionEnvironment(tableConfig): without a context environment that is a new
        // local cluster (on this one's REST port: it fails). Point it at this cluster.
        PaimonStreams.ContextEnvironment.install(rest.getHost(), rest.getPort());
        batch.executeSql("USE CATALOG paimon");
        t0 = System.nanoTime();
        try {
            batch.executeSql("CALL sys.compact(`table` => 'default.dim')").await();
        } finally {
            PaimonStreams.ContextEnvironment.uninstall();
        }
        long compactNanos = System.nanoTime() - t0;
        long tableBytes = PaimonFiles.treeBytes(warehouse, p -> true);
        long dataFiles =
                PaimonFiles.countFiles(
                        warehouse,
                        p ->
                                p.getFileName().toString().startsWith("data-")
                                        && p.toString().contains("bucket-"));
        log.printf(
                Locale.ROOT,
                "NOTE paimon table %s: %d rows written in %.1f s, compacted in %.1f s;"
                        + " %d bytes on disk (all snapshots), %d data files; load %s%n",
                warehouse,
                rows,
                writeNanos / 1e9,
                compactNanos / 1e9,
                tableBytes,
                dataFiles,
                ObjectStoreSuite.loadAverage());
        return new PaimonTable(writeNanos, compactNanos, tableBytes);
    }

    /** 2. The joins: the events of each mix, our two tables, Paimon's catalog. */
    private StreamTableEnvironment joinTables(URI rest, String catalog, Path file) {
        long rows = options.rows();
        long events = PaimonSuite.events(options);
        int parallelism = options.parallelism();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort());
        env.setParallelism(parallelism);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(catalog);
        tables.createTemporarySystemFunction("fingerprinted", FingerprintFunction.class);
        tables.executeSql(
                "CREATE TEMPORARY TABLE enriched (f BIGINT) WITH ('connector' = 'blackhole')");
        for (String mix : PaimonSuite.MIXES) {
            tables.createTemporaryView(
                    "events_" + mix,
                    tables.fromDataStream(
                            // One equal range per subtask: with fromSequence one reader
                            // sometimes took every range while the other idled.
                            env.fromSource(
                                            new BalancedSequenceSource(1, events),
                                            WatermarkStrategy.noWatermarks(),
                                            "events-" + mix)
                                    .map(new PaimonStreams.KeyedEvent(rows, mix.equals("skewed")))
                                    .returns(PaimonStreams.EVENT_TYPE),
                            Schema.newBuilder()
                                    .column("id", DataTypes.BIGINT().notNull())
                                    .column("k", DataTypes.BIGINT().notNull())
                                    .columnByExpression("proc", "PROCTIME()")
                                    .build()));
        }
        for (String mode : List.of("sync", "async")) {
            tables.executeSql(
                    "CREATE TEMPORARY TABLE dim_"
                            + mode
                            + " (k BIGINT, v STRING) WITH ('connector' = 'parquet-lookup',"
                            + " 'path' = '"
                            + file.toAbsolutePath().toUri()
                            + "', 'sort-key' = 'k', 'lookup.async' = '"
                            + mode.equals("async")
                            + "')");
        }
        return tables;
    }

    /** The dimension table of each system. */
    private static Map<String, String> dims() {
        Map<String, String> dims = new LinkedHashMap<>();
        dims.put(PaimonSuite.OURS_SYNC, "dim_sync");
        dims.put(PaimonSuite.OURS_ASYNC, "dim_async");
        // Ours with the same hint: key ranges per subtask (KeyRangeShuffle), as Paimon's buckets.
        dims.put(PaimonSuite.OURS_SYNC_SHUFFLE, "dim_sync");
        dims.put(PaimonSuite.OURS_ASYNC_SHUFFLE, "dim_async");
        dims.put(PaimonSuite.PAIMON, "paimon.`default`.dim");
        // Paimon's lookup supports Flink's custom shuffle (FLIP-462): with the hint each
        // subtask gets the keys of its buckets and builds a local store for those only.
        dims.put(PaimonSuite.PAIMON_SHUFFLE, "paimon.`default`.dim");
        return dims;
    }

    /** Every (system, mix) job of every repetition, in alternating order, fingerprints checked. */
    private Map<String, List<PaimonJob>> runJobs(
            MiniCluster cluster,
            StreamTableEnvironment tables,
            Map<String, String> dims,
            Map<String, Long> expected,
            Path ioTmp)
            throws Exception {
        long events = PaimonSuite.events(options);
        // Warm-up (class loading, planner, JIT) of both systems, not recorded.
        int reps = PaimonSuite.repetitions(options);
        for (String system : reps > 1 ? dims.keySet() : List.<String>of()) {
            PaimonJob.run(cluster, tables, "uniform", system, dims.get(system), ioTmp);
        }
        Map<String, List<PaimonJob>> jobs = new LinkedHashMap<>();
        for (int rep = 0; rep < reps; rep++) {
            List<String[]> order = new ArrayList<>();
            for (String mix : PaimonSuite.MIXES) {
                for (String system : dims.keySet()) {
                    order.add(new String[] {system, mix});
                }
            }
            if (rep % 2 == 1) {
                Collections.reverse(order);
            }
            for (String[] step : order) {
                String system = step[0];
                String mix = step[1];
                PaimonJob job =
                        PaimonJob.run(cluster, tables, mix, system, dims.get(system), ioTmp);
                long want = expected.get(mix);
                if (job.rows() != events || job.fingerprint() != want) {
                    throw new IllegalStateException(
                            String.format(
                                    "fingerprint mismatch in suite=paimon system=%s case=%s:"
                                            + " %d rows %s, expected %d rows %s",
                                    system,
                                    mix,
                                    job.rows(),
                                    Fingerprint.hex(job.fingerprint()),
                                    events,
                                    Fingerprint.hex(want)));
                }
                jobs.computeIfAbsent(system + " " + mix, x -> new ArrayList<>()).add(job);
                log.printf(
                        Locale.ROOT,
                        "NOTE paimon-suite rep=%d %s %s %.0f events/s first_row_ms=%.0f"
                                + " disk_bytes=%d load=%s%n",
                        rep,
                        system,
                        mix,
                        events * 1e9 / job.nanos(),
                        job.firstRowNanos() / 1e6,
                        job.peakDiskBytes(),
                        ObjectStoreSuite.loadAverage());
            }
        }
        return jobs;
    }

    /** The fingerprint notes and one RESULT row per (system, mix). */
    private void results(
            Map<String, Long> expected,
            Map<String, String> dims,
            Map<String, List<PaimonJob>> jobs,
            PaimonTable table,
            Path file)
            throws IOException {
        long events = PaimonSuite.events(options);
        int parallelism = options.parallelism();
        for (String mix : PaimonSuite.MIXES) {
            report.note(
                    String.format(
                            "fingerprint suite=paimon case=%s events=%d %s agree=%s",
                            mix,
                            events,
                            Fingerprint.hex(expected.get(mix)),
                            String.join(",", dims.keySet())));
        }
        for (String mix : PaimonSuite.MIXES) {
            for (String system : dims.keySet()) {
                Map<String, String> extra = new LinkedHashMap<>();
                if (system.startsWith(PaimonSuite.PAIMON)) {
                    extra.put("write_ms", ResultRow.fmt0(table.writeNanos() / 1e6));
                    extra.put("compact_ms", ResultRow.fmt0(table.compactNanos() / 1e6));
                    extra.put("table_bytes", Long.toString(table.bytes()));
                } else {
                    extra.put("table_bytes", Long.toString(Files.size(file)));
                }
                report.result(
                        PaimonJob.row(
                                system,
                                mix,
                                parallelism,
                                events,
                                jobs.get(system + " " + mix),
                                extra));
            }
        }
    }
}
