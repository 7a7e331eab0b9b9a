package dev.parquetlookup.bench;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.s3proxy.LatencyProxy;
import dev.parquetlookup.s3proxy.S3ProxyServer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The no-page-index case on an object store (run by suite {@code reader-noindex} after the local
 * case): the same files on S3Proxy on loopback behind the {@link LatencyProxy} (first byte held D
 * ms), opened the ways {@link NoPageIndexCase#OPEN_MODES} lists. Per file, mode and D: time, GETs
 * and bytes of the open (footer, and the index read or synthesized at open), then of the first use
 * of one row group (the middle one: its index read or synthesized, as the first lookup into it
 * does). Printed as {@code NOTE case=no-page-index-remote ...} lines with the load average.
 */
final class NoPageIndexRemoteCase {

    private static final String BUCKET = "noindex";

    private final BenchOptions options;
    private final Report report;

    NoPageIndexRemoteCase(BenchOptions options, Report report) {
        this.options = options;
        this.report = report;
    }

    /**
     * @param files label to local file (own, stripped, duckdb)
     */
    void run(Map<String, Path> files) throws Exception {
        List<Integer> delays =
                options.delaysMillis().isEmpty() ? List.of(0, 20) : options.delaysMillis();
        Path lib = S3ProxyServer.libDirBeside(NoPageIndexRemoteCase.class);
        try (S3ProxyServer server = new S3ProxyServer(lib, report.out())) {
            server.start();
            server.createBucket(BUCKET);
            upload(server.hadoopOptions(), files);
            try (LatencyProxy proxy = LatencyProxy.start(server.port(), Duration.ZERO)) {
                Map<String, String> hadoop = new LinkedHashMap<>(server.hadoopOptions());
                hadoop.put("fs.s3a.endpoint", proxy.endpoint());
                HadoopFileStore store = HadoopFileStore.create(hadoop);
                // Warm-up (not recorded): class loading, connections.
                for (Map.Entry<String, Path> f : files.entrySet()) {
                    open(store, proxy, f.getKey(), "on-first-use", -1);
                }
                for (int d : delays) {
                    proxy.setDelay(Duration.ofMillis(d));
                    for (Map.Entry<String, Path> f : files.entrySet()) {
                        for (String mode : NoPageIndexCase.OPEN_MODES) {
                            if (f.getKey().equals("own") == mode.startsWith("own")) {
                                open(store, proxy, f.getKey(), mode, d);
                            }
                        }
                    }
                }
            }
        }
    }

    private static String path(String label) {
        return "s3a://" + BUCKET + "/" + label + ".parquet";
    }

    private static void upload(Map<String, String> hadoop, Map<String, Path> files)
            throws Exception {
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        conf.set("fs.s3a.fast.upload.buffer", "bytebuffer");
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
            for (Map.Entry<String, Path> f : files.entrySet()) {
                try (OutputStream out =
                        fs.create(new org.apache.hadoop.fs.Path(path(f.getKey())), true)) {
                    Files.copy(f.getValue(), out);
                }
            }
        }
    }

    private void open(HadoopFileStore store, LatencyProxy proxy, String label, String mode, int d)
            throws Exception {
        FileId id = store.stat(path(label));
        proxy.resetStats();
        long t0 = System.nanoTime();
        try (RangeSource source = store.open(id)) {
            FileMetadata meta =
                    MetadataReader.read(source, List.of("k"), NoPageIndexCase.options(mode));
            double openMs = (System.nanoTime() - t0) / 1e6;
            LatencyProxy.Stats opened = proxy.stats();
            int middle = meta.rowGroups().size() / 2;
            long u0 = System.nanoTime();
            meta.bind(source, new MetadataCache(1L << 30)).rowGroups().get(middle);
            double useMs = (System.nanoTime() - u0) / 1e6;
            LatencyProxy.Stats used = proxy.stats();
            if (d < 0) {
                return;
            }
            String line =
                    String.format(
                            Locale.ROOT,
                            "case=no-page-index-remote file=%s mode=%s d_ms=%d open_ms=%.1f"
                                    + " open_gets=%d open_bytes=%d row_groups=%d"
                                    + " first_use_of_one_row_group_ms=%.1f first_use_gets=%d"
                                    + " first_use_bytes=%d page_index=\"%s\" load=%s",
                            label,
                            mode,
                            d,
                            openMs,
                            opened.gets(),
                            opened.responseBytes(),
                            meta.rowGroups().size(),
                            useMs,
                            used.gets() - opened.gets(),
                            used.responseBytes() - opened.responseBytes(),
                            meta.pageIndex().describe(),
                            ObjectStoreSuite.loadAverage());
            report.note(line);
        }
    }
}
