package dev.parquetlookup.io.disk;

import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.engine.table.TableWarmup.Mode;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.io.RetryingFileStore;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The disk tier under real lookups on {@code s3a://} files served by S3Proxy on loopback: warm
 * lookups send no GET, an overwritten object is never served from its old bytes, an outage during
 * warm-up, the disk's faults (full, flipped bytes, deleted files) and two tables sharing one tier.
 * GETs are counted as S3A's SDK transmits them ({@link S3RequestLog}).
 */
class DiskTierS3ITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "tier-bucket";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";
    private static final int FILES = 2;
    private static final int ROWS_PER_FILE = 40_000;
    private static final long SEED = 42L;

    @TempDir static Path local;

    @TempDir Path cacheBase;

    private static Map<String, String> hadoop;

    /** The tiered store each table reads through, for its warm-up. */
    private final Map<RefreshingTable, TieredFileStore> stores = new ConcurrentHashMap<>();

    @BeforeAll
    static void uploadFiles() throws IOException {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        try (FileSystem fs = fileSystem()) {
            for (int f = 0; f < FILES; f++) {
                String name = "part-" + f + ".parquet";
                Path file = local.resolve(name);
                try (LookupFileWriter w =
                        LookupFileWriter.open(
                                file.toString(),
                                columns(),
                                List.of("k"),
                                WriterOptions.builder().rowsPerRowGroup(10_000).build())) {
                    for (long i = 0; i < ROWS_PER_FILE; i++) {
                        long k = key(f, i);
                        w.write(new Object[] {k, value(k)});
                    }
                }
                fs.copyFromLocalFile(
                        new org.apache.hadoop.fs.Path(file.toUri()),
                        new org.apache.hadoop.fs.Path(DIM + name));
            }
        }
    }

    private static List<ColumnSpec> columns() {
        return List.of(
                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                ColumnSpec.optional("v", ValueType.of(Kind.STRING)));
    }

    private static FileSystem fileSystem() throws IOException {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
    }

    /** Even keys only: odd keys are misses inside the range. */
    private static long key(int file, long i) {
        return 2 * (file * (long) ROWS_PER_FILE + i);
    }

    private static String value(long k) {
        return "value-" + k + "-" + "y".repeat((int) (k % 29));
    }

    private static long randomKey(Random random) {
        return key(random.nextInt(FILES), random.nextInt(ROWS_PER_FILE));
    }

    /** A table on {@code dir} reading through the tier, with fast-failing retries. */
    private RefreshingTable open(String dir, DiskTier tier) throws IOException {
        TieredFileStore tiered = tier.wrap(HadoopFileStore.create(hadoop));
        RefreshOptions options =
                RefreshOptions.defaults()
                        .withRetryPolicy(
                                new RetryPolicy(2, Duration.ofMillis(50), Duration.ofMillis(100)));
        RefreshingTable table =
                RefreshingTable.open(
                        TableConfig.builder(dir)
                                .hadoopOptions(hadoop)
                                .metadataCache(new MetadataCache(64L << 20))
                                .build(),
                        options,
                        new RetryingFileStore(tiered, options.retryPolicy()));
        stores.put(table, tiered);
        return table;
    }

    private TableWarmup warm(RefreshingTable table, DiskTier tier, Mode mode) throws IOException {
        assertThat(stores.get(table).tier()).isSameAs(tier);
        return TableWarmup.start("dim", table, stores.get(table), mode, 4);
    }

    private static void checkRow(RefreshingTable table, LookupPlan plan, long k)
            throws IOException {
        List<Object[]> rows = table.lookup(plan, new Object[] {k});
        assertThat(rows).as("key %d (seed %d)", k, SEED).hasSize(1);
        assertThat(rows.get(0)[0]).isEqualTo(k);
        assertThat(new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8))
                .as("value of key %d", k)
                .isEqualTo(value(k));
    }

    private static long gets() {
        return S3RequestLog.count("GET", "/" + BUCKET + "/");
    }

    private static List<Path> segmentFiles(DiskTier tier) throws IOException {
        try (Stream<Path> files = Files.list(tier.directory())) {
            return files.filter(p -> p.getFileName().toString().startsWith("segment-")).toList();
        }
    }

    @Test
    void withWarmupAllWarmLookupsSendNoGet() throws Exception {
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20);
                RefreshingTable table = open(DIM, tier)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            long start = System.nanoTime();
            try (TableWarmup warmup = warm(table, tier, Mode.ALL)) {
                // Lookups are served while the warm-up runs.
                checkRow(table, plan, key(1, 123));
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.plannedBytes()).isPositive();
                assertThat(warmup.warmedBytes()).isEqualTo(warmup.plannedBytes());
                assertThat(warmup.progress()).isEqualTo(1.0);
                System.out.printf(
                        "warm-up all: %d bytes in %d ms%n",
                        warmup.plannedBytes(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
            tier.flush().get();
            S3RequestLog.clear();
            Random random = new Random(SEED);
            for (int i = 0; i < 500; i++) {
                checkRow(table, plan, randomKey(random));
                assertThat(table.lookup(plan, new Object[] {2 * random.nextInt(40_000) + 1L}))
                        .isEmpty();
            }
            assertThat(gets()).as("GETs of 1,000 warm lookups").isZero();
            assertThat(tier.stats().hits()).isPositive();
        }
    }

    @Test
    void withWarmupKeyColumnsAColdLookupFetchesOnlyItsValuePage() throws Exception {
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20);
                RefreshingTable table = open(DIM, tier)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            try (TableWarmup warmup = warm(table, tier, Mode.KEY_COLUMNS)) {
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.warmedBytes()).isEqualTo(warmup.plannedBytes()).isPositive();
            }
            tier.flush().get();
            S3RequestLog.clear();
            Random random = new Random(SEED + 1);
            int lookups = 50;
            for (int i = 0; i < lookups; i++) {
                checkRow(table, plan, randomKey(random));
            }
            assertThat(gets()).as("GETs of %d cold lookups", lookups).isLessThanOrEqualTo(lookups);
        }
    }

    /**
     * An object overwritten in place with the same length: a table that lists it again gets the new
     * ETag, another identity in the tier, and never the old version's bytes, even while a table on
     * the old version holds them warm.
     */
    @Test
    void anOverwrittenObjectNeverServesItsOldBytes() throws Exception {
        String dir = "s3a://" + BUCKET + "/overwritten/";
        org.apache.hadoop.fs.Path object = new org.apache.hadoop.fs.Path(dir + "part-0.parquet");
        int rows = 20_000;
        byte[] first = versionFile("first", rows);
        byte[] second = null;
        String secondTag = null;
        for (String tag : List.of("second", "third", "fourth", "fifth", "sixth")) {
            byte[] candidate = versionFile(tag, rows);
            if (candidate.length == first.length) {
                second = candidate;
                secondTag = tag;
                break;
            }
        }
        assertThat(second).as("a second version with the first one's length").isNotNull();
        try (FileSystem fs = fileSystem();
                DiskTier tier = DiskTier.create(cacheBase, 256L << 20)) {
            put(fs, object, first);
            try (RefreshingTable old = open(dir, tier)) {
                LookupPlan plan = old.plan(List.of("k"), List.of("k", "v"));
                try (TableWarmup warmup = warm(old, tier, Mode.ALL)) {
                    warmup.done().get(2, TimeUnit.MINUTES);
                }
                assertThat(valueOf(old.lookup(plan, new Object[] {5L})))
                        .isEqualTo(versioned("first", 5));

                put(fs, object, second);
                try (RefreshingTable now = open(dir, tier)) {
                    FileId oldId = old.files().get(0);
                    FileId newId = now.files().get(0);
                    assertThat(newId.length()).isEqualTo(oldId.length());
                    assertThat(newId.etag()).isNotEqualTo(oldId.etag());
                    LookupPlan newPlan = now.plan(List.of("k"), List.of("k", "v"));
                    for (long k = 0; k < rows; k += 97) {
                        assertThat(valueOf(now.lookup(newPlan, new Object[] {k})))
                                .isEqualTo(versioned(secondTag, k));
                    }
                    tier.flush().get();
                    for (long k = 1; k < rows; k += 89) {
                        assertThat(valueOf(now.lookup(newPlan, new Object[] {k})))
                                .isEqualTo(versioned(secondTag, k));
                    }
                }
            }
        }
    }

    private byte[] versionFile(String version, int rows) throws IOException {
        Path file = local.resolve("version-" + version + ".parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        // Uncompressed, no dictionary: equal-length values give files of equal
                        // length (but for the page headers' CRC varints, hence several tags).
                        WriterOptions.builder()
                                .codec(WriterOptions.Codec.UNCOMPRESSED)
                                .dictionary(false)
                                .build())) {
            for (long k = 0; k < rows; k++) {
                w.write(new Object[] {k, versioned(version, k)});
            }
        }
        return Files.readAllBytes(file);
    }

    private static String versioned(String version, long k) {
        String v = version + "-" + k;
        return v + "_".repeat(24 - v.length());
    }

    private static String valueOf(List<Object[]> rows) {
        assertThat(rows).hasSize(1);
        return new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8);
    }

    private static void put(FileSystem fs, org.apache.hadoop.fs.Path object, byte[] bytes)
            throws IOException {
        try (FSDataOutputStream out = fs.create(object, true)) {
            out.write(bytes);
        }
    }

    /**
     * S3 stops while the warm-up runs: lookups whose pages are on disk are served, the others fail
     * by the retry policy, nothing wrong is returned; when S3 is back the warm-up finishes by
     * itself and lookups send no GET.
     */
    @Test
    void anOutageDuringWarmupServesWhatIsCachedAndWarmupResumesAfterwards() throws Exception {
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20);
                RefreshingTable table = open(DIM, tier)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            long[] cached = {key(0, 10), key(0, 11), key(1, 30_000)};
            for (long k : cached) {
                checkRow(table, plan, k);
            }
            tier.flush().get();

            TableWarmup warmup;
            S3.stop();
            try {
                warmup = warm(table, tier, Mode.ALL);
                for (long k : cached) {
                    checkRow(table, plan, k);
                }
                long far = key(0, 25_000);
                Throwable failure = catchThrowable(() -> table.lookup(plan, new Object[] {far}));
                if (failure == null) {
                    checkRow(table, plan, far); // the warm-up got its pages before the stop
                } else {
                    assertThat(failure).isInstanceOf(IOException.class);
                }
            } finally {
                S3.start();
            }
            try (warmup) {
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.warmedBytes()).isEqualTo(warmup.plannedBytes());
            }
            tier.flush().get();
            S3RequestLog.clear();
            Random random = new Random(SEED + 2);
            for (int i = 0; i < 300; i++) {
                checkRow(table, plan, randomKey(random));
            }
            assertThat(gets()).isZero();
        }
    }

    /**
     * The disk fails under real lookups: full (writes fail), bytes flipped in the cache files, the
     * cache files deleted. Every lookup returns the right row; each fault is counted.
     */
    @Test
    void diskFaultsUnderLookupsNeverGiveAWrongRow() throws Exception {
        AtomicBoolean full = new AtomicBoolean(true);
        DiskWrites writes =
                (channel, bytes, position) -> {
                    if (full.get()) {
                        throw new IOException("No space left on device");
                    }
                    DiskWrites.DIRECT.write(channel, bytes, position);
                };
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20, writes);
                RefreshingTable table = open(DIM, tier)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            Random random = new Random(SEED + 3);
            try (TableWarmup warmup = warm(table, tier, Mode.ALL)) {
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.warmedBytes()).as("nothing fits on a full disk").isZero();
            }
            for (int i = 0; i < 40; i++) {
                checkRow(table, plan, randomKey(random));
            }
            tier.flush().get();
            assertThat(tier.stats().writeFailures()).isPositive();
            assertThat(tier.stats().bytes()).isZero();

            full.set(false);
            try (TableWarmup warmup = warm(table, tier, Mode.ALL)) {
                warmup.done().get(2, TimeUnit.MINUTES);
                assertThat(warmup.warmedBytes()).isEqualTo(warmup.plannedBytes()).isPositive();
            }
            // Flip a byte every 4 KiB of every cache file.
            for (Path segment : segmentFiles(tier)) {
                try (FileChannel channel =
                        FileChannel.open(
                                segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    long size = tier.stats().bytes();
                    ByteBuffer one = ByteBuffer.allocate(1);
                    for (long at = 100; at < Math.min(size, channel.size()); at += 4096) {
                        one.clear();
                        channel.read(one, at);
                        one.flip();
                        byte b = one.get(0);
                        channel.write(ByteBuffer.wrap(new byte[] {(byte) ~b}), at);
                    }
                }
            }
            for (int i = 0; i < 80; i++) {
                checkRow(table, plan, randomKey(random));
            }
            assertThat(tier.stats().checksumFailures()).isPositive();
            tier.flush().get();

            for (Path segment : segmentFiles(tier)) {
                Files.delete(segment);
            }
            assertThat(tier.checkFiles()).isPositive();
            for (int i = 0; i < 40; i++) {
                checkRow(table, plan, randomKey(random));
            }
            assertThat(tier.stats().lostFiles()).isPositive();
        }
    }

    /**
     * Two tables on the same files (two jobs, or two subtasks) share one tier: they warm
     * concurrently, each range is fetched once, concurrent lookups on both are right, and closing
     * one leaves the other warm.
     */
    @Test
    void twoTablesShareOneTierSafely() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (DiskTier tier = DiskTier.create(cacheBase, 256L << 20)) {
            RefreshingTable first = open(DIM, tier);
            try (RefreshingTable second = open(DIM, tier)) {
                LookupPlan plan1 = first.plan(List.of("k"), List.of("k", "v"));
                LookupPlan plan2 = second.plan(List.of("k"), List.of("k", "v"));
                TableWarmup warm1 = warm(first, tier, Mode.ALL);
                TableWarmup warm2 = warm(second, tier, Mode.ALL);
                List<Future<Integer>> work = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long seed = SEED + 10 + t;
                    RefreshingTable table = t % 2 == 0 ? first : second;
                    LookupPlan plan = t % 2 == 0 ? plan1 : plan2;
                    work.add(
                            pool.submit(
                                    () -> {
                                        Random random = new Random(seed);
                                        for (int i = 0; i < 300; i++) {
                                            checkRow(table, plan, randomKey(random));
                                        }
                                        return 300;
                                    }));
                }
                for (Future<Integer> f : work) {
                    assertThat(f.get()).isEqualTo(300);
                }
                warm1.done().get(2, TimeUnit.MINUTES);
                warm2.done().get(2, TimeUnit.MINUTES);
                assertThat(warm1.plannedBytes()).isEqualTo(warm2.plannedBytes());
                assertThat(warm1.fetchedBytes() + warm2.fetchedBytes())
                        .as("each range fetched once")
                        .isLessThanOrEqualTo(warm1.plannedBytes());
                warm1.close();
                warm2.close();
                tier.flush().get();

                first.close();
                S3RequestLog.clear();
                Future<?> more =
                        pool.submit(
                                () -> {
                                    Random random = new Random(SEED + 20);
                                    for (int i = 0; i < 300; i++) {
                                        checkRow(second, plan2, randomKey(random));
                                    }
                                    return null;
                                });
                more.get();
                assertThat(gets()).as("the second table stays warm").isZero();
            } finally {
                first.close();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
