package dev.parquetlookup.io.disk;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.engine.table.TableWarmup.Mode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.io.RequestLimiter;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Warm-up never stands in front of lookups: with every warm-up request held at the store (a gate
 * that keeps warm-up's blocking reads from returning), asynchronous lookups through the same tier
 * and store still complete, within their own in-flight bound, because warm-up neither takes their
 * limiter's permits nor their client's connections (it reads on S3A's synchronous client, a few at
 * a time). Counted, not timed: the lookups finish while all warm-up fetches are still out. And
 * warm-up yields: while lookups have requests out, it fetches one range at a time.
 */
class WarmupBesideLookupsS3ITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "warm-bucket";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";
    private static final int ROWS = 40_000;
    private static final int WARMUP_THREADS = 4;

    @TempDir static Path local;

    @TempDir Path cacheBase;

    private static Map<String, String> hadoop;

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        Path file = local.resolve("part-0.parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.optional("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.builder().rowsPerRowGroup(5_000).build())) {
            for (long k = 0; k < ROWS; k++) {
                w.write(new Object[] {k, "value-" + k});
            }
        }
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create(DIM), conf)) {
            fs.copyFromLocalFile(
                    new org.apache.hadoop.fs.Path(file.toUri()),
                    new org.apache.hadoop.fs.Path(DIM + "part-0.parquet"));
        }
    }

    @Test
    void lookupsCompleteWhileEveryWarmupRequestIsHeld() throws Exception {
        GatedStore gated = new GatedStore(HadoopFileStore.create(hadoop));
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20)) {
            TieredFileStore tiered = tier.wrap(gated);
            try (RefreshingTable table =
                    RefreshingTable.open(
                            TableConfig.builder(DIM)
                                    .hadoopOptions(hadoop)
                                    .metadataCache(new MetadataCache(64L << 20))
                                    .build(),
                            RefreshOptions.defaults(),
                            tiered)) {
                LookupPlan plan = table.plan(List.of("k"), List.of("v"));
                gated.close.set(true); // from here on, blocking reads wait at the gate
                TableWarmup warmup = TableWarmup.start("dim", table, tiered, Mode.ALL, 4);
                try {
                    assertThat(gated.waiting.await(2, TimeUnit.MINUTES))
                            .as("every warm-up thread holds a request at the gate")
                            .isTrue();
                    RequestLimiter limiter = new RequestLimiter(3);
                    Random random = new Random(5);
                    List<Long> keys = new ArrayList<>();
                    List<CompletableFuture<List<Object[]>>> futures = new ArrayList<>();
                    try (RefreshingTable.Lease lease = table.acquire()) {
                        for (int i = 0; i < 60; i++) {
                            long k = random.nextInt(ROWS);
                            keys.add(k);
                            futures.add(lease.table().lookupAsync(plan, new Object[] {k}, limiter));
                        }
                    }
                    for (int i = 0; i < futures.size(); i++) {
                        List<Object[]> rows = futures.get(i).get(2, TimeUnit.MINUTES);
                        assertThat(rows).as("key %d", keys.get(i)).hasSize(1);
                        assertThat(new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8))
                                .isEqualTo("value-" + keys.get(i));
                    }
                    assertThat(gated.held.get())
                            .as("warm-up requests still held after the lookups")
                            .isEqualTo(WARMUP_THREADS);
                    assertThat(warmup.fetchedBytes()).as("warm-up fetched nothing yet").isZero();
                    assertThat(gated.asyncReads.get()).as("lookup reads").isPositive();
                    assertThat(limiter.peakInFlight()).isLessThanOrEqualTo(3);
                } finally {
                    gated.open.countDown();
                }
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.warmedBytes()).isEqualTo(warmup.plannedBytes()).isPositive();
                warmup.close();
            }
        }
    }

    @Test
    void whileLookupsHaveRequestsOutWarmupFetchesOneRangeAtATime() throws Exception {
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20)) {
            TieredFileStore tiered = tier.wrap(HadoopFileStore.create(hadoop));
            try (RefreshingTable table =
                    RefreshingTable.open(
                            TableConfig.builder(DIM)
                                    .hadoopOptions(hadoop)
                                    .metadataCache(new MetadataCache(64L << 20))
                                    .build(),
                            RefreshOptions.defaults(),
                            tiered)) {
                RequestLimiter lookups = new RequestLimiter(8);
                CompletableFuture<Void> lookupRequest = new CompletableFuture<>();
                lookups.submit(1, () -> lookupRequest); // out for the whole warm-up
                try (TableWarmup warmup =
                        TableWarmup.start("dim", table, tiered, Mode.ALL, 4, lookups)) {
                    warmup.done().get(2, TimeUnit.MINUTES);
                    assertThat(warmup.warmedBytes())
                            .as("warm-up still completes, on one worker")
                            .isEqualTo(warmup.plannedBytes())
                            .isPositive();
                    assertThat(warmup.peakFetchesBesideLookups())
                            .as("warm-up fetches out at once while lookups had requests out")
                            .isEqualTo(1);
                } finally {
                    lookupRequest.complete(null);
                }
                assertThat(lookups.inFlight()).isZero();
            }
        }
    }

    /** A store whose sources hold blocking reads at a gate once it is closed. */
    private static final class GatedStore extends ForwardingFileStore {
        final AtomicBoolean close = new AtomicBoolean();
        final CountDownLatch open = new CountDownLatch(1);
        final CountDownLatch waiting = new CountDownLatch(WARMUP_THREADS);
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger asyncReads = new AtomicInteger();

        GatedStore(HadoopFileStore delegate) {
            super(delegate);
        }

        @Override
        public RangeSource open(FileId file) throws IOException {
            RangeSource source = super.open(file);
            return new RangeSource() {
                @Override
                public FileId file() {
                    return source.file();
                }

                @Override
                public void readFully(long position, byte[] buffer, int offset, int length)
                        throws IOException {
                    gate();
                    source.readFully(position, buffer, offset, length);
                }

                @Override
                public byte[][] readAll(List<FileRange> ranges) throws IOException {
                    gate();
                    return source.readAll(ranges);
                }

                @Override
                public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
                    asyncReads.incrementAndGet();
                    return source.readAllAsync(ranges);
                }

                @Override
                public void close() throws IOException {
                    source.close();
                }
            };
        }

        private void gate() throws IOException {
            if (!close.get()) {
                return;
            }
            held.incrementAndGet();
            waiting.countDown();
            try {
                open.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted at the gate", e);
            } finally {
                held.decrementAndGet();
            }
        }
    }
}
