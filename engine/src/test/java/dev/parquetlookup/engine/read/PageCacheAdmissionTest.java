package dev.parquetlookup.engine.read;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataCache;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The page cache admits a page on its second use in a window; the window forgets. A small table
 * ends up decoded in memory: once every page was used twice, lookups read nothing.
 */
class PageCacheAdmissionTest {

    @TempDir Path tmp;

    private static final FileId FILE = new FileId("file:/t/a.parquet", 100, 1);

    @Test
    void aPageIsAdmittedOnItsSecondUse() {
        PageCache cache = new PageCache(64L << 20);
        assertThat(cache.admit(FILE, 0, 1, 7)).as("first use").isFalse();
        assertThat(cache.admit(FILE, 0, 1, 7)).as("second use").isTrue();
        assertThat(cache.admit(FILE, 0, 1, 8)).as("another page").isFalse();
        assertThat(cache.admit(FILE, 1, 1, 7)).as("another row group").isFalse();
    }

    @Test
    void pagesUsedOnceEachDoNotGetInAndTheWindowForgets() {
        PageCache cache = new PageCache(1L << 20); // a window of 1,024 first uses
        int admitted = 0;
        for (int p = 0; p < 100_000; p++) {
            if (cache.admit(FILE, p / 1000, 2, p % 1000)) {
                admitted++;
            }
        }
        // Uniform over many pages: only hash collisions within a window get in (one bit per
        // page, 8 bits per first use of a window: about 6%).
        assertThat(admitted).isLessThan(100_000 / 10);
        for (int p = 0; p < 100; p++) {
            cache.admit(FILE, 0, 3, p);
        }
        for (int p = 0; p < 5_000; p++) {
            cache.admit(FILE, 9, 4, p); // more than a window of other first uses
        }
        // Forgotten: only pages whose bit another page set since the window's last clear get in
        // (about 900 first uses of 8,192 bits: about 11 of 100), not all 100.
        int remembered = 0;
        for (int p = 0; p < 100; p++) {
            remembered += cache.admit(FILE, 0, 3, p) ? 1 : 0;
        }
        assertThat(remembered).as("pages remembered after the window").isLessThan(30);
    }

    @Test
    void aSmallTableEndsUpServedWithoutReads() throws Exception {
        int rows = 50_000;
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.STRING), Storage.PLAIN, false);
        List<Object[]> data = new ArrayList<>(rows);
        for (long i = 0; i < rows; i++) {
            data.add(new Object[] {i, ("value-" + i).getBytes(StandardCharsets.UTF_8)});
        }
        Path file = tmp.resolve("small.parquet");
        // 1,024-row pages, LZ4_RAW, 8,192-row groups: the seed layout, small.
        WriterOptions options =
                WriterOptions.defaults()
                        .withCodec(CompressionCodecName.LZ4_RAW)
                        .withRowsPerPage(1024)
                        .withRowsPerRowGroup(8192);
        ParquetJavaFiles.write(file, List.of(k, v), options, data);
        // 64 MiB: the connector's default bound on a TaskManager of 512 MiB heap.
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
            // Two passes in a scattered order touch every page twice (one lookup per 512 rows).
            for (int pass = 0; pass < 2; pass++) {
                for (long i = 0; i < rows / 512; i++) {
                    long key = (i * 7_919 % (rows / 512)) * 512 + 17;
                    assertThat(table.lookup(plan, new Object[] {key})).hasSize(1);
                }
            }
            long before = stats.readRequests();
            for (long key = 0; key < rows; key += 37) {
                List<Object[]> found = table.lookup(plan, new Object[] {key});
                assertThat(found).hasSize(1);
                assertThat(new String((byte[]) found.get(0)[0], StandardCharsets.UTF_8))
                        .isEqualTo("value-" + key);
            }
            assertThat(stats.readRequests() - before).as("reads once warm").isZero();
            assertThat(pages.stats().entries()).as("every page of k and v").isEqualTo(2L * 49);
        }
    }

    @Test
    void anUnsortedPageFailsEveryLookupAlsoOnceCached() throws Exception {
        ColumnSpec k = new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        ColumnSpec v = new ColumnSpec("v", ValueType.of(Kind.BIGINT), Storage.PLAIN, false);
        // Pages of 10 rows in order of each other, rows 13 and 14 of page 1 swapped.
        List<Object[]> data = new ArrayList<>();
        for (long i = 0; i < 30; i++) {
            long key = i == 13 ? 14 : i == 14 ? 13 : i;
            data.add(new Object[] {key, i});
        }
        Path file = tmp.resolve("unsorted.parquet");
        ParquetJavaFiles.write(
                file, List.of(k, v), WriterOptions.defaults().withRowsPerPage(10), data);
        PageCache pages = new PageCache(16L << 20);
        TableConfig config =
                TableConfig.builder(file.toString())
                        .sortKey(List.of("k"))
                        .metadataCache(new MetadataCache(16L << 20))
                        .pageCache(pages)
                        .unsortedFiles(
                                UnsortedFiles.REFUSE) // the refusal; served: UnsortedFilesTest
                        .build();
        try (DimensionTable table = DimensionTable.open(config)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (int i = 0; i < 4; i++) {
                assertThat(table.lookup(plan, new Object[] {3L})).hasSize(1);
                assertThatThrownBy(() -> table.lookup(plan, new Object[] {15L}))
                        .as("lookup %d", i)
                        .isInstanceOf(LookupFileException.class)
                        .hasMessageContaining("page 1, key 14 comes before 13");
            }
            assertThat(pages.stats().hits()).as("page 1 served from the cache").isPositive();
        }
    }
}
