package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.flink.table.TestDimension;
import dev.parquetlookup.metadata.MetadataCache;

import org.apache.flink.configuration.MemorySize;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/** The lookup logic below the Flink functions, on real files. */
class LookupRuntimeTest {

    @TempDir static Path dir;
    private static TestDimension data;

    private static final List<String> NAMES = List.of("name", "g", "v", "note");
    private static final List<LogicalType> TYPES =
            List.of(
                    new VarCharType(VarCharType.MAX_LENGTH),
                    new IntType(),
                    new BigIntType(),
                    new VarCharType(VarCharType.MAX_LENGTH));

    @BeforeAll
    static void writeFiles() throws Exception {
        data = TestDimension.generate(3L, 30, 0);
        data.write(dir, 3);
    }

    private static ParquetLookupConfig config(long metadataBytes) {
        return ParquetLookupConfig.builder("t", dir.toUri().toString())
                .set(ParquetLookupOptions.LOOKUP_ASYNC, false)
                .set(ParquetLookupOptions.METADATA_CACHE_MAX_BYTES, new MemorySize(metadataBytes))
                .set(ParquetLookupOptions.MAX_RETRIES, 0)
                .build();
    }

    @Test
    void functionsInOneJvmShareParsedMetadataAndReleaseIt() throws Exception {
        long bound = 2_000_003;
        LookupSpec spec = LookupSpec.of(NAMES, TYPES, List.of("g"), List.of("g"));
        MetricListener first = new MetricListener();
        MetricListener second = new MetricListener();
        try (LookupRuntime a = LookupRuntime.open(config(bound), spec, first.getMetricGroup())) {
            MetadataCache.Stats afterFirst = metadataStats(first);
            assertThat(afterFirst.misses()).isEqualTo(3); // one footer parse per file
            try (LookupRuntime b =
                    LookupRuntime.open(config(bound), spec, second.getMetricGroup())) {
                MetadataCache.Stats afterSecond = metadataStats(second);
                assertThat(afterSecond.misses()).isEqualTo(3);
                assertThat(afterSecond.hits()).isEqualTo(afterFirst.hits() + 3);
                assertThat(SharedCaches.references(bound)).isEqualTo(2);
                assertThat(b.lookup(GenericRowData.of(4))).isNotEmpty();
            }
            assertThat(SharedCaches.references(bound)).isEqualTo(1);
        }
        assertThat(SharedCaches.references(bound)).isZero();
    }

    @Test
    void lookupsReturnEveryRowOfTheKeyAndCountThemselves() throws Exception {
        // Keys (name, g) in the planner's order; residual key note compared on the rows.
        LookupSpec spec =
                LookupSpec.of(NAMES, TYPES, List.of("name", "g", "note"), List.of("g", "name"));
        MetricListener metrics = new MetricListener();
        int lookups = 0;
        int rows = 0;
        int misses = 0;
        try (LookupRuntime runtime =
                LookupRuntime.open(config(2_000_011), spec, metrics.getMetricGroup())) {
            for (int g = -1; g < 31; g++) {
                for (String name : TestDimension.NAMES) {
                    for (String note : new String[] {"note-1", "note-2"}) {
                        List<RowData> actual =
                                runtime.lookup(
                                        GenericRowData.of(
                                                StringData.fromString(name),
                                                g,
                                                StringData.fromString(note)));
                        List<RowData> expected = new ArrayList<>();
                        for (TestDimension.Dim d : data.rows) {
                            if (d.g() == g
                                    && d.name().equals(name)
                                    && Objects.equals(d.note(), note)) {
                                expected.add(
                                        GenericRowData.of(
                                                StringData.fromString(d.name()),
                                                d.g(),
                                                d.v(),
                                                StringData.fromString(d.note())));
                            }
                        }
                        assertThat(actual)
                                .as("g=%d name=%s note=%s", g, name, note)
                                .containsExactlyInAnyOrderElementsOf(expected);
                        lookups++;
                        rows += expected.size();
                        misses += expected.isEmpty() ? 1 : 0;
                    }
                }
            }
            assertThat(rows).isPositive();
            assertThat(counter(metrics, "numLookups")).isEqualTo(lookups);
            assertThat(counter(metrics, "numRowsReturned")).isEqualTo(rows);
            assertThat(counter(metrics, "numMisses")).isEqualTo(misses);
            assertThat(metrics.<Long>getGauge(LookupMetrics.GROUP, "bytesRead").get().getValue())
                    .isPositive();
            assertThat(metrics.<Long>getGauge(LookupMetrics.GROUP, "readRequests").get().getValue())
                    .isPositive();
        }
    }

    private static long counter(MetricListener metrics, String name) {
        return metrics.getCounter(LookupMetrics.GROUP, name).get().getCount();
    }

    private static MetadataCache.Stats metadataStats(MetricListener metrics) {
        long hits =
                metrics.<Long>getGauge(LookupMetrics.GROUP, "metadataCacheHits").get().getValue();
        long misses =
                metrics.<Long>getGauge(LookupMetrics.GROUP, "metadataCacheMisses").get().getValue();
        long bytes =
                metrics.<Long>getGauge(LookupMetrics.GROUP, "metadataCacheBytes").get().getValue();
        assertThat(bytes).isPositive();
        return new MetadataCache.Stats(hits, misses, 0, 0, bytes);
    }
}
