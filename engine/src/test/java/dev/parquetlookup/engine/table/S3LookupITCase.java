package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.source.RefreshOptions;
import dev.parquetlookup.io.FileChangedException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RetryPolicy;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Lookups on {@code s3a://} files served by S3Proxy on loopback (its own JVM): request counts
 * (every HTTP request the S3 client transmits, through {@link S3RequestLog}) and bytes (our
 * counting source), an outage (the server stopped mid-run and restarted), and an object overwritten
 * in place under an open table.
 */
class S3LookupITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "lookup-bucket";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";

    /** The last file has small pages: its page index outgrows the 64 KiB tail read at open. */
    private static final int FILES = 3;

    private static final int ROWS_PER_FILE = 60_000;

    /** Rows of the last file (16-row pages): 6,250 pages, a page index of ~200 KB. */
    private static final int LAST_FILE_ROWS = 100_000;

    /** One past the largest key. */
    private static final long KEY_END = key(FILES - 1, LAST_FILE_ROWS);

    private static final long SEED = 7L;

    @TempDir static Path local;

    private static Map<String, String> hadoop;

    /** File name -> offset where its footer starts (lookups must never read from there on). */
    private static final Map<String, Long> FOOTER_START = new HashMap<>();

    @BeforeAll
    static void uploadFiles() throws IOException {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.optional("v", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("n", ValueType.of(Kind.INT)));
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
            for (int f = 0; f < FILES; f++) {
                String name = "part-" + f + ".parquet";
                Path file = local.resolve(name);
                try (LookupFileWriter w =
                        LookupFileWriter.open(
                                file.toString(),
                                columns,
                                List.of("k"),
                                f == FILES - 1
                                        ? WriterOptions.builder().rowsPerPage(16).build()
                                        : WriterOptions.defaults())) {
                    for (long i = 0; i < (f == FILES - 1 ? LAST_FILE_ROWS : ROWS_PER_FILE); i++) {
                        long k = key(f, i);
                        w.write(new Object[] {k, value(k), (int) (k % 1000)});
                    }
                }
                FOOTER_START.put(name, footerStart(file));
                fs.copyFromLocalFile(
                        new org.apache.hadoop.fs.Path(file.toUri()),
                        new org.apache.hadoop.fs.Path(DIM + name));
            }
            fs.create(new org.apache.hadoop.fs.Path(DIM + "_SUCCESS")).close();
        }
    }

    /** Even keys only, so odd keys are misses inside the key range. */
    private static long key(int file, long i) {
        return 2 * (file * (long) ROWS_PER_FILE + i);
    }

    private static String value(long k) {
        return "value-" + k + "-" + "x".repeat((int) (k % 37));
    }

    private static long footerStart(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            raf.seek(raf.length() - 8);
            int len = Integer.reverseBytes(raf.readInt());
            return raf.length() - 8 - len;
        }
    }

    private static TableConfig config() {
        return TableConfig.builder(DIM)
                .hadoopOptions(hadoop)
                .metadataCache(new MetadataCache(64L << 20))
                .build();
    }

    private static void checkRow(List<Object[]> rows, long k) {
        if (k % 2 == 1 || k >= KEY_END) {
            assertThat(rows).as("key %d", k).isEmpty();
            return;
        }
        assertThat(rows).as("key %d", k).hasSize(1);
        assertThat(rows.get(0)[0]).isEqualTo(k);
        assertThat(new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8)).isEqualTo(value(k));
    }

    private static String fileOf(S3RequestLog.Request r) {
        return r.path().substring(r.path().lastIndexOf('/') + 1);
    }

    /**
     * Counted through S3A's audit log, which sees S3A's own requests only: so on the fallback path,
     * S3A's streams; the S3 store's client's requests are counted at a proxy in {@code
     * S3AsyncLookupITCase} and {@code TailFirstOpenerITCase}.
     */
    @Test
    void openingCostsOneGetPerFileAndALookupOneGetPerRangeItNeeds() throws IOException {
        Map<String, String> streams = new LinkedHashMap<>(hadoop);
        streams.put("parquet-lookup.s3.async-reads", "false");
        TableConfig config =
                TableConfig.builder(DIM)
                        .hadoopOptions(streams)
                        .metadataCache(new MetadataCache(64L << 20))
                        .build();
        S3RequestLog.clear();
        try (DimensionTable table = DimensionTable.open(config)) {
            List<S3RequestLog.Request> open = S3RequestLog.requests();
            long openBytes = table.readStatistics().bytesRead();
            long openReads = table.readStatistics().readRequests();
            for (int f = 0; f < FILES; f++) {
                String name = "/dim/part-" + f + ".parquet";
                // The footer's tail only: a row group's page index is read on the first lookup
                // into it (the last file's index, larger than the tail, too).
                assertThat(S3RequestLog.count("GET", name))
                        .as("GETs opening %s: %s", name, summarize(open))
                        .isEqualTo(1L);
                assertThat(S3RequestLog.count("HEAD", name)).as("HEADs of %s", name).isZero();
            }
            System.out.printf(
                    "S3 open of %d files: %d requests %s; engine: %d reads, %d bytes%n",
                    FILES, open.size(), summarize(open), openReads, openBytes);

            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v", "n"));
            Random random = new Random(SEED);
            long maxKey = KEY_END + 10;
            for (int i = 0; i < 20; i++) { // warm-up: connections, class loading
                long k = random.nextLong(maxKey);
                checkRow(table.lookup(plan, new Object[] {k}), k);
            }

            int lookups = 300;
            long gets = 0;
            long getBytes = 0;
            long ranges = 0;
            long bytes = 0;
            long maxGetsPerLookup = 0;
            for (int i = 0; i < lookups; i++) {
                long k = random.nextLong(maxKey);
                S3RequestLog.clear();
                long reads0 = table.readStatistics().readRequests();
                long bytes0 = table.readStatistics().bytesRead();
                checkRow(table.lookup(plan, new Object[] {k}), k);
                List<S3RequestLog.Request> requests = S3RequestLog.requests();
                long pagesRead = table.readStatistics().readRequests() - reads0;
                long lookupGets = requests.stream().filter(r -> r.method().equals("GET")).count();
                assertThat(requests)
                        .as("key %d (seed %d): only range GETs", k, SEED)
                        .allSatisfy(r -> assertThat(r.method()).isEqualTo("GET"));
                assertThat(lookupGets)
                        .as("key %d (seed %d): GETs vs pages read %s", k, SEED, requests)
                        .isLessThanOrEqualTo(pagesRead);
                for (S3RequestLog.Request r : requests) {
                    assertThat(r.range()).as("ranged GET %s", r).isPresent();
                    assertThat(r.range().get().first())
                            .as("GET %s reads no footer", r)
                            .isLessThan(FOOTER_START.get(fileOf(r)));
                    getBytes += r.range().get().length();
                }
                gets += lookupGets;
                maxGetsPerLookup = Math.max(maxGetsPerLookup, lookupGets);
                ranges += pagesRead;
                bytes += table.readStatistics().bytesRead() - bytes0;
            }
            System.out.printf(
                    "S3 lookups: %d lookups (hits and misses), %d GETs (max %d per lookup), %d"
                            + " page ranges read by the engine, %d bytes used, %d bytes requested"
                            + " by GET ranges, 0 HEAD%n",
                    lookups, gets, maxGetsPerLookup, ranges, bytes, getBytes);
        }
    }

    @Test
    void anOutageFailsALookupInBoundedTimeNamingTheRangeAndRestartRecovers() throws Exception {
        RefreshOptions options =
                RefreshOptions.defaults()
                        .withRetryPolicy(
                                new RetryPolicy(3, Duration.ofMillis(50), Duration.ofMillis(200)));
        try (RefreshingTable table = RefreshingTable.open(config(), options)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            for (long k : new long[] {0, 2, key(1, 5)}) {
                checkRow(table.lookup(plan, new Object[] {k}), k);
            }

            S3.stop();
            long start = System.nanoTime();
            long k = key(1, 40_000);
            assertThatThrownBy(() -> table.lookup(plan, new Object[] {k}))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(DIM + "part-1.parquet")
                    .hasMessageMatching("(?s).*Read of (bytes \\[\\d+, \\d+\\)|\\d+ ranges? ).*")
                    .hasMessageContaining("failed after 3 attempts");
            long failedAfterMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(Duration.ofMillis(failedAfterMillis))
                    .as("a lookup during an outage fails in bounded time")
                    .isLessThan(Duration.ofSeconds(30));
            assertThat(table.refresh()).isEqualTo(RefreshResult.FAILED);
            assertThat(table.status().lastError()).isNotNull();
            System.out.printf(
                    "S3 outage: lookup failed after %d ms; refresh kept version %d: %s%n",
                    failedAfterMillis, table.status().version(), table.status().lastError());

            S3.start();
            for (long key : new long[] {k, 0, key(0, 59_999), key(1, 1)}) {
                checkRow(table.lookup(plan, new Object[] {key}), key);
            }
            assertThat(table.refresh()).isEqualTo(RefreshResult.UNCHANGED);
            assertThat(table.status().lastError()).isNull();
        }
    }

    /**
     * An object overwritten in place (same key, same length, other bytes) under an open table: the
     * table was opened with the listing's ETag, so every later GET is conditional on it and a
     * lookup fails naming the file instead of decoding the new bytes with the old metadata (same
     * length: every offset of the old footer still points inside the new object). The next refresh
     * sees the new ETag and serves the new version.
     */
    @Test
    void anObjectOverwrittenInPlaceFailsLookupsNamingItUntilARefreshServesTheNewVersion()
            throws Exception {
        String dir = "s3a://" + BUCKET + "/overwritten/";
        String name = "part-0.parquet";
        org.apache.hadoop.fs.Path object = new org.apache.hadoop.fs.Path(dir + name);
        int rows = 20_000;
        byte[] first = versionFile("first", rows);
        // Values of equal length do not make files of equal length: each page header holds its
        // CRC as a varint of 4 or 5 bytes. Take the first of a few fixed tags (the writer is
        // deterministic) whose file has exactly the first version's length.
        String tag = null;
        byte[] bytes = null;
        for (String candidate : List.of("second", "third", "fourth", "fifth", "sixth")) {
            bytes = versionFile(candidate, rows);
            if (bytes.length == first.length) {
                tag = candidate;
                break;
            }
        }
        assertThat(tag).as("a second version with the first one's length").isNotNull();
        byte[] second = bytes;
        String secondTag = tag;
        assertThat(second).isNotEqualTo(first);

        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        try (FileSystem fs = FileSystem.newInstance(URI.create(dir), conf)) {
            put(fs, object, first);
            String firstEtag = etag(fs.getFileStatus(object));
            assertThat(firstEtag).as("S3Proxy reports an ETag").isNotBlank();

            TableConfig config =
                    TableConfig.builder(dir)
                            .hadoopOptions(hadoop)
                            .metadataCache(new MetadataCache(16L << 20))
                            .build();
            try (RefreshingTable running =
                    RefreshingTable.open(config, RefreshOptions.defaults())) {
                FileId opened = running.files().get(0);
                assertThat(opened.etag()).isEqualTo(firstEtag);
                LookupPlan plan = running.plan(List.of("k"), List.of("k", "v"));
                assertThat(valueOf(running.lookup(plan, new Object[] {7L})))
                        .isEqualTo(version("first", 7));

                // A second table (a restart, another subtask) lists the path while the first
                // version is there, and the object is replaced right after its listing. Its
                // metadata comes from the shared cache, so it reads nothing at open: its first GET
                // is a page read, which only the listing's ETag can tie to the first version.
                AtomicBoolean overwritten = new AtomicBoolean();
                FileStore overwriteAfterListing =
                        new AfterListing(
                                HadoopFileStore.create(hadoop),
                                () -> {
                                    if (overwritten.compareAndSet(false, true)) {
                                        put(fs, object, second);
                                    }
                                });
                try (RefreshingTable late =
                        RefreshingTable.open(
                                config, RefreshOptions.defaults(), overwriteAfterListing)) {
                    assertThat(overwritten).isTrue();
                    assertThat(late.files()).containsExactly(opened);
                    FileStatus replaced = fs.getFileStatus(object);
                    assertThat(replaced.getLen()).isEqualTo(opened.length());
                    assertThat(etag(replaced)).isNotEqualTo(firstEtag);

                    // Every lookup reads pages (no page cache) and each one is refused, on the
                    // table opened before the overwrite as on the one opened after its listing.
                    for (RefreshingTable table : List.of(late, running)) {
                        for (long k : new long[] {7L, 5_000L, rows - 1L}) {
                            assertThatThrownBy(() -> table.lookup(plan, new Object[] {k}))
                                    .as("key %d after the overwrite", k)
                                    .isInstanceOf(FileChangedException.class)
                                    .hasMessageContaining(dir + name)
                                    .hasMessageContaining("changed after it was opened")
                                    .hasMessageContaining(firstEtag);
                        }
                    }
                    System.out.printf(
                            "S3 overwrite in place (second version '%s'): %s%n",
                            secondTag,
                            catchThrowable(() -> late.lookup(plan, new Object[] {7L}))
                                    .getMessage());

                    for (RefreshingTable table : List.of(late, running)) {
                        assertThat(table.refresh()).isEqualTo(RefreshResult.SWAPPED);
                        assertThat(table.files().get(0).etag()).isEqualTo(etag(replaced));
                        for (long k : new long[] {7L, 5_000L, rows - 1L}) {
                            assertThat(valueOf(table.lookup(plan, new Object[] {k})))
                                    .as("key %d after the refresh", k)
                                    .isEqualTo(version(secondTag, k));
                        }
                    }
                }
            }
        }
    }

    /** Runs an action right after each listing: a publisher racing the table's open. */
    private static final class AfterListing extends ForwardingFileStore {
        interface Action {
            void run() throws IOException;
        }

        private final Action action;

        AfterListing(FileStore delegate, Action action) {
            super(delegate);
            this.action = action;
        }

        @Override
        public List<FileId> list(String path) throws IOException {
            List<FileId> files = super.list(path);
            action.run();
            return files;
        }
    }

    /** One version of a file: values {@code <tag>-<k>} padded to 24 characters. */
    private static byte[] versionFile(String version, int rows) throws IOException {
        Path file = local.resolve("version-" + version + ".parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.builder()
                                .codec(WriterOptions.Codec.UNCOMPRESSED)
                                .dictionary(false)
                                .build())) {
            for (long k = 0; k < rows; k++) {
                w.write(new Object[] {k, version(version, k)});
            }
        }
        return Files.readAllBytes(file);
    }

    private static String version(String version, long k) {
        String v = version + "-" + k;
        return v + "_".repeat(24 - v.length());
    }

    private static void put(FileSystem fs, org.apache.hadoop.fs.Path object, byte[] bytes)
            throws IOException {
        try (FSDataOutputStream out = fs.create(object, true)) {
            out.write(bytes);
        }
    }

    private static String etag(FileStatus status) {
        return ((EtagSource) status).getEtag();
    }

    private static String valueOf(List<Object[]> rows) {
        assertThat(rows).hasSize(1);
        return new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8);
    }

    private static String summarize(List<S3RequestLog.Request> requests) {
        Map<String, Integer> byKind = new LinkedHashMap<>();
        for (S3RequestLog.Request r : requests) {
            String what =
                    r.method()
                            + " "
                            + (r.query().contains("list-type") ? "LIST " + r.path() : r.path())
                            + r.range().map(x -> " bytes=" + x.first() + "-" + x.last()).orElse("");
            byKind.merge(what, 1, Integer::sum);
        }
        return byKind.toString();
    }
}
