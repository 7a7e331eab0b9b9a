package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.HadoopFileStore;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** Rows a table version deleted (by position in their file) are never returned. */
class DeletedRowsTest {

    @TempDir Path dir;

    /**
     * The table of {@code config} with the rows at {@code deleted} (positions) of {@code file} left
     * out, as a table format's deletion vectors or position deletes hand them over.
     */
    static DimensionTable openWithDeleted(
            TableConfig config, HadoopFileStore store, FileId file, Set<Long> deleted)
            throws IOException {
        long[] positions = deleted.stream().mapToLong(Long::longValue).toArray();
        return DimensionTable.open(
                config, store, new ReadStatistics(), Map.of(file, DeletedRows.of(positions)));
    }

    /** {@code draws} random positions below {@code bound} (fewer where they repeat). */
    static TreeSet<Long> randomPositions(Random random, int draws, int bound) {
        TreeSet<Long> positions = new TreeSet<>();
        for (int i = 0; i < draws; i++) {
            positions.add((long) random.nextInt(bound));
        }
        return positions;
    }

    private static RowGroupInfo rowGroup(int ordinal, long firstRow, long rows) {
        return new RowGroupInfo(ordinal, firstRow, rows, null, null);
    }

    @Test
    void spansSplitAroundDeletedPositionsOfTheirRowGroup() {
        DeletedRows deleted = DeletedRows.of(new long[] {103, 7, 3, 3, 100, 109});
        assertThat(deleted.count()).isEqualTo(5);
        List<RowGroupInfo> groups = List.of(rowGroup(0, 0, 100), rowGroup(1, 100, 10));
        List<SortedFile.RowSpan> spans = new ArrayList<>();
        spans.add(new SortedFile.RowSpan(0, 50, 60)); // before `from`: untouched
        spans.add(new SortedFile.RowSpan(0, 0, 10));
        spans.add(new SortedFile.RowSpan(1, 0, 10));
        spans.add(new SortedFile.RowSpan(1, 0, 1)); // one deleted row: vanishes
        deleted.removeFrom(spans, 1, groups);
        assertThat(spans)
                .containsExactly(
                        new SortedFile.RowSpan(0, 50, 60),
                        new SortedFile.RowSpan(0, 0, 3),
                        new SortedFile.RowSpan(0, 4, 7),
                        new SortedFile.RowSpan(0, 8, 10),
                        new SortedFile.RowSpan(1, 1, 3),
                        new SortedFile.RowSpan(1, 4, 9));
    }

    /**
     * A file of 3 row groups and 16-row pages with runs of duplicate keys; random positions deleted
     * (seed printed): every lookup and the scan return exactly the live rows.
     */
    @Test
    void lookupsAndScansSkipDeletedRowsAcrossPagesAndRowGroups() throws IOException {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        Path file = dir.resolve("part-0.parquet");
        List<long[]> rows = new ArrayList<>(); // {key, position}
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        List.of(
                                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                                ColumnSpec.optional("v", ValueType.of(Kind.STRING))),
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(16).rowsPerRowGroup(200).build())) {
            long position = 0;
            for (long k = 0; k < 200; k++) {
                int copies = 1 + random.nextInt(4);
                for (int c = 0; c < copies; c++) {
                    writer.write(new Object[] {k, "row-" + position});
                    rows.add(new long[] {k, position++});
                }
            }
        }
        TreeSet<Long> deleted = randomPositions(random, rows.size() / 3, rows.size());
        HadoopFileStore store = HadoopFileStore.create(Map.of());
        FileId id = store.list(file.toString()).get(0);
        try (DimensionTable table =
                openWithDeleted(
                        TableConfig.builder(file.toString())
                                .metadataCache(new MetadataCache(1 << 20))
                                .build(),
                        store,
                        id,
                        deleted)) {
            assertThat(table.fileMetadata().get(0).rowGroups())
                    .as("seed %d", seed)
                    .hasSizeGreaterThan(1);
            LookupPlan plan = table.plan(List.of("k"), List.of("v"));
            for (long k = 0; k < 200; k++) {
                List<String> expected = new ArrayList<>();
                for (long[] r : rows) {
                    if (r[0] == k && !deleted.contains(r[1])) {
                        expected.add("row-" + r[1]);
                    }
                }
                List<String> got = new ArrayList<>();
                for (Object[] r : table.lookup(plan, new Object[] {k})) {
                    got.add(new String((byte[]) r[0], StandardCharsets.UTF_8));
                }
                assertThat(got).as("key %d, seed %d", k, seed).isEqualTo(expected);
            }
            List<String> scanned = new ArrayList<>();
            table.scan(plan, r -> scanned.add(new String((byte[]) r[0], StandardCharsets.UTF_8)));
            assertThat(scanned).as("seed %d", seed).hasSize(rows.size() - deleted.size());
            assertThat(scanned)
                    .doesNotContainAnyElementsOf(deleted.stream().map(p -> "row-" + p).toList());
        }
    }
}
