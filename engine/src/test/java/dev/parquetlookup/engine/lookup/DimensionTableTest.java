package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Core lookup behaviour on small hand-made files; the randomized suite covers the breadth. */
class DimensionTableTest {

    @TempDir Path dir;

    private static final List<ColumnSpec> KV =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.optional("v", ValueType.of(Kind.STRING)));

    private Path write(
            String name,
            List<ColumnSpec> columns,
            List<String> key,
            WriterOptions options,
            List<Object[]> rows)
            throws IOException {
        Path file = dir.resolve(name);
        try (LookupFileWriter writer =
                LookupFileWriter.open(file.toString(), columns, key, options)) {
            for (Object[] row : rows) {
                writer.write(row);
            }
        }
        return file;
    }

    private static DimensionTable open(Path path) throws IOException {
        return DimensionTable.open(
                TableConfig.builder(path.toString())
                        .metadataCache(new MetadataCache(1 << 20))
                        .build());
    }

    private static String str(Object bytes) {
        return bytes == null ? null : new String((byte[]) bytes, StandardCharsets.UTF_8);
    }

    /** More files than open threads: all answer; a damaged one fails the open, closing the rest. */
    @Test
    void manyFilesOpenInParallelAndAFailureClosesEveryOpenedFile() throws IOException {
        int files = DimensionTable.OPEN_PARALLELISM * 2 + 3;
        Path table = dir.resolve("t");
        Files.createDirectories(table);
        for (int f = 0; f < files; f++) {
            List<Object[]> rows = new ArrayList<>();
            for (long k = 0; k < 50; k++) {
                rows.add(new Object[] {f * 100L + k, "f" + f + "-" + k});
            }
            write(
                    String.format("t/part-%03d.parquet", f),
                    KV,
                    List.of("k"),
                    WriterOptions.builder().rowsPerPage(10).build(),
                    rows);
        }
        try (DimensionTable t = open(table)) {
            assertThat(t.files()).hasSize(files);
            LookupPlan plan = t.plan(List.of("k"), List.of("v"));
            for (int f = 0; f < files; f++) {
                assertThat(str(t.lookup(plan, new Object[] {f * 100L + 7}).get(0)[0]))
                        .isEqualTo("f" + f + "-7");
            }
        }

        Files.writeString(table.resolve("part-017.parquet"), "not parquet at all");
        AtomicInteger openSources = new AtomicInteger();
        FileStore counting =
                new ForwardingFileStore(HadoopFileStore.create(Map.of())) {
                    @Override
                    public RangeSource open(FileId file) throws IOException {
                        RangeSource source = super.open(file);
                        openSources.incrementAndGet();
                        return new RangeSource() {
                            @Override
                            public FileId file() {
                                return source.file();
                            }

                            @Override
                            public void readFully(
                                    long position, byte[] buffer, int offset, int length)
                                    throws IOException {
                                source.readFully(position, buffer, offset, length);
                            }

                            @Override
                            public void close() throws IOException {
                                openSources.decrementAndGet();
                                source.close();
                            }
                        };
                    }
                };
        assertThatThrownBy(
                        () ->
                                DimensionTable.open(
                                        TableConfig.builder(table.toString())
                                                .metadataCache(new MetadataCache(1 << 20))
                                                .build(),
                                        counting))
                .hasMessageContaining("part-017.parquet");
        assertThat(openSources).hasValue(0);
    }

    @Test
    void findsEveryKeyAndReadsOnlyTwoPages() throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (long k = 1; k <= 5000; k++) {
            rows.add(new Object[] {k * 2, "v" + k});
        }
        WriterOptions options =
                WriterOptions.builder().rowsPerRowGroup(1000).rowsPerPage(100).build();
        Path file = write("a.parquet", KV, List.of("k"), options, rows);
        try (DimensionTable table = open(file)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v", "k"));
            for (long k = 1; k <= 5000; k++) {
                List<Object[]> found = table.lookup(plan, new Object[] {k * 2});
                assertThat(found).hasSize(1);
                assertThat(str(found.get(0)[0])).isEqualTo("v" + k);
                assertThat(found.get(0)[1]).isEqualTo(k * 2);
            }
            long bytes = table.readStatistics().bytesRead();
            long reads = table.readStatistics().readRequests();
            assertThat(table.lookup(plan, new Object[] {4000L})).hasSize(1);
            assertThat(table.readStatistics().readRequests() - reads).isEqualTo(2);
            assertThat(table.readStatistics().bytesRead() - bytes).isLessThan(4000);
            // misses: below, above, between (odd keys fall inside pages: one key page read)
            reads = table.readStatistics().readRequests();
            assertThat(table.lookup(plan, new Object[] {0L})).isEmpty();
            assertThat(table.lookup(plan, new Object[] {10_001L})).isEmpty();
            assertThat(table.readStatistics().readRequests() - reads).isZero();
            assertThat(table.lookup(plan, new Object[] {3L})).isEmpty();
            assertThat(table.readStatistics().readRequests() - reads).isEqualTo(1);
        }
    }

    @Test
    void returnsDuplicatesAcrossPagesAndRowGroups() throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            rows.add(new Object[] {1L, "a" + i});
        }
        for (int i = 0; i < 250; i++) {
            rows.add(new Object[] {7L, i % 3 == 0 ? null : "b" + i});
        }
        rows.add(new Object[] {9L, "c"});
        WriterOptions options = WriterOptions.builder().rowsPerRowGroup(64).rowsPerPage(8).build();
        Path file = write("dup.parquet", KV, List.of("k"), options, rows);
        try (DimensionTable table = open(file)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            List<Object[]> sevens = table.lookup(plan, new Object[] {7L});
            assertThat(sevens).hasSize(250);
            for (int i = 0; i < 250; i++) {
                assertThat(str(sevens.get(i)[0])).isEqualTo(i % 3 == 0 ? null : "b" + i);
            }
            assertThat(table.lookup(plan, new Object[] {1L})).hasSize(50);
            assertThat(table.lookup(plan, new Object[] {9L})).hasSize(1);
            assertThat(table.lookup(plan, new Object[] {8L})).isEmpty();
        }
    }

    @Test
    void compositeKeyAndPrefix() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("g", ValueType.of(Kind.STRING)),
                        ColumnSpec.required("n", ValueType.of(Kind.INT)),
                        ColumnSpec.optional("x", ValueType.of(Kind.DOUBLE)));
        List<Object[]> rows = new ArrayList<>();
        for (String g : List.of("alpha", "beta", "gamma")) {
            for (int n = 0; n < 40; n++) {
                rows.add(new Object[] {g, n / 2, (double) n});
            }
        }
        WriterOptions options =
                WriterOptions.builder()
                        .rowsPerRowGroup(50)
                        .rowsPerPage(7)
                        .codec(WriterOptions.Codec.ZSTD)
                        .build();
        Path file = write("c.parquet", columns, List.of("g", "n"), options, rows);
        try (DimensionTable table = open(file)) {
            assertThat(table.sortKey()).containsExactly("g", "n");
            LookupPlan full = table.plan(List.of("g", "n"), List.of("x"));
            List<Object[]> found = table.lookup(full, new Object[] {"beta", 5});
            assertThat(found).extracting(r -> r[0]).containsExactly(10.0, 11.0);
            assertThat(table.lookup(full, new Object[] {"beta", 20})).isEmpty();
            assertThat(table.lookup(full, new Object[] {"delta", 1})).isEmpty();
            LookupPlan prefix = table.plan(List.of("g"), List.of("n"));
            assertThat(table.lookup(prefix, new Object[] {"gamma"})).hasSize(40);
        }
    }

    @Test
    void directoryOfFilesWithOverlappingRanges() throws IOException {
        Path sub = dir.resolve("table");
        Files.createDirectories(sub);
        for (int f = 0; f < 3; f++) {
            List<Object[]> rows = new ArrayList<>();
            for (long k = f * 10; k < f * 10 + 15; k++) {
                rows.add(new Object[] {k, "f" + f});
            }
            write("table/part-" + f + ".parquet", KV, List.of("k"), WriterOptions.defaults(), rows);
        }
        try (DimensionTable table = open(sub)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            assertThat(table.lookup(plan, new Object[] {12L}))
                    .extracting(r -> str(r[0]))
                    .containsExactlyInAnyOrder("f0", "f1");
            assertThat(table.lookup(plan, new Object[] {29L}))
                    .extracting(r -> str(r[0]))
                    .containsExactly("f2");
            assertThat(table.files()).hasSize(3);
        }
    }

    @Test
    void dictionaryPagesAndWalkedChunksAreReadOncePerLookup() throws IOException {
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 2000; k++) {
            rows.add(new Object[] {k / 4, "v" + (k % 7)});
        }
        WriterOptions dictionaries =
                WriterOptions.builder()
                        .rowsPerPage(100)
                        .rowsPerRowGroup(1000)
                        .dictionary(true)
                        .build();
        Path withDictionaries = write("dict.parquet", KV, List.of("k"), dictionaries, rows);
        try (DimensionTable table = open(withDictionaries)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            long reads = table.readStatistics().readRequests();
            List<Object[]> found = table.lookup(plan, new Object[] {300L});
            assertThat(found).extracting(r -> str(r[1])).containsExactly("v3", "v4", "v5", "v6");
            // the row group's page index (read on the first lookup into it) + key page + key
            // dictionary + value page + value dictionary
            assertThat(table.readStatistics().readRequests() - reads).isEqualTo(5);
        }
        WriterOptions noIndex =
                WriterOptions.builder()
                        .rowsPerPage(100)
                        .rowsPerRowGroup(1000)
                        .pageIndex(false)
                        .build();
        Path withoutIndex = write("noindex.parquet", KV, List.of("k"), noIndex, rows);
        try (DimensionTable table = open(withoutIndex)) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "v"));
            // Its page index is synthesized from the page headers of a row group on the first
            // lookup into it (LazySynthesisTest): build them first, so the count is the lookup's.
            RowGroupIndexes synthesized = table.fileMetadata().get(0).rowGroupIndexes();
            assertThat(synthesized).isNotNull();
            for (int r = 0; r < synthesized.size(); r++) {
                synthesized.get(r);
            }
            long reads = table.readStatistics().readRequests();
            assertThat(table.lookup(plan, new Object[] {300L})).hasSize(4);
            // the key page once (searched, then projected) + the value page
            assertThat(table.readStatistics().readRequests() - reads).isEqualTo(2);
        }
    }

    @Test
    void leadingKeySamplesAreThePageMinimumsAsLookupKeys() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("ts", new ValueType(Kind.TIMESTAMP, 6, 0)),
                        ColumnSpec.required("amount", new ValueType(Kind.DECIMAL, 12, 2)));
        List<Object[]> rows = new ArrayList<>();
        for (long i = 0; i < 1000; i++) {
            rows.add(
                    new Object[] {
                        TimestampValue.ofEpochMicros(1_700_000_000_000_000L + i * 1_001),
                        java.math.BigDecimal.valueOf(i, 2)
                    });
        }
        WriterOptions options =
                WriterOptions.builder().rowsPerRowGroup(300).rowsPerPage(50).build();
        Path file = write("ts.parquet", columns, List.of("ts"), options, rows);
        try (DimensionTable table = open(file)) {
            List<Object> samples = table.leadingKeySamples();
            int pages = 0;
            for (var rowGroup : table.fileMetadata().get(0).rowGroups()) {
                pages += rowGroup.columns()[0].pages().pageCount();
            }
            assertThat(samples).hasSize(pages).hasSizeGreaterThan(4);
            assertThat(samples.get(0)).isEqualTo(rows.get(0)[0]);
            LookupPlan plan = table.plan(List.of("ts"), List.of("amount"));
            for (Object sample : samples) {
                assertThat(table.lookup(plan, new Object[] {sample})).hasSize(1);
            }
        }
    }
}
