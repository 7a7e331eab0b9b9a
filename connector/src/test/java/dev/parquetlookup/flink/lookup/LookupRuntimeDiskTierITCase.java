package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.RefreshOptions.SnapshotMode;
import dev.parquetlookup.engine.TableWarmup;
import dev.parquetlookup.engine.ValueType;
import dev.parquetlookup.engine.ValueType.Kind;
import dev.parquetlookup.testing.S3ProxyExtension;
import dev.parquetlookup.testing.S3RequestLog;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The disk tier as the lookup functions use it: opened from the table's options on the
 * TaskManager-wide lease, warmed in the background, reported in metrics, shared by two functions,
 * and deleted with the last one; a local table creates none.
 */
class LookupRuntimeDiskTierITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "runtime-tier";
    private static final String DIM = "s3a://" + BUCKET + "/dim/";
    private static final int ROWS = 30_000;

    @TempDir static Path local;

    @TempDir Path cacheBase;

    private static Map<String, String> hadoop;

    private static final LookupSpec SPEC =
            LookupSpec.of(
                    List.of("k", "v"),
                    List.of(new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)),
                    List.of("k"),
                    List.of("k"));

    @BeforeAll
    static void upload() throws IOException {
        S3.createBucket(BUCKET);
        hadoop = new LinkedHashMap<>(S3.hadoopOptions());
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        Path file = local.resolve("part-0.parquet");
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.required("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.builder().rowsPerRowGroup(8_000).build())) {
            for (long k = 0; k < ROWS; k++) {
                w.write(new Object[] {k, "v" + k});
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

    private ParquetLookupConfig config(String path) {
        return new ParquetLookupConfig(
                "dim",
                path,
                List.of(),
                hadoop,
                true,
                4,
                64L << 20,
                0,
                1,
                null,
                SnapshotMode.ALL_FILES,
                true,
                new DiskTierConfig(cacheBase.toString(), 64L << 20, TableWarmup.Mode.ALL));
    }

    private List<Path> tierDirectories() throws IOException {
        try (Stream<Path> dirs = Files.list(cacheBase)) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("parquet-lookup-cache-"))
                    .toList();
        }
    }

    private static <T> T gauge(MetricListener metrics, String name) {
        return metrics.<T>getGauge(LookupMetrics.GROUP, name).get().getValue();
    }

    @Test
    void functionsShareOneWarmedTierAndTheLastOneDeletesIt() throws Exception {
        MetricListener first = new MetricListener();
        MetricListener second = new MetricListener();
        try (LookupRuntime a = LookupRuntime.open(config(DIM), SPEC, first.getMetricGroup())) {
            assertThat(a.lookup(GenericRowData.of(7L))).hasSize(1);
            a.warmup().done().get(2, TimeUnit.MINUTES);
            assertThat(this.<Long>gauge(first, "warmupBytes"))
                    .isEqualTo(this.<Long>gauge(first, "warmupPlannedBytes"))
                    .isPositive();
            assertThat(this.<Double>gauge(first, "warmupProgress")).isEqualTo(1.0);
            assertThat(this.<Long>gauge(first, "localCacheBytes")).isPositive();
            try (LookupRuntime b = LookupRuntime.open(config(DIM), SPEC, second.getMetricGroup())) {
                b.warmup().done().get(2, TimeUnit.MINUTES);
                assertThat(tierDirectories()).as("one tier per TaskManager").hasSize(1);
                S3RequestLog.clear();
                for (long k = 0; k < ROWS; k += 101) {
                    List<RowData> rows = b.lookup(GenericRowData.of(k));
                    assertThat(rows).hasSize(1);
                    assertThat(rows.get(0).getString(1).toString()).isEqualTo("v" + k);
                }
                assertThat(S3RequestLog.count("GET", "/" + BUCKET + "/")).isZero();
                assertThat(this.<Long>gauge(second, "localCacheHits")).isPositive();
            }
            assertThat(tierDirectories()).hasSize(1);
        }
        assertThat(tierDirectories()).as("deleted with the last function").isEmpty();
    }

    @Test
    void aLocalTableCreatesNoTier() throws Exception {
        try (LookupRuntime runtime =
                LookupRuntime.open(
                        config(local.toUri().toString()),
                        SPEC,
                        new MetricListener().getMetricGroup())) {
            assertThat(runtime.lookup(GenericRowData.of(3L))).hasSize(1);
            assertThat(runtime.warmup()).isNull();
            assertThat(tierDirectories()).isEmpty();
        }
    }
}
