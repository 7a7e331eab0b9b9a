package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.table.TableWarmup;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The disk tier as the lookup functions use it: opened from the table's options on the
 * TaskManager-wide lease, warmed in the background, reported in metrics, shared by two functions,
 * and deleted with the last one; a local table creates none. The "remote" table is a local
 * directory under the scheme {@code remote:} ({@link RemoteLocalFileSystem}); the tier and warm-up
 * on S3 itself are tested in the engine ({@code DiskTierS3ITCase}).
 */
class LookupRuntimeDiskTierITCase {

    private static final int ROWS = 30_000;

    @TempDir static Path local;

    @TempDir Path cacheBase;

    private static final Map<String, String> HADOOP =
            Map.of("fs.remote.impl", RemoteLocalFileSystem.class.getName());

    private static String remoteDir;

    private static final LookupSpec SPEC =
            LookupSpec.of(
                    List.of("k", "v"),
                    List.of(new BigIntType(), new VarCharType(VarCharType.MAX_LENGTH)),
                    List.of("k"),
                    List.of("k"));

    @BeforeAll
    static void writeFile() throws IOException {
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
        remoteDir = "remote://" + local.toAbsolutePath() + "/";
    }

    private ParquetLookupConfig config(String path) {
        return ParquetLookupConfig.builder("dim", path)
                .hadoopOptions(HADOOP)
                .asyncThreads(4)
                .metadataCacheMaxBytes(64L << 20)
                .maxRetries(1)
                .diskTier(new DiskTierConfig(cacheBase.toString(), 64L << 20, TableWarmup.Mode.ALL))
                .build();
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
        try (LookupRuntime a =
                LookupRuntime.open(config(remoteDir), SPEC, first.getMetricGroup())) {
            assertThat(a.lookup(GenericRowData.of(7L))).hasSize(1);
            a.warmup().done().get(2, TimeUnit.MINUTES);
            assertThat(LookupRuntimeDiskTierITCase.<Long>gauge(first, "warmupBytes"))
                    .isEqualTo(LookupRuntimeDiskTierITCase.<Long>gauge(first, "warmupPlannedBytes"))
                    .isPositive();
            assertThat(LookupRuntimeDiskTierITCase.<Double>gauge(first, "warmupProgress"))
                    .isEqualTo(1.0);
            assertThat(LookupRuntimeDiskTierITCase.<Long>gauge(first, "localCacheBytes"))
                    .isPositive();
            try (LookupRuntime b =
                    LookupRuntime.open(config(remoteDir), SPEC, second.getMetricGroup())) {
                b.warmup().done().get(2, TimeUnit.MINUTES);
                assertThat(tierDirectories()).as("one tier per TaskManager").hasSize(1);
                long misses = LookupRuntimeDiskTierITCase.<Long>gauge(second, "localCacheMisses");
                for (long k = 0; k < ROWS; k += 101) {
                    List<RowData> rows = b.lookup(GenericRowData.of(k));
                    assertThat(rows).hasSize(1);
                    assertThat(rows.get(0).getString(1).toString()).isEqualTo("v" + k);
                }
                assertThat(LookupRuntimeDiskTierITCase.<Long>gauge(second, "localCacheMisses"))
                        .as("no read reached the file system")
                        .isEqualTo(misses);
                assertThat(LookupRuntimeDiskTierITCase.<Long>gauge(second, "localCacheHits"))
                        .isPositive();
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
