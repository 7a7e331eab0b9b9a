package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.page.DataPage;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Decoded dictionaries (value and key forms) are kept in the metadata cache, so a table without a
 * page cache reads and decodes a chunk's dictionaries once, not on every lookup.
 */
class DictionaryCacheTest {

    private static final int ROWS = 20_000;

    private static final int KEYS = ROWS / 4;

    @TempDir Path tmp;

    @Test
    void withoutAPageCacheDictionariesAreReadOnce() throws Exception {
        Path file = write();
        MetadataCache cache = new MetadataCache(64L << 20);
        ReadStatistics stats = new ReadStatistics();
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(cache)
                        .pageCache(null) // the JVM-wide default would hide reads
                        .build();
        try (DimensionTable table =
                DimensionTable.open(config, HadoopFileStore.create(Map.of(), true), stats)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            long before = stats.bytesRead();
            assertAnswer(table.lookup(plan, new Object[] {7L}), 7);
            long first = stats.bytesRead() - before;
            // Both dictionaries (5,000 longs, 1,000 strings of 64 bytes) are far larger than the
            // 256-row pages of ids a lookup needs.
            assertThat(first).as("first lookup: both dictionaries").isGreaterThan(100_000);
            before = stats.bytesRead();
            long requests = stats.readRequests();
            int lookups = 0;
            for (long k = 13; k < KEYS; k += 97) {
                assertAnswer(table.lookup(plan, new Object[] {k}), k);
                lookups++;
            }
            long perLookup = (stats.bytesRead() - before) / lookups;
            assertThat(perLookup).as("bytes per later lookup: pages only").isLessThan(10_000);
            assertThat(stats.readRequests() - requests)
                    .as("reads of later lookups: key page and value page")
                    .isLessThanOrEqualTo(2L * lookups);
            assertThat(cache.stats().bytes())
                    .as("both dictionaries weighed in the metadata cache")
                    .isGreaterThan(first / 2);
        }
    }

    @Test
    void aMetadataCacheTooSmallForTheDictionariesStillAnswers() throws Exception {
        Path file = write();
        MetadataCache cache = new MetadataCache(16 * 1024);
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(cache)
                        .pageCache(null)
                        .build();
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (long k = -3; k < KEYS + 3; k += 301) {
                assertAnswer(table.lookup(plan, new Object[] {k}), k);
            }
            assertThat(cache.stats().bytes()).isLessThanOrEqualTo(16 * 1024);
        }
    }

    @Test
    void aCachedDictionaryKeyPageKeepsItsRanksAndAnswersFromThem() throws Exception {
        Path file = write();
        PageCache pages = new PageCache(64L << 20);
        ReadStatistics stats = new ReadStatistics();
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(new MetadataCache(64L << 20))
                        .pageCache(pages)
                        .build();
        try (DimensionTable table =
                DimensionTable.open(config, HadoopFileStore.create(Map.of(), true), stats)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (int pass = 0; pass < 3; pass++) {
                for (long k = -1; k <= KEYS; k += 7) {
                    assertAnswer(table.lookup(plan, new Object[] {k}), k);
                }
            }
            FileMetadata meta = table.fileMetadata().get(0);
            int keyLeaf = meta.keyLeaves()[0];
            PageLocations locations = meta.rowGroups().get(0).columns()[keyLeaf].pages();
            for (int p = 0; p < locations.pageCount(); p++) {
                DataPage page = pages.page(meta.file(), 0, keyLeaf, p);
                assertThat(page).as("key page %d cached", p).isNotNull();
                assertThat(page.valueEncoding().usesDictionary()).isTrue();
                assertThat(page.keys(meta.keyTypes().get(0)))
                        .as("key page %d keeps its ranks", p)
                        .extracting(keys -> keys.getClass().getSimpleName())
                        .isEqualTo("DictionaryKeys");
            }
            long before = stats.readRequests();
            for (long k = 0; k < KEYS; k += 3) {
                assertAnswer(table.lookup(plan, new Object[] {k}), k);
            }
            assertThat(stats.readRequests() - before).as("reads once warm").isZero();
        }
    }

    private Path write() throws Exception {
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.STRING), Storage.PLAIN, false);
        List<Object[]> rows = new ArrayList<>(ROWS);
        // Each key on 4 rows, 1,000 values over the table: both columns stay dictionary-encoded.
        for (long i = 0; i < ROWS; i++) {
            rows.add(new Object[] {i / 4, value(i / 4).getBytes(StandardCharsets.UTF_8)});
        }
        Path file = tmp.resolve("dictionaries.parquet");
        WriterOptions options =
                new WriterOptions(
                        CompressionCodecName.UNCOMPRESSED,
                        true,
                        false,
                        false,
                        256,
                        1 << 20,
                        1 << 20,
                        ROWS,
                        true);
        ParquetJavaFiles.write(file, List.of(k, v), options, rows);
        return file;
    }

    private static String value(long k) {
        return String.format("value-%058d", k * 7_919 % 1_000);
    }

    private static void assertAnswer(List<Object[]> rows, long k) {
        if (k < 0 || k >= KEYS) {
            assertThat(rows).as("key %d", k).isEmpty();
            return;
        }
        assertThat(rows).as("key %d", k).hasSize(4);
        for (Object[] row : rows) {
            assertThat(new String((byte[]) row[0], StandardCharsets.UTF_8))
                    .as("key %d", k)
                    .isEqualTo(value(k));
        }
    }
}
