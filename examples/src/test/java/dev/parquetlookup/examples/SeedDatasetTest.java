package dev.parquetlookup.examples;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SeedDatasetTest {

    @TempDir Path dir;

    @Test
    void valueIsTheHexMd5OfTheDecimalKey() {
        // md5("1") and md5("10"), as printed by `printf 1 | md5sum`.
        assertThat(SeedDataset.value(1)).isEqualTo("c4ca4238a0b923820dcc509a6f75849b");
        assertThat(SeedDataset.value(10)).isEqualTo("d3d9446802a44259755d38e6d163e820");
    }

    @Test
    void theFileIsDeterministicSortedAndServesLookups() throws Exception {
        WriterOptions small =
                WriterOptions.builder().rowsPerPage(100).rowsPerRowGroup(1000).build();
        Path a = SeedDataset.write(dir.resolve("a.parquet"), 5_000, small);
        Path b = SeedDataset.write(dir.resolve("b.parquet"), 5_000, small);
        assertThat(Files.readAllBytes(a)).isEqualTo(Files.readAllBytes(b));

        try (DimensionTable table =
                DimensionTable.open(TableConfig.builder(a.toString()).build())) {
            assertThat(table.sortKey()).containsExactly("k");
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (long k : new long[] {1, 2, 99, 100, 101, 999, 1000, 1001, 4999, 5000}) {
                List<Object[]> rows = table.lookup(plan, new Object[] {k});
                assertThat(rows).hasSize(1);
                assertThat(new String((byte[]) rows.get(0)[0], StandardCharsets.US_ASCII))
                        .isEqualTo(SeedDataset.value(k));
            }
            assertThat(table.lookup(plan, new Object[] {0L})).isEmpty();
            assertThat(table.lookup(plan, new Object[] {5001L})).isEmpty();
        }
        assertThat(dir.toFile().list()).containsExactlyInAnyOrder("a.parquet", "b.parquet");
    }
}
