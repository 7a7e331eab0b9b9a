package dev.parquetlookup.bench;

import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.s3proxy.Faults;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.scheduler.ExecutionGraphInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A SQL lookup join (p = 2, every lookup to S3: no disk tier, no warm-up, no page cache) on S3Proxy
 * behind a {@link LatencyProxy} that injects one kind of fault per run: 1 in 50 GETs held 2-3 s, 1
 * in 20 GETs reset mid-body, 1 in 20 answered 503, 1 in 3 listings cut mid-body, 1 in 3 new
 * connections refused. Each run has a store and client of its own (a Hadoop option names the run),
 * so its connections are opened under its faults: the client keeps its connections (a cancelled
 * GET's is drained, not closed), so a shared one would open too few new ones to refuse. The
 * embedded cluster has a restart strategy (5 attempts): each run must end with every enriched row
 * right (v = md5(k)), no row lost, the fault injected, and no restart (no task attempt but the
 * first, no exception in the job's history). Held GETs must be hedged.
 */
class ObjectStoreFaultsITCase {

    private static final long ROWS = 100_000;
    private static final long EVENTS = 3_000;
    private static final String BUCKET = "faults";

    private static Path out;
    private static S3ProxyServer server;
    private static LatencyProxy proxy;
    private static MiniCluster cluster;
    private static String uri;

    enum Fault {
        HELD_GETS(Faults.none().withHolds(50, Duration.ofSeconds(2), Duration.ofSeconds(3), 7)),
        RESETS_MID_BODY(Faults.none().withResets(20)),
        SLOW_DOWN_503(Faults.none().withErrors(20)),
        CUT_LISTINGS(Faults.none().withCutListings(3)),
        REFUSED_CONNECTIONS(Faults.none().withRefusals(3));

        final Faults faults;

        Fault(Faults faults) {
            this.faults = faults;
        }

        long injected(Faults.Counts c) {
            return switch (this) {
                case HELD_GETS -> c.held();
                case RESETS_MID_BODY -> c.resets();
                case SLOW_DOWN_503 -> c.errors();
                case CUT_LISTINGS -> c.cutListings();
                case REFUSED_CONNECTIONS -> c.refused();
            };
        }
    }

    @BeforeAll
    static void start() throws Exception {
        out = Files.createTempDirectory("objectstore-faults");
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        Path file = SeedDataset.get(out, SeedLayout.writerDefault(ROWS), quiet);
        server = new S3ProxyServer(S3ProxyServer.libDirBeside(ObjectStoreSuite.class), out);
        server.start();
        server.createBucket(BUCKET);
        uri = "s3a://" + BUCKET + "/seed/" + file.getFileName();
        S3LookupCase.upload(server.hadoopOptions(), file, uri);
        proxy = LatencyProxy.start(server.port(), Duration.ofMillis(2));
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        conf.set(key("restart-strategy.type"), "fixed-delay");
        conf.set(key("restart-strategy.fixed-delay.attempts"), "5");
        conf.set(key("restart-strategy.fixed-delay.delay"), "100 ms");
        cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(2)
                                .build());
        cluster.start();
    }

    private static org.apache.flink.configuration.ConfigOption<String> key(String name) {
        return ConfigOptions.key(name).stringType().noDefaultValue();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Fault.class)
    void aTransientFaultNeverRestartsTheJobAndEveryRowIsRight(Fault fault) throws Exception {
        HedgeStatistics hedges = HedgeStatistics.shared();
        long won0 = hedges.hedgesWon();
        Run run = run(fault.name(), fault.faults, "", null);
        System.out.printf("%s: %s, hedges %s%n", fault, run, hedges);
        assertThat(fault.injected(run.injected)).as("faults injected").isPositive();
        run.assertNoRestartAndEveryRowRight();
        if (fault == Fault.HELD_GETS) {
            assertThat(hedges.hedgesWon() - won0).as("hedges that beat a held GET").isPositive();
        }
    }

    /**
     * The store down for 10 s in the middle of the job (every ranged GET answered 503, every new
     * connection refused) is ridden out without a restart when the lookup retries cover it: with
     * {@code lookup.max-retries} = 7 a lookup is tried for 15.5-18.3 s in all (docs/refresh.md).
     */
    @Test
    void aTenSecondOutageIsRiddenOutWhereTheLookupRetriesCoverIt() throws Exception {
        Outage outage =
                new Outage(
                        500, Faults.none().withErrors(1).withRefusals(1), Duration.ofSeconds(10));
        Run run = run("OUTAGE", Faults.none(), ", 'lookup.max-retries' = '7'", outage);
        System.out.printf("OUTAGE: %s, outage %s%n", run, outage);
        assertThat(outage.injected.get()).as("the outage's faults").isNotNull();
        assertThat(outage.injected.get().errors()).as("GETs refused by the outage").isPositive();
        assertThat(outage.rowsAtEnd.get())
                .as("rows enriched when the outage ended: the job was still running")
                .isLessThan(EVENTS);
        run.assertNoRestartAndEveryRowRight();
    }

    /**
     * Faults switched on once {@code afterRows} rows are enriched, for {@code length}, then off:
     * what they injected and the rows enriched by then are kept.
     */
    private static final class Outage {
        final long afterRows;
        final Faults faults;
        final Duration length;
        final AtomicReference<Faults.Counts> injected = new AtomicReference<>();
        final AtomicLong rowsAtEnd = new AtomicLong(-1);

        Outage(long afterRows, Faults faults, Duration length) {
            this.afterRows = afterRows;
            this.faults = faults;
            this.length = length;
        }

        /** Runs the outage on a thread of its own; the caller joins it. */
        Thread start() {
            Thread t =
                    new Thread(
                            () -> {
                                while (WindowedJoin.CheckFunction.ROWS.sum() < afterRows) {
                                    LockSupport.parkNanos(1_000_000); // the job's progress
                                }
                                proxy.setFaults(faults);
                                try {
                                    Thread.sleep(length.toMillis()); // the outage's length
                                } catch (InterruptedException e) {
                                    Thread.currentThread().interrupt();
                                } finally {
                                    rowsAtEnd.set(WindowedJoin.CheckFunction.ROWS.sum());
                                    injected.set(proxy.faultCounts());
                                    proxy.setFaults(Faults.none());
                                }
                            },
                            "outage");
            t.setDaemon(true);
            t.start();
            return t;
        }

        @Override
        public String toString() {
            return "after "
                    + afterRows
                    + " rows for "
                    + length
                    + ": injected "
                    + injected.get()
                    + ", rows at its end "
                    + rowsAtEnd.get();
        }
    }

    /** What a job under faults did. */
    private record Run(
            Faults.Counts injected, long rows, long mismatches, int maxAttempt, boolean failures) {

        void assertNoRestartAndEveryRowRight() {
            assertThat(failures).as("failures in the job's history").isFalse();
            assertThat(maxAttempt).as("restarts").isZero();
            assertThat(rows).as("enriched rows").isEqualTo(EVENTS);
            assertThat(mismatches)
                    .as("wrong rows, first %s", WindowedJoin.CheckFunction.FIRST_MISMATCH.get())
                    .isZero();
        }
    }

    /**
     * Runs the lookup join of {@link #EVENTS} events under {@code faults} (for the whole job) and
     * the {@code outage} (if any), with a store and client of its own named {@code name} and the
     * table's options {@code moreOptions} added.
     */
    private static Run run(String name, Faults faults, String moreOptions, Outage outage)
            throws Exception {
        URI rest = cluster.getRestAddress().get();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort());
        env.setParallelism(2);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.createTemporarySystemFunction("checked", WindowedJoin.CheckFunction.class);
        tables.executeSql(
                "CREATE TEMPORARY TABLE enriched (k BIGINT) WITH ('connector' = 'blackhole')");
        DataStream<Long> keys =
                env.fromSequence(1, EVENTS).map(new LookupKeys(ROWS, false)).name("keys");
        tables.createTemporaryView(
                "events",
                tables.fromDataStream(
                        keys,
                        Schema.newBuilder()
                                .column("f0", DataTypes.BIGINT())
                                .columnByExpression("proc", "PROCTIME()")
                                .build()));
        Map<String, String> hadoop = new LinkedHashMap<>(server.hadoopOptions());
        hadoop.put("fs.s3a.endpoint", proxy.endpoint());
        hadoop.put("parquet-lookup.test.fault-run", name); // a store of its own
        StringBuilder with =
                new StringBuilder(
                        "'connector' = 'parquet-lookup', 'path' = '"
                                // The directory: opening lists it (a LIST to cut).
                                + uri.substring(0, uri.lastIndexOf('/') + 1)
                                + "', 'sort-key' = 'k', 'warmup' = 'none',"
                                + " 'local-cache.max-bytes' = '0', 'page-cache.max-bytes' = '0'"
                                + moreOptions);
        hadoop.forEach(
                (k, v) ->
                        with.append(", 'hadoop.").append(k).append("' = '").append(v).append('\''));
        tables.executeSql("CREATE TEMPORARY TABLE dim (k BIGINT, v STRING) WITH (" + with + ")");

        WindowedJoin.CheckFunction.reset();
        proxy.setFaults(faults);
        JobID job;
        Faults.Counts injected;
        Thread outageThread = outage == null ? null : outage.start();
        try {
            TableResult result =
                    tables.executeSql(
                            "INSERT INTO enriched SELECT checked(e.f0, d.v) FROM events AS e"
                                    + " LEFT JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                    + " ON e.f0 = d.k");
            job = result.getJobClient().orElseThrow().getJobID();
            result.await();
        } finally {
            if (outageThread != null) {
                outageThread.interrupt(); // ends an outage the job outlived
                outageThread.join();
            }
            injected = proxy.faultCounts(); // before setFaults starts the counts again
            proxy.setFaults(Faults.none());
        }
        ExecutionGraphInfo info = cluster.getExecutionGraphInfo(job).get();
        int maxAttempt = 0;
        for (AccessExecutionVertex v : info.getArchivedExecutionGraph().getAllExecutionVertices()) {
            maxAttempt = Math.max(maxAttempt, v.getCurrentExecutionAttempt().getAttemptNumber());
        }
        return new Run(
                injected,
                WindowedJoin.CheckFunction.ROWS.sum(),
                WindowedJoin.CheckFunction.MISMATCHES.sum(),
                maxAttempt,
                info.getExceptionHistory().iterator().hasNext());
    }
}
