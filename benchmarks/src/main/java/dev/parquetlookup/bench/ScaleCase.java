package dev.parquetlookup.bench;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

import org.duckdb.DuckDBConnection;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code flink-scale} suite: CPU per lookup of a SQL lookup join at 1x and 9x the rows and
 * lookups, on files as DuckDB writes them (issue 27's goal "CPU per lookup at 9x within 1.5x of
 * 1x"). Not part of {@code all}.
 *
 * <p>Files: DuckDB {@code COPY} (its defaults: snappy, no page index, one page per column chunk) of
 * {@code id BIGINT} 1..N in order, {@code v} the MD5 text of {@code id}, {@code d DECIMAL(18,2)} =
 * id / 100, {@code s INTEGER} = id mod 1000, in two layouts:
 *
 * <ul>
 *   <li>{@code rg2048}: {@code ROW_GROUP_SIZE 2048} (small pages, many row groups), N = R and 9R
 *       ({@code -Dbench.scale.rows=R}, default 500,000), R / 25 lookups at 1x;
 *   <li>{@code rg1m}: {@code ROW_GROUP_SIZE 1000000} (a 1M-row page per column chunk: the local
 *       form of {@code repage} is built), N = 2R and 18R, 2R / 133 lookups at 1x;
 *   <li>{@code gzip} (only when named in {@code -Dbench.scale.layouts}): DuckDB's default {@code
 *       ROW_GROUP_SIZE} (122,880 rows, one page per column chunk) with {@code COMPRESSION gzip}, N
 *       = R and 9R, R / 25 lookups at 1x (issue 27's "gzip strings" case).
 * </ul>
 *
 * Each job is a SQL lookup join at {@code --parallelism} (default 2) of events {@code id} 1..E with
 * a key uniform over 1..N (a 64-bit mix of {@code id}) against a table with the connector's
 * defaults (sync, no Flink cache, the default page cache and local forms) and a fresh {@code
 * local-cache.dir}, so a job builds its local form as a fresh TaskManager does; {@code --option
 * key=value} adds options (e.g. {@code page-cache.max-bytes=0}). Reported per job: the process's
 * CPU time (every thread of this JVM, the embedded cluster's included) from submission to the job's
 * end, per lookup, and the ratio 9x / 1x of the median jobs ({@code -Dbench.scale.reps}, default
 * {@code --reps}; {@code -Dbench.scale.layouts=rg1m} for one layout). Every row's {@code v}, {@code
 * d} and {@code s} are fingerprinted and checked.
 */
final class ScaleCase {

    static final String SUITE = "flink-scale";

    /** Events: their id and the key they look up. */
    private static final InternalTypeInfo<RowData> EVENT_TYPE =
            InternalTypeInfo.of(
                    RowType.of(
                            new LogicalType[] {new BigIntType(false), new BigIntType(false)},
                            new String[] {"id", "k"}));

    private final BenchOptions options;
    private final Report report;
    private final PrintStream log;
    private int jobs;

    ScaleCase(BenchOptions options, Report report, PrintStream log) {
        this.options = options;
        this.report = report;
        this.log = log;
    }

    /** One file measured: its layout, rows, lookups per job. */
    private record Scale(String layout, int rowGroupRows, long rows, long events, int factor) {
        String name() {
            return layout + "-" + factor + "x";
        }
    }

    void run() throws Exception {
        long base = Long.parseLong(System.getProperty("bench.scale.rows", "500000"));
        List<String> layouts =
                List.of(System.getProperty("bench.scale.layouts", "rg2048,rg1m").split(","));
        List<Scale> scales = new ArrayList<>();
        for (String layout : layouts) {
            for (int factor : new int[] {1, 9}) {
                if (layout.equals("rg2048")) {
                    scales.add(new Scale(layout, 2048, base * factor, base / 25 * factor, factor));
                } else if (layout.equals("gzip")) {
                    // DuckDB's default row groups (one page per column chunk), gzip-compressed.
                    scales.add(
                            new Scale(layout, 122_880, base * factor, base / 25 * factor, factor));
                } else if (layout.equals("rg1m")) {
                    scales.add(
                            new Scale(
                                    layout,
                                    1_000_000,
                                    2 * base * factor,
                                    2 * base / 133 * factor,
                                    factor));
                } else {
                    throw new IllegalArgumentException("no layout " + layout);
                }
            }
        }
        int reps =
                Integer.parseInt(
                        System.getProperty(
                                "bench.scale.reps", Integer.toString(options.repetitions())));
        report.conditions(
                SUITE,
                "base_rows="
                        + base
                        + " layouts="
                        + layouts
                        + " parallelism="
                        + options.parallelism()
                        + " reps="
                        + reps
                        + " options="
                        + options.connectorOptions()
                        + " heap_max_mb="
                        + Runtime.getRuntime().maxMemory() / (1 << 20)
                        + " minicluster=embedded sink=blackhole keys=uniform(mix64(id))"
                        + " cpu=process_from_submission load_start="
                        + ObjectStoreSuite.loadAverage());
        Map<Scale, Path> files = new LinkedHashMap<>();
        for (Scale s : scales) {
            files.put(s, write(s));
        }
        Configuration conf = new Configuration();
        MiniClusterConfiguration clusterConf =
                LocalCluster.configuration(conf, options.parallelism());
        Map<Scale, List<Double>> cpuPerLookup = new LinkedHashMap<>();
        try (MiniCluster cluster = new MiniCluster(clusterConf)) {
            cluster.start();
            StreamExecutionEnvironment env =
                    LocalCluster.environment(cluster, options.parallelism());
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.createTemporarySystemFunction("fingerprinted", FingerprintFunction.class);
            tables.executeSql(
                    "CREATE TEMPORARY TABLE enriched (f BIGINT) WITH ('connector' = 'blackhole')");
            // Warm-up (class loading, planner, JIT): the smallest file, not recorded.
            job(cluster, env, tables, scales.get(0), files.get(scales.get(0)), -1);
            for (int rep = 0; rep < reps; rep++) {
                for (int i = 0; i < scales.size(); i += 2) {
                    // 1x then 9x, the other way round on odd repetitions.
                    Scale a = scales.get(rep % 2 == 0 ? i : i + 1);
                    Scale b = scales.get(rep % 2 == 0 ? i + 1 : i);
                    for (Scale s : List.of(a, b)) {
                        double us = job(cluster, env, tables, s, files.get(s), rep);
                        cpuPerLookup.computeIfAbsent(s, x -> new ArrayList<>()).add(us);
                    }
                }
            }
        }
        for (int i = 0; i < scales.size(); i += 2) {
            Scale one = scales.get(i);
            Scale nine = scales.get(i + 1);
            double r =
                    median(cpuPerLookup.get(nine)) / Math.max(1e-9, median(cpuPerLookup.get(one)));
            report.ratioLine(SUITE, one.layout(), options.parallelism(), "cpu_per_lookup_9x/1x", r);
        }
        report.note("load suite=" + SUITE + " end=" + ObjectStoreSuite.loadAverage());
    }

    /** Runs one job; returns the process's CPU microseconds per lookup (submission to end). */
    private double job(
            MiniCluster cluster,
            StreamExecutionEnvironment env,
            StreamTableEnvironment tables,
            Scale s,
            Path file,
            int rep)
            throws Exception {
        long events = rep < 0 ? Math.min(2_000, s.events()) : s.events();
        int n = ++jobs;
        long rows = s.rows();
        Path localDir = report.out().resolve("scale-local").resolve("job-" + n);
        LocalCluster.deleteTree(localDir);
        Files.createDirectories(localDir);
        tables.createTemporaryView(
                "events" + n,
                tables.fromDataStream(
                        env.fromSource(
                                        new BalancedSequenceSource(1, events),
                                        WatermarkStrategy.noWatermarks(),
                                        "events")
                                .map(id -> (RowData) GenericRowData.of(id, key(id, rows)))
                                .returns(EVENT_TYPE),
                        Schema.newBuilder()
                                .column("id", DataTypes.BIGINT().notNull())
                                .column("k", DataTypes.BIGINT().notNull())
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
        StringBuilder with = new StringBuilder();
        with.append("'connector' = 'parquet-lookup', 'path' = '")
                .append(file.toAbsolutePath().toUri())
                .append("', 'sort-key' = 'id', 'lookup.async' = 'false', 'local-cache.dir' = '")
                .append(localDir.toAbsolutePath())
                .append("'");
        options.connectorOptions()
                .forEach(
                        (k, v) ->
                                with.append(", '").append(k).append("' = '").append(v).append("'"));
        tables.executeSql(
                "CREATE TEMPORARY TABLE dim"
                        + n
                        + " (id BIGINT, v STRING, d DECIMAL(18, 2), s INT) WITH ("
                        + with
                        + ")");
        long expected = 0;
        for (long id = 1; id <= events; id++) {
            expected += Fingerprint.answer(0, id, truth(key(id, s.rows())));
        }
        FingerprintFunction.reset();
        long start = System.nanoTime();
        long cpu0 = JobEnd.processCpuNanos();
        TableResult result =
                tables.executeSql(
                        String.format(
                                Locale.ROOT,
                                "INSERT INTO enriched SELECT fingerprinted(e.id, d.v || '|' ||"
                                        + " CAST(d.d AS STRING) || '|' || CAST(d.s AS STRING))"
                                        + " FROM events%d AS e LEFT JOIN dim%d"
                                        + " FOR SYSTEM_TIME AS OF e.proc AS d ON e.k = d.id",
                                n,
                                n));
        JobEnd.Times end = JobEnd.await(cluster, result);
        long cpu = end.endCpuNanos() - cpu0;
        long wall = end.endNanos() - start;
        long first = FingerprintFunction.FIRST.get();
        if (FingerprintFunction.ROWS.sum() != events || FingerprintFunction.SUM.sum() != expected) {
            throw new IllegalStateException(
                    String.format(
                            "fingerprint mismatch in suite=%s case=%s: %d rows %s, expected %d rows"
                                    + " %s",
                            SUITE,
                            s.name(),
                            FingerprintFunction.ROWS.sum(),
                            Fingerprint.hex(FingerprintFunction.SUM.sum()),
                            events,
                            Fingerprint.hex(expected)));
        }
        double us = cpu / 1e3 / events;
        log.printf(
                Locale.ROOT,
                "NOTE %s case=%s rep=%s rows=%d lookups=%d cpu_s=%.2f cpu_us_per_lookup=%.1f"
                        + " cpu_after_first_row_us_per_lookup=%.1f wall_s=%.2f first_row_ms=%.0f"
                        + " load=%s%n",
                SUITE,
                s.name(),
                rep < 0 ? "warmup" : Integer.toString(rep),
                s.rows(),
                events,
                cpu / 1e9,
                us,
                first == 0
                        ? 0.0
                        : (end.endCpuNanos() - FingerprintFunction.FIRST_CPU.get()) / 1e3 / events,
                wall / 1e9,
                first == 0 ? -1.0 : (first - start) / 1e6,
                ObjectStoreSuite.loadAverage());
        tables.executeSql("DROP TEMPORARY TABLE dim" + n);
        tables.dropTemporaryView("events" + n);
        LocalCluster.deleteTree(localDir);
        return us;
    }

    /** The key event {@code id} looks up: uniform over 1..rows (a 64-bit mix of the id). */
    static long key(long id, long rows) {
        long z = id * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return Math.floorMod(z ^ (z >>> 31), rows) + 1;
    }

    /** The joined text for key {@code k}: {@code v|d|s}. */
    private static String truth(long k) {
        return Md5Hex.of(k) + "|" + BigDecimal.valueOf(k, 2).toPlainString() + "|" + (k % 1000);
    }

    private Path write(Scale s) throws Exception {
        Path dir = report.out().resolve("data");
        Files.createDirectories(dir);
        String codec = s.layout().equals("gzip") ? "gzip" : "snappy";
        Path file =
                dir.resolve(
                        "scale-duckdb-rg"
                                + s.rowGroupRows()
                                + "-"
                                + codec
                                + "-"
                                + s.rows()
                                + ".parquet");
        if (Files.exists(file)) {
            return file;
        }
        long t0 = System.nanoTime();
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        try (DuckDBConnection conn = DuckDbSystem.openDatabase();
                Statement st = conn.createStatement()) {
            st.execute(
                    String.format(
                            Locale.ROOT,
                            "COPY (SELECT range AS id, md5(CAST(range AS VARCHAR)) AS v,"
                                    + " CAST(range / 100 AS DECIMAL(18, 2)) AS d,"
                                    + " CAST(range %% 1000 AS INTEGER) AS s FROM range(1, %d)"
                                    + " ORDER BY id) TO '%s' (FORMAT parquet, ROW_GROUP_SIZE %d,"
                                    + " COMPRESSION %s)",
                            s.rows() + 1,
                            tmp.toAbsolutePath(),
                            s.rowGroupRows(),
                            codec));
        }
        Files.move(tmp, file);
        log.printf(
                Locale.ROOT,
                "NOTE generated %s (%d bytes) with DuckDB COPY in %.1f s%n",
                file.getFileName(),
                Files.size(file),
                (System.nanoTime() - t0) / 1e9);
        return file;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted.get(sorted.size() / 2);
    }
}
