package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.metadata.RowGroupIndexes;
import dev.parquetlookup.testing.ColumnSpec;
import dev.parquetlookup.testing.ColumnSpec.Storage;
import dev.parquetlookup.testing.ParquetJavaFiles;
import dev.parquetlookup.testing.Values;
import dev.parquetlookup.testing.WriterOptions;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;

import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a lookup costs, seen through {@link DimensionTable#readStatistics()}: once a file's metadata
 * is cached a lookup reads exactly the key page plus one page per projected column (sizes from the
 * file's own OffsetIndex, read here with parquet-java), misses read at most one key page, and a
 * rewritten file is never answered from stale metadata.
 */
class MetadataReuseTest {

    private static final int ROWS = 5_000;
    private static final int ROWS_PER_PAGE = 100;
    private static final int ROWS_PER_ROW_GROUP = 1_000;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    new ColumnSpec("k", ValueType.of(Kind.BIGINT), Storage.PLAIN, false),
                    new ColumnSpec("s", ValueType.of(Kind.STRING), Storage.PLAIN, true),
                    new ColumnSpec("d", ValueType.of(Kind.DOUBLE), Storage.PLAIN, false));

    @TempDir Path tmp;

    private Path file;
    private final MetadataCache cache = new MetadataCache(16 << 20);

    /** Sizes of every page, per column: {@code pageSize[column][row] }. */
    private int[][] pageSizeOfRow;

    @BeforeEach
    void writeFile() throws IOException {
        file = tmp.resolve("t.parquet");
        write(file, "s-", ROWS);
        pageSizeOfRow = pageSizes(file);
    }

    /** Keys 0, 2, 4, ...: odd keys fall between rows, pages and row groups. */
    private static void write(Path file, String prefix, int rows) throws IOException {
        write(file, prefix, rows, CompressionCodecName.LZ4_RAW);
    }

    private static void write(Path file, String prefix, int rows, CompressionCodecName codec)
            throws IOException {
        Random r = new Random(7);
        List<Object[]> data = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            String s = prefix + i + "-" + "x".repeat(r.nextInt(40));
            data.add(new Object[] {2L * i, s.getBytes(StandardCharsets.UTF_8), i / 3.0});
        }
        WriterOptions options =
                WriterOptions.defaults()
                        .withCodec(codec)
                        .withDictionary(false)
                        .withRowsPerPage(ROWS_PER_PAGE)
                        .withRowsPerRowGroup(ROWS_PER_ROW_GROUP);
        ParquetJavaFiles.write(file, COLUMNS, options, data);
    }

    /** For each column and row, the compressed size (header included) of the page holding it. */
    private static int[][] pageSizes(Path file) throws IOException {
        int[][] sizes = new int[COLUMNS.size()][ROWS];
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            long base = 0;
            for (BlockMetaData block : reader.getRowGroups()) {
                for (int c = 0; c < COLUMNS.size(); c++) {
                    OffsetIndex pages = reader.readOffsetIndex(block.getColumns().get(c));
                    for (int p = 0; p < pages.getPageCount(); p++) {
                        long last = pages.getLastRowIndex(p, block.getRowCount());
                        for (long row = pages.getFirstRowIndex(p); row <= last; row++) {
                            sizes[c][(int) (base + row)] = pages.getCompressedPageSize(p);
                        }
                    }
                }
                base += block.getRowCount();
            }
        }
        return sizes;
    }

    private TableConfig config(Path path) {
        return TableConfig.builder(path.toString())
                .sortKey(List.of("k"))
                .metadataCache(cache)
                .build();
    }

    private record Cost(long bytes, long requests) {}

    private static Cost cost(DimensionTable table, LookupPlan plan, long key, List<Object[]> out)
            throws IOException {
        ReadStatistics stats = table.readStatistics();
        long bytes = stats.bytesRead();
        long requests = stats.readRequests();
        out.addAll(table.lookup(plan, new Object[] {key}));
        return new Cost(stats.bytesRead() - bytes, stats.readRequests() - requests);
    }

    /**
     * Reads every row group's page index (read lazily, on the first lookup into a row group: see
     * {@link LazyPageIndexTest}), so the costs below are those of lookups into known row groups.
     */
    private static void readIndexes(DimensionTable table) {
        for (FileMetadata meta : table.fileMetadata()) {
            RowGroupIndexes rgs = meta.rowGroupIndexes();
            for (int r = 0; rgs != null && r < rgs.size(); r++) {
                rgs.get(r);
            }
        }
    }

    @Test
    void aLookupAfterTheFirstReadsTheKeyPageAndOnePagePerProjectedColumn() throws IOException {
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("s", "d"));
            cost(table, plan, 10, new ArrayList<>()); // the file's first lookup: may load metadata
            readIndexes(table);
            for (int row : new int[] {0, 99, 100, 999, 1000, 1234, 2550, 4999}) {
                List<Object[]> found = new ArrayList<>();
                Cost cost = cost(table, plan, 2L * row, found);
                assertThat(found).as("row %d", row).hasSize(1);
                assertThat(Values.describe(found.get(0)[1])).isEqualTo(row / 3.0 + "d");
                long expected =
                        pageSizeOfRow[0][row] + pageSizeOfRow[1][row] + pageSizeOfRow[2][row];
                assertThat(cost)
                        .as("key %d: key page + s page + d page", 2L * row)
                        .isEqualTo(new Cost(expected, 3));
            }
        }
    }

    @Test
    void projectingTheKeyColumnReusesTheKeyPage() throws IOException {
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("k", "s"));
            cost(table, plan, 10, new ArrayList<>());
            readIndexes(table);
            int row = 3210;
            List<Object[]> found = new ArrayList<>();
            Cost cost = cost(table, plan, 2L * row, found);
            assertThat(found).extracting(r -> r[0]).containsExactly(2L * row);
            assertThat(cost).isEqualTo(new Cost(pageSizeOfRow[0][row] + pageSizeOfRow[1][row], 2));
        }
    }

    @Test
    void missesReadAtMostTheOneKeyPage() throws IOException {
        try (DimensionTable table = DimensionTable.open(config(file))) {
            LookupPlan plan = table.plan(List.of("k"), List.of("s", "d"));
            cost(table, plan, 10, new ArrayList<>());
            readIndexes(table);
            List<Object[]> found = new ArrayList<>();

            // Outside the file's key range: the footer's statistics exclude it, no read at all.
            assertThat(cost(table, plan, -1, found)).as("below min").isEqualTo(new Cost(0, 0));
            assertThat(cost(table, plan, Long.MIN_VALUE, found)).isEqualTo(new Cost(0, 0));
            assertThat(cost(table, plan, 2L * ROWS, found))
                    .as("above max")
                    .isEqualTo(new Cost(0, 0));
            assertThat(cost(table, plan, Long.MAX_VALUE, found)).isEqualTo(new Cost(0, 0));

            // Between two pages (or row groups): at most the one key page that could hold it.
            for (int lastRowOfPage : new int[] {99, 999, 1099, 3999}) {
                Cost between = cost(table, plan, 2L * lastRowOfPage + 1, found);
                assertThat(between.requests())
                        .as("between pages after row %d", lastRowOfPage)
                        .isLessThanOrEqualTo(1);
                assertThat(between.bytes()).isLessThanOrEqualTo(pageSizeOfRow[0][lastRowOfPage]);
            }

            // Between two keys inside a page: exactly that key page, no value page.
            for (int row : new int[] {0, 50, 1234, 4998}) {
                assertThat(cost(table, plan, 2L * row + 1, found))
                        .as("between keys inside the page of row %d", row)
                        .isEqualTo(new Cost(pageSizeOfRow[0][row], 1));
            }
            assertThat(found).isEmpty();
        }
    }

    @Test
    void aSecondTableOnTheSameFileReadsNoMetadata() throws IOException {
        try (DimensionTable first = DimensionTable.open(config(file))) {
            first.lookup(first.plan(List.of("k"), List.of("s")), new Object[] {10L});
            assertThat(first.readStatistics().bytesRead()).isPositive();
        }
        try (DimensionTable second = DimensionTable.open(config(file))) {
            assertThat(second.readStatistics().bytesRead())
                    .as("open with cached metadata")
                    .isZero();
            LookupPlan plan = second.plan(List.of("k"), List.of("s"));
            int row = 777;
            assertThat(cost(second, plan, 2L * row, new ArrayList<>()))
                    .as("first lookup of the second table")
                    .isEqualTo(new Cost(pageSizeOfRow[0][row] + pageSizeOfRow[1][row], 2));
        }
    }

    @Test
    void aRewrittenFileIsNeverAnsweredFromStaleMetadata() throws IOException {
        try (DimensionTable table = DimensionTable.open(config(file))) {
            assertThat(string(table, 8)).startsWith("s-4-");
        }
        // A new version with another length.
        write(file, "longer-prefix-", ROWS + 123, CompressionCodecName.UNCOMPRESSED);
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 10_000));
        try (DimensionTable table = DimensionTable.open(config(file))) {
            assertThat(string(table, 8)).startsWith("longer-prefix-4-");
            assertThat(string(table, 2L * (ROWS + 100)))
                    .startsWith("longer-prefix-" + (ROWS + 100));
        }
        // A new version of the same length: only the modification time tells it apart.
        long length = Files.size(file);
        write(file, "LONGER-PREFIX-", ROWS + 123, CompressionCodecName.UNCOMPRESSED);
        assertThat(Files.size(file)).as("same length as the previous version").isEqualTo(length);
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 20_000));
        try (DimensionTable table = DimensionTable.open(config(file))) {
            assertThat(string(table, 8)).startsWith("LONGER-PREFIX-4-");
        }
    }

    private static String string(DimensionTable table, long key) throws IOException {
        List<Object[]> rows =
                table.lookup(table.plan(List.of("k"), List.of("s")), new Object[] {key});
        assertThat(rows).hasSize(1);
        return new String((byte[]) rows.get(0)[0], StandardCharsets.UTF_8);
    }
}
