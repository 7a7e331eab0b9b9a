package dev.parquetlookup.metadata;

import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetadataReaderTest {

    @TempDir Path dir;

    private Path write(String name, long rows, WriterOptions options) throws IOException {
        Path file = dir.resolve(name);
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("v", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("d", ValueType.of(Kind.DOUBLE)));
        try (LookupFileWriter writer =
                LookupFileWriter.open(file.toString(), columns, List.of("k"), options)) {
            for (long k = 0; k < rows; k++) {
                writer.write(
                        new Object[] {
                            k, "value-" + k * 7919 % 100_003, k % 5 == 0 ? null : k * 0.5
                        });
            }
        }
        return file;
    }

    private static FileMetadata read(Path file, List<String> sortKey, ReadStatistics stats)
            throws IOException {
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source =
                        new CountingRangeSource(store.open(store.stat(file.toString())), stats)) {
            return MetadataReader.read(source, sortKey);
        }
    }

    @Test
    void readsFooterAndPageIndexInAtMostThreeReadsAndStaysSmall() throws IOException {
        Path file =
                write(
                        "big.parquet",
                        300_000,
                        WriterOptions.builder().rowsPerRowGroup(65_536).rowsPerPage(1024).build());
        ReadStatistics stats = new ReadStatistics();
        FileMetadata meta = read(file, List.of(), stats);
        assertThat(meta.sortKey()).containsExactly("k");
        assertThat(meta.declaredSortKey()).containsExactly("k");
        assertThat(meta.rowCount()).isEqualTo(300_000);
        assertThat(meta.rowGroups()).hasSize(5);
        assertThat(meta.hasPageIndex()).isTrue();
        RowGroupInfo first = meta.rowGroups().get(0);
        assertThat(first.columns()[0].pages().pageCount()).isEqualTo(64);
        assertThat(first.keyPages()[0].size()).isEqualTo(64);
        // tail, then the index region (the footer fits in the tail)
        assertThat(stats.readRequests()).isLessThanOrEqualTo(2);
        assertThat(meta.retainedBytes()).isLessThan(Files.size(file) / 100);
        assertThat(meta.rowGroupKeys().min(0)).isEqualTo(0L);
        assertThat(meta.rowGroupKeys().max(4)).isEqualTo(299_999L);
    }

    @Test
    void refusesAConfiguredSortKeyThatContradictsTheFile() throws IOException {
        Path file = write("k.parquet", 10, WriterOptions.defaults());
        assertThatThrownBy(() -> read(file, List.of("v"), new ReadStatistics()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("k.parquet")
                .hasMessageContaining("declares sort key [k]")
                .hasMessageContaining("Set 'sort-key' to k");
    }

    @Test
    void unknownSortKeyColumnNamesTheColumns() throws IOException {
        Path file = write("k.parquet", 10, WriterOptions.builder().pageIndex(false).build());
        assertThatThrownBy(() -> read(file, List.of("missing"), new ReadStatistics()))
                .isInstanceOf(LookupFileException.class)
                .hasMessageContaining("has no column 'missing'")
                .hasMessageContaining("[k, v, d]");
    }

    @Test
    void cacheLoadsOncePerFileVersion() throws IOException {
        Path file = write("c.parquet", 100, WriterOptions.defaults());
        MetadataCache cache = new MetadataCache(1 << 20);
        AtomicInteger loads = new AtomicInteger();
        FileId v1 = new FileId(file.toUri().toString(), Files.size(file), 1);
        MetadataCache.Loader loader =
                () -> {
                    loads.incrementAndGet();
                    return read(file, List.of(), new ReadStatistics());
                };
        FileMetadata a = cache.get(v1, List.of(), loader);
        assertThat(cache.get(v1, List.of(), loader)).isSameAs(a);
        assertThat(loads).hasValue(1);
        FileId v2 = new FileId(v1.path(), v1.length(), 2); // rewritten: new modification time
        cache.get(v2, List.of(), loader);
        assertThat(loads).hasValue(2);
        MetadataCache.Stats stats = cache.stats();
        assertThat(stats.hits()).isEqualTo(1);
        assertThat(stats.misses()).isEqualTo(2);
        assertThat(stats.entries()).isEqualTo(2);
        assertThat(stats.bytes()).isPositive();
        cache.invalidate(v1);
        assertThat(cache.stats().entries()).isEqualTo(1);
    }
}
