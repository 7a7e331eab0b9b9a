package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.io.RetryingRangeSource;
import dev.parquetlookup.io.hedge.HedgeStatistics;
import dev.parquetlookup.io.hedge.HedgedRangeReader;
import dev.parquetlookup.s3proxy.Faults;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.testing.S3ProxyExtension;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranged GETs of the S3 store's client through a {@link LatencyProxy} that holds 1 in 30 responses
 * for seconds: hedging sends the late ones again on another connection, the hedges win, every byte
 * read is right and the extra requests stay within the budget; with hedging off, a GET held past
 * {@value S3RangeReaderFactory#REQUEST_TIMEOUT} is aborted and retried by the one retry loop.
 * Counts are asserted, never times.
 */
class HedgedReadsS3ITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "hedged-reads";
    private static final String PATH = "s3a://" + BUCKET + "/data.bin";
    private static final int LENGTH = 4 << 20;
    private static final long SEED = 20_261_205L;
    private static byte[] data;

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        data = new byte[LENGTH];
        new SplittableRandom(SEED).nextBytes(data);
        Configuration conf = new Configuration();
        S3.hadoopOptions().forEach(conf::set);
        org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(PATH);
        try (FileSystem fs = FileSystem.newInstance(path.toUri(), conf);
                OutputStream out = fs.create(path, true)) {
            out.write(data);
        }
    }

    private static Map<String, String> through(LatencyProxy proxy, Map<String, String> more) {
        Map<String, String> options = new LinkedHashMap<>(S3.hadoopOptions(proxy));
        options.putAll(more);
        return options;
    }

    @Test
    void heldResponsesAreHedgedAndEveryByteIsRight() throws Exception {
        LatencyProxy proxy = S3.latencyProxy(Duration.ofMillis(2));
        proxy.setFaults(
                Faults.none().withHolds(30, Duration.ofSeconds(2), Duration.ofSeconds(3), SEED));
        HedgeStatistics stats = HedgeStatistics.shared();
        long gets0 = stats.gets();
        long sent0 = stats.hedgesSent();
        long won0 = stats.hedgesWon();
        SplittableRandom random = new SplittableRandom(SEED + 1);
        int reads = 0;
        try (HadoopFileStore store =
                        HadoopFileStore.create(
                                through(
                                        proxy,
                                        // Learn the delay quickly and at once: the floor is 50 ms.
                                        Map.of(HedgedRangeReader.MIN_DELAY, "50ms")));
                RangeSource source =
                        new RetryingRangeSource(
                                store.open(store.stat(PATH)), RetryPolicy.defaults())) {
            for (int wave = 0; wave < 24; wave++) {
                List<List<FileRange>> asked = new ArrayList<>();
                List<CompletableFuture<byte[][]>> answers = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    List<FileRange> ranges = List.of(range(random, 4096), range(random, 32 * 1024));
                    asked.add(ranges);
                    answers.add(source.readAllAsync(ranges));
                }
                for (int i = 0; i < answers.size(); i++) {
                    byte[][] got = answers.get(i).get(2, TimeUnit.MINUTES);
                    for (int r = 0; r < got.length; r++) {
                        FileRange range = asked.get(i).get(r);
                        assertThat(got[r])
                                .as("wave %d read %d range %s (seed %d)", wave, i, range, SEED)
                                .isEqualTo(
                                        Arrays.copyOfRange(
                                                data, (int) range.offset(), (int) range.end()));
                    }
                    reads++;
                }
            }
        }
        long gets = stats.gets() - gets0;
        long sent = stats.hedgesSent() - sent0;
        long won = stats.hedgesWon() - won0;
        Faults.Counts faults = proxy.faultCounts();
        System.out.printf(
                "reads=%d gets=%d held=%d hedgesSent=%d hedgesWon=%d %s%n",
                reads, gets, faults.held(), sent, won, stats);
        assertThat(gets).isEqualTo(2L * reads);
        assertThat(faults.held()).as("responses held by the proxy").isGreaterThan(10);
        assertThat(won).as("hedges answered before the held response").isGreaterThan(0);
        assertThat(sent)
                .as("extra requests within the budget: 5% of GETs plus 40 saved and 10 borrowed")
                .isLessThanOrEqualTo(gets / 20 + 50);
    }

    /**
     * With a pool of 4 connections, 1 in 3 GETs held and every late GET hedged, more hedges win
     * than the pool has connections: had a cancelled GET kept its connection, the pool would run
     * dry and reads would fail waiting for one.
     */
    @Test
    void cancelledGetsGiveTheirConnectionsBack() throws Exception {
        LatencyProxy proxy = S3.latencyProxy(Duration.ZERO);
        proxy.setFaults(
                Faults.none().withHolds(3, Duration.ofSeconds(2), Duration.ofSeconds(2), SEED));
        HedgeStatistics stats = HedgeStatistics.shared();
        long won0 = stats.hedgesWon();
        SplittableRandom random = new SplittableRandom(SEED + 2);
        try (HadoopFileStore store =
                        HadoopFileStore.create(
                                through(
                                        proxy,
                                        Map.of(
                                                "fs.s3a.connection.maximum",
                                                "4",
                                                HedgedRangeReader.MIN_DELAY,
                                                "20ms",
                                                HedgedRangeReader.MAX_DELAY,
                                                "100ms",
                                                HedgedRangeReader.BUDGET,
                                                "1")));
                RangeSource source =
                        new RetryingRangeSource(
                                store.open(store.stat(PATH)), RetryPolicy.defaults())) {
            for (int i = 0; i < 60; i++) {
                FileRange range = range(random, 2048);
                assertThat(source.read(range))
                        .as("read %d, range %s (seed %d)", i, range, SEED)
                        .isEqualTo(
                                Arrays.copyOfRange(data, (int) range.offset(), (int) range.end()));
            }
        }
        assertThat(proxy.faultCounts().held()).isGreaterThan(8);
        assertThat(stats.hedgesWon() - won0)
                .as("hedges won, each cancelling a GET")
                .isGreaterThan(8);
    }

    @Test
    void aGetPastTheRequestTimeoutIsAbortedAndRetried() throws Exception {
        LatencyProxy proxy = S3.latencyProxy(Duration.ZERO);
        // The 2nd ranged GET is held 30 s; the 1st and 3rd pass.
        proxy.setFaults(
                Faults.none().withHolds(2, Duration.ofSeconds(30), Duration.ofSeconds(30), SEED));
        try (HadoopFileStore store =
                        HadoopFileStore.create(
                                through(
                                        proxy,
                                        Map.of(
                                                HedgedRangeReader.ENABLED, "false",
                                                S3RangeReaderFactory.REQUEST_TIMEOUT, "500ms")));
                RangeSource source =
                        new RetryingRangeSource(
                                store.open(store.stat(PATH)),
                                // The retry loop's own timeout is far away: the client's bounds it.
                                RetryPolicy.defaults().withRequestTimeout(Duration.ofMinutes(5)))) {
            FileRange first = new FileRange(0, 1000);
            assertThat(source.read(first)).isEqualTo(Arrays.copyOf(data, 1000));
            FileRange held = new FileRange(100_000, 5000);
            // Synchronous: nothing but the client's own timeout bounds the wait.
            assertThat(source.read(held)).isEqualTo(Arrays.copyOfRange(data, 100_000, 105_000));
            assertThat(proxy.faultCounts().held()).isEqualTo(1);
            assertThat(proxy.stats().gets()).as("the held GET, then its retry").isEqualTo(3);
        }
    }

    private static FileRange range(SplittableRandom random, int length) {
        return new FileRange(random.nextInt(LENGTH - length), length);
    }
}
