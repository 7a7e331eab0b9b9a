package dev.parquetlookup.writer;

import dev.parquetlookup.types.TimestampValue;
import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec.DecimalStorage;
import dev.parquetlookup.writer.ColumnSpec.TimeUnit;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.api.Binary;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LookupFileWriterTest {

    private static final long SEED = 20261129L;

    @TempDir Path dir;

    /** One column of every kind and physical layout, all nullable except the key. */
    static List<ColumnSpec> allTypes() {
        return List.of(
                ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                ColumnSpec.optional("b", ValueType.of(Kind.BOOLEAN)),
                ColumnSpec.optional("ti", ValueType.of(Kind.TINYINT)),
                ColumnSpec.optional("si", ValueType.of(Kind.SMALLINT)),
                ColumnSpec.optional("i", ValueType.of(Kind.INT)),
                ColumnSpec.optional("l", ValueType.of(Kind.BIGINT)),
                ColumnSpec.optional("f", ValueType.of(Kind.FLOAT)),
                ColumnSpec.optional("d", ValueType.of(Kind.DOUBLE)),
                ColumnSpec.optional("dec32", new ValueType(Kind.DECIMAL, 9, 2)),
                ColumnSpec.optional("dec64", new ValueType(Kind.DECIMAL, 18, 4)),
                ColumnSpec.optional("decfixed", new ValueType(Kind.DECIMAL, 30, 5)),
                ColumnSpec.optional("decbin", new ValueType(Kind.DECIMAL, 20, 3))
                        .withDecimalStorage(DecimalStorage.BINARY),
                ColumnSpec.optional("s", ValueType.of(Kind.STRING)),
                ColumnSpec.optional("bin", ValueType.of(Kind.BINARY)),
                ColumnSpec.optional("date", ValueType.of(Kind.DATE)),
                ColumnSpec.optional("tmillis", new ValueType(Kind.TIME, 3, 0)),
                ColumnSpec.optional("tmicros", new ValueType(Kind.TIME, 6, 0)),
                ColumnSpec.optional("tnanos", new ValueType(Kind.TIME, 9, 0)),
                ColumnSpec.optional("tsmillis", new ValueType(Kind.TIMESTAMP, 3, 0)),
                ColumnSpec.optional("tsmicros", new ValueType(Kind.TIMESTAMP, 6, 0)),
                ColumnSpec.optional("tsnanos", new ValueType(Kind.TIMESTAMP, 9, 0)),
                ColumnSpec.optional("ltz", new ValueType(Kind.TIMESTAMP_LTZ, 6, 0)),
                ColumnSpec.optional("ts96", new ValueType(Kind.TIMESTAMP, 9, 0))
                        .withTimeUnit(TimeUnit.INT96));
    }

    /** Rows sorted by k (three rows per key), every nullable column null in about 1 of 7 rows. */
    static List<Object[]> allTypesRows(int n, long seed) {
        Random r = new Random(seed);
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long ms = -2_000_000_000_000L + (long) (r.nextDouble() * 4_000_000_000_000L);
            Object[] row = {
                (long) (i / 3) - 100,
                r.nextBoolean(),
                r.nextInt(256) - 128,
                r.nextInt(65536) - 32768,
                r.nextInt(),
                r.nextLong(),
                r.nextFloat(),
                r.nextDouble(),
                BigDecimal.valueOf(r.nextInt(999_999_999) - 499_999_999L, 2),
                BigDecimal.valueOf(r.nextLong() % 999_999_999_999_999_999L, 4),
                new BigDecimal(new BigInteger(95, r).subtract(BigInteger.ONE.shiftLeft(94)), 5),
                new BigDecimal(new BigInteger(60, r).negate(), 3),
                ("s" + r.nextInt(1000) + "-é").getBytes(StandardCharsets.UTF_8),
                randomBytes(r, r.nextInt(20)),
                r.nextInt(40_000) - 20_000,
                r.nextInt(86_400_000) * 1_000_000L,
                (long) (r.nextDouble() * 86_400_000_000L) * 1_000L,
                (long) (r.nextDouble() * 86_400_000_000_000L),
                new TimestampValue(ms, 0),
                new TimestampValue(ms, r.nextInt(1000) * 1000),
                new TimestampValue(ms, r.nextInt(1_000_000)),
                new TimestampValue(ms, r.nextInt(1000) * 1000),
                new TimestampValue(ms, r.nextInt(1_000_000)),
            };
            for (int c = 1; c < row.length; c++) {
                if (r.nextInt(7) == 0) {
                    row[c] = null;
                }
            }
            rows.add(row);
        }
        return rows;
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    private static List<String> render(List<Object[]> rows) {
        return rows.stream().map(Arrays::deepToString).toList();
    }

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
            assertThat(writer.rowCount()).isEqualTo(rows.size());
        }
        return file;
    }

    @ParameterizedTest
    @EnumSource(WriterOptions.WriterVersion.class)
    void everyTypeRoundTripsWithNulls(WriterOptions.WriterVersion version) throws IOException {
        List<Object[]> rows = allTypesRows(2_500, SEED);
        WriterOptions options =
                WriterOptions.builder()
                        .rowsPerPage(100)
                        .rowsPerRowGroup(1_000)
                        .writerVersion(version)
                        .build();
        Path file = write("all.parquet", allTypes(), List.of("k"), options, rows);

        assertThat(render(ParquetTestFiles.readRows(file, allTypes())))
                .as("seed %d", SEED)
                .containsExactlyElementsOf(render(rows));
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            var schema = reader.getFooter().getFileMetaData().getSchema();
            assertThat(
                            schema.getType("k")
                                    .isRepetition(
                                            org.apache.parquet.schema.Type.Repetition.REQUIRED))
                    .isTrue();
            assertThat(schema.getType("s").toString()).isEqualTo("optional binary s (STRING)");
            assertThat(schema.getType("decfixed").toString())
                    .isEqualTo("optional fixed_len_byte_array(13) decfixed (DECIMAL(30,5))");
            assertThat(schema.getType("decbin").toString())
                    .isEqualTo("optional binary decbin (DECIMAL(20,3))");
            assertThat(schema.getType("dec32").toString())
                    .isEqualTo("optional int32 dec32 (DECIMAL(9,2))");
            assertThat(schema.getType("dec64").toString())
                    .isEqualTo("optional int64 dec64 (DECIMAL(18,4))");
            assertThat(schema.getType("tmillis").toString())
                    .isEqualTo("optional int32 tmillis (TIME(MILLIS,false))");
            assertThat(schema.getType("tsnanos").toString())
                    .isEqualTo("optional int64 tsnanos (TIMESTAMP(NANOS,false))");
            assertThat(schema.getType("ltz").toString())
                    .isEqualTo("optional int64 ltz (TIMESTAMP(MICROS,true))");
            assertThat(schema.getType("ts96").toString()).isEqualTo("optional int96 ts96");
            assertThat(schema.getType("ti").toString())
                    .isEqualTo("optional int32 ti (INTEGER(8,true))");
        }
    }

    @Test
    void defaultLayoutHasFixedRowsPerPageAndRowGroupAndNoDictionary() throws IOException {
        int n = 300_000;
        Path file = dir.resolve("seed.parquet");
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("v", ValueType.of(Kind.STRING)));
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), columns, List.of("k"), WriterOptions.defaults())) {
            for (long k = 0; k < n; k++) {
                // Repetitive values: a dictionary would be chosen if it were on.
                writer.write(new Object[] {k, "value-" + (k % 10)});
            }
        }
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            List<BlockMetaData> blocks = reader.getFooter().getBlocks();
            assertThat(blocks)
                    .extracting(BlockMetaData::getRowCount)
                    .containsExactly(131_072L, 131_072L, 37_856L);
            for (BlockMetaData block : blocks) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    // The key column, read by every lookup, is left uncompressed.
                    assertThat(chunk.getCodec())
                            .isEqualTo(
                                    chunk.getPath().toDotString().equals("k")
                                            ? CompressionCodecName.UNCOMPRESSED
                                            : CompressionCodecName.LZ4_RAW);
                    assertThat(chunk.hasDictionaryPage()).isFalse();
                    assertThat(chunk.getEncodings())
                            .doesNotContain(Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
                    OffsetIndex offsets = reader.readOffsetIndex(chunk);
                    assertThat(offsets).isNotNull();
                    assertThat(reader.readColumnIndex(chunk)).isNotNull();
                    assertThat(pageRowCounts(offsets, block.getRowCount()))
                            .allMatch(
                                    rows ->
                                            rows == WriterOptions.DEFAULT_PAGE_ROWS
                                                    || rows
                                                            == block.getRowCount()
                                                                    % WriterOptions
                                                                            .DEFAULT_PAGE_ROWS);
                    assertThat(offsets.getPageCount())
                            .isEqualTo(
                                    (int)
                                            ((block.getRowCount()
                                                            + WriterOptions.DEFAULT_PAGE_ROWS
                                                            - 1)
                                                    / WriterOptions.DEFAULT_PAGE_ROWS));
                }
            }
        }
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()))
                .as("no checksum side files")
                .containsExactly("seed.parquet");
    }

    private static List<Long> pageRowCounts(OffsetIndex offsets, long rowGroupRows) {
        List<Long> counts = new ArrayList<>();
        for (int p = 0; p < offsets.getPageCount(); p++) {
            long end =
                    p + 1 < offsets.getPageCount() ? offsets.getFirstRowIndex(p + 1) : rowGroupRows;
            counts.add(end - offsets.getFirstRowIndex(p));
        }
        return counts;
    }

    @Test
    void largeValuesDoNotCutPagesEarly() throws IOException {
        // 1,024 values of 2 KiB exceed parquet-java's default 1 MiB page size.
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.INT)),
                        ColumnSpec.required("blob", ValueType.of(Kind.BINARY)));
        Random r = new Random(SEED);
        List<Object[]> rows = new ArrayList<>();
        for (int k = 0; k < 3_000; k++) {
            rows.add(new Object[] {k, randomBytes(r, 2048)});
        }
        Path file =
                write(
                        "big.parquet",
                        columns,
                        List.of("k"),
                        WriterOptions.builder()
                                .rowsPerPage(1024)
                                .codec(WriterOptions.Codec.UNCOMPRESSED)
                                .build(),
                        rows);
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            BlockMetaData block = reader.getFooter().getBlocks().get(0);
            assertThat(pageRowCounts(reader.readOffsetIndex(block.getColumns().get(1)), 3_000))
                    .containsExactly(1024L, 1024L, 952L);
        }
    }

    @ParameterizedTest
    @EnumSource(WriterOptions.Codec.class)
    void everyCodecIsWrittenAndReadable(WriterOptions.Codec codec) throws IOException {
        List<Object[]> rows = allTypesRows(700, SEED + 1);
        Path file =
                write(
                        "codec.parquet",
                        allTypes(),
                        List.of("k"),
                        WriterOptions.builder().codec(codec).rowsPerPage(64).build(),
                        rows);
        assertThat(render(ParquetTestFiles.readRows(file, allTypes())))
                .containsExactlyElementsOf(render(rows));
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            for (ColumnChunkMetaData chunk : reader.getFooter().getBlocks().get(0).getColumns()) {
                assertThat(chunk.getCodec())
                        .isEqualTo(
                                chunk.getPath().toDotString().equals("k")
                                        ? CompressionCodecName.UNCOMPRESSED
                                        : CompressionCodecName.valueOf(codec.name()));
            }
        }
    }

    @Test
    void codecsCanBeSetPerColumnAndForTheKey() throws IOException {
        List<Object[]> rows = allTypesRows(700, SEED + 7);
        Path file =
                write(
                        "codecs.parquet",
                        allTypes(),
                        List.of("k"),
                        WriterOptions.builder()
                                .codec(WriterOptions.Codec.ZSTD)
                                .codec("k", WriterOptions.Codec.LZ4_RAW)
                                .codec("s", WriterOptions.Codec.SNAPPY)
                                .rowsPerPage(64)
                                .build(),
                        rows);
        assertThat(render(ParquetTestFiles.readRows(file, allTypes())))
                .containsExactlyElementsOf(render(rows));
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            for (ColumnChunkMetaData chunk : reader.getFooter().getBlocks().get(0).getColumns()) {
                String column = chunk.getPath().toDotString();
                CompressionCodecName expected =
                        switch (column) {
                            case "k" -> CompressionCodecName.LZ4_RAW;
                            case "s" -> CompressionCodecName.SNAPPY;
                            default -> CompressionCodecName.ZSTD;
                        };
                assertThat(chunk.getCodec()).as(column).isEqualTo(expected);
            }
        }
    }

    @Test
    void aCodecForAnUnknownColumnIsRefused() {
        assertThatThrownBy(
                        () ->
                                write(
                                        "bad.parquet",
                                        allTypes(),
                                        List.of("k"),
                                        WriterOptions.builder()
                                                .codec("nope", WriterOptions.Codec.ZSTD)
                                                .build(),
                                        List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("option codec names column 'nope'");
    }

    @Test
    void pageIndexCanBeLeftOut() throws IOException {
        List<Object[]> rows = allTypesRows(1_500, SEED + 2);
        Path file =
                write(
                        "noindex.parquet",
                        allTypes(),
                        List.of("k"),
                        WriterOptions.builder().pageIndex(false).rowsPerPage(100).build(),
                        rows);
        Path withIndex =
                write(
                        "index.parquet",
                        allTypes(),
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(100).build(),
                        rows);
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            for (ColumnChunkMetaData chunk : reader.getFooter().getBlocks().get(0).getColumns()) {
                assertThat(chunk.getColumnIndexReference()).isNull();
                assertThat(chunk.getOffsetIndexReference()).isNull();
                assertThat(reader.readColumnIndex(chunk)).isNull();
                assertThat(reader.readOffsetIndex(chunk)).isNull();
            }
        }
        assertThat(render(ParquetTestFiles.readRows(file, allTypes())))
                .containsExactlyElementsOf(render(rows));
        assertThat(Files.size(file)).as("index bytes removed").isLessThan(Files.size(withIndex));
        // The sort key is still declared.
        assertThat(ParquetTestFiles.rawFooter(file).getRow_groups().get(0).getSorting_columns())
                .containsExactly(new SortingColumn(0, false, true));
    }

    @Test
    void keyStatisticsAreNotTruncated() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("v", ValueType.of(Kind.INT)));
        List<Object[]> rows = new ArrayList<>();
        String prefix = "x".repeat(300);
        for (int i = 0; i < 500; i++) {
            rows.add(new Object[] {prefix + String.format("%05d", i), i});
        }
        Path file =
                write(
                        "long-keys.parquet",
                        columns,
                        List.of("k"),
                        WriterOptions.builder().rowsPerPage(100).build(),
                        rows);
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            ColumnChunkMetaData key = reader.getFooter().getBlocks().get(0).getColumns().get(0);
            assertThat(((Binary) key.getStatistics().genericGetMin()).toStringUsingUTF8())
                    .isEqualTo(prefix + "00000");
            assertThat(((Binary) key.getStatistics().genericGetMax()).toStringUsingUTF8())
                    .isEqualTo(prefix + "00499");
            ColumnIndex index = reader.readColumnIndex(key);
            List<String> mins =
                    index.getMinValues().stream()
                            .map(b -> StandardCharsets.UTF_8.decode(b).toString())
                            .toList();
            List<String> maxs =
                    index.getMaxValues().stream()
                            .map(b -> StandardCharsets.UTF_8.decode(b).toString())
                            .toList();
            assertThat(mins)
                    .containsExactly(
                            prefix + "00000",
                            prefix + "00100",
                            prefix + "00200",
                            prefix + "00300",
                            prefix + "00400");
            assertThat(maxs.get(4)).isEqualTo(prefix + "00499");
            assertThat(index.getBoundaryOrder().toString()).isEqualTo("ASCENDING");
        }
    }

    @Test
    void sortKeyIsDeclaredInSortingColumnsAndMetadata() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.optional("payload", ValueType.of(Kind.STRING)),
                        ColumnSpec.required("a", ValueType.of(Kind.INT)),
                        ColumnSpec.required("b", ValueType.of(Kind.STRING)));
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            rows.add(new Object[] {"p" + i, i / 10, String.format("%03d", i % 10)});
        }
        Path file =
                write(
                        "composite.parquet",
                        columns,
                        List.of("a", "b"),
                        WriterOptions.builder().rowsPerRowGroup(700).rowsPerPage(1024).build(),
                        rows);
        FileMetaData footer = ParquetTestFiles.rawFooter(file);
        assertThat(footer.getRow_groups()).hasSize(3);
        for (RowGroup rowGroup : footer.getRow_groups()) {
            assertThat(rowGroup.getSorting_columns())
                    .containsExactly(
                            new SortingColumn(1, false, true), new SortingColumn(2, false, true));
        }
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            ParquetMetadata meta = reader.getFooter();
            assertThat(meta.getFileMetaData().getKeyValueMetaData())
                    .containsEntry(LookupFileWriter.SORT_KEY_METADATA, "a,b");
            // The rewritten footer is still one parquet-java reads, page index included.
            ColumnChunkMetaData a = meta.getBlocks().get(2).getColumns().get(1);
            assertThat(reader.readOffsetIndex(a).getPageCount()).isEqualTo(1);
        }
        assertThat(render(ParquetTestFiles.readRows(file, columns)))
                .hasSize(2_000)
                .first()
                .isEqualTo(Arrays.deepToString(new Object[] {bytes("p0"), 0, bytes("000")}));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void unsortedInputIsRefusedAndThePartialFileRemoved() throws IOException {
        Path file = dir.resolve("unsorted.parquet");
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("name", ValueType.of(Kind.STRING)));
        LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), columns, List.of("id", "name"), WriterOptions.defaults());
        writer.write(new Object[] {1L, "a"});
        writer.write(new Object[] {1L, "a"}); // duplicates are fine
        writer.write(new Object[] {7L, "b"});
        assertThatThrownBy(() -> writer.write(new Object[] {5L, "zz"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Cannot write file:"
                                + file
                                + ": the input is not sorted by (id, name): row 4 has key (5,"
                                + " \"zz\"), smaller than key (7, \"b\") of row 3. Sort the rows"
                                + " by (id, name) first, or let the writer sort them with"
                                + " WriterOptions.builder().sortInput(true) (prepare --key"
                                + " does).");
        assertThatThrownBy(() -> writer.write(new Object[] {8L, "c"}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed earlier");
        writer.close();
        assertThat(file).doesNotExist();
    }

    @Test
    void badValuesAreRefusedWithTheColumnAndRowAndTheWriterStaysUsable() throws IOException {
        Path file = dir.resolve("bad.parquet");
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("id", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("price", new ValueType(Kind.DECIMAL, 5, 2)),
                        ColumnSpec.optional("ts", new ValueType(Kind.TIMESTAMP, 3, 0)));
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(), columns, List.of("id"), WriterOptions.defaults())) {
            writer.write(new Object[] {1L, new BigDecimal("1.50"), null});
            assertThatThrownBy(() -> writer.write(new Object[] {2L, null, null}))
                    .hasMessage(
                            "Cannot write row 2 to file:"
                                    + file
                                    + ": column 'price' is not nullable but the value is null:"
                                    + " declare it with ColumnSpec.optional or give a value");
            assertThatThrownBy(() -> writer.write(new Object[] {"2", new BigDecimal("1"), null}))
                    .hasMessageContaining(
                            "column 'id' (BIGINT) expects a Long but got java.lang.String 2");
            assertThatThrownBy(() -> writer.write(new Object[] {2L, new BigDecimal("1.234"), null}))
                    .hasMessageContaining(
                            "column 'price' (DECIMAL(5, 2)) cannot hold 1.234 without rounding");
            assertThatThrownBy(
                            () -> writer.write(new Object[] {2L, new BigDecimal("1234.5"), null}))
                    .hasMessageContaining("cannot hold 1234.5: it needs precision 6");
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            new Object[] {
                                                2L, BigDecimal.ONE, new TimestampValue(5, 1)
                                            }))
                    .hasMessageContaining(
                            "column 'ts' stores MILLIS but 1970-01-01T00:00:00.005000001 has a"
                                    + " fraction of a millisecond");
            assertThatThrownBy(() -> writer.write(new Object[] {2L}))
                    .hasMessageContaining("row has 1 values but the file has 3 columns");
            writer.write(new Object[] {2L, new BigDecimal("-999.99"), new TimestampValue(5, 0)});
        }
        assertThat(render(ParquetTestFiles.readRows(file, columns)))
                .containsExactly(
                        Arrays.deepToString(new Object[] {1L, new BigDecimal("1.50"), null}),
                        Arrays.deepToString(
                                new Object[] {
                                    2L, new BigDecimal("-999.99"), new TimestampValue(5, 0)
                                }));
    }

    @Test
    void invalidColumnsAndKeysAreRefused() {
        List<ColumnSpec> columns = List.of(ColumnSpec.required("id", ValueType.of(Kind.BIGINT)));
        String path = dir.resolve("x.parquet").toString();
        assertThatThrownBy(
                        () ->
                                LookupFileWriter.open(
                                        path, columns, List.of("nope"), WriterOptions.defaults()))
                .hasMessage("sort key column 'nope' is not one of the columns [id]");
        assertThatThrownBy(
                        () ->
                                LookupFileWriter.open(
                                        path, columns, List.of(), WriterOptions.defaults()))
                .hasMessageContaining("a sort key is required");
        assertThatThrownBy(
                        () ->
                                ColumnSpec.required("p", new ValueType(Kind.DECIMAL, 12, 2))
                                        .withDecimalStorage(DecimalStorage.INT32))
                .hasMessageContaining("does not fit in INT32");
        assertThatThrownBy(
                        () ->
                                LookupFileWriter.open(
                                        path,
                                        List.of(
                                                ColumnSpec.required(
                                                        "f", ValueType.of(Kind.DOUBLE))),
                                        List.of("f"),
                                        WriterOptions.defaults()))
                .hasMessageContaining("cannot be a lookup key");
        assertThat(dir.resolve("x.parquet")).doesNotExist();
    }

    @Test
    void existingFileIsKeptUnlessOverwriteIsOn() throws IOException {
        List<ColumnSpec> columns = List.of(ColumnSpec.required("id", ValueType.of(Kind.BIGINT)));
        List<Object[]> one = List.<Object[]>of(new Object[] {1L});
        Path file = write("exists.parquet", columns, List.of("id"), WriterOptions.defaults(), one);
        assertThatThrownBy(
                        () ->
                                LookupFileWriter.open(
                                        file.toString(),
                                        columns,
                                        List.of("id"),
                                        WriterOptions.defaults()))
                .hasMessageContaining("already exists")
                .hasMessageContaining("overwrite(true)");
        try (LookupFileWriter writer =
                LookupFileWriter.open(
                        file.toString(),
                        columns,
                        List.of("id"),
                        WriterOptions.builder().overwrite(true).build())) {
            writer.write(new Object[] {2L});
            writer.write(new Object[] {3L});
        }
        assertThat(ParquetTestFiles.readRows(file, columns)).hasSize(2);
    }

    @Test
    void writerV2WritesDataPageV2WithDeltaEncodingsAndByteStreamSplit() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.optional("s", ValueType.of(Kind.STRING)),
                        ColumnSpec.optional("d", ValueType.of(Kind.DOUBLE)));
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 1_000; k++) {
            rows.add(new Object[] {k, k % 5 == 0 ? null : "v" + k, k * 0.5});
        }
        Path file =
                write(
                        "v2.parquet",
                        columns,
                        List.of("k"),
                        WriterOptions.builder()
                                .writerVersion(WriterOptions.WriterVersion.V2)
                                .byteStreamSplit("d")
                                .rowsPerPage(256)
                                .build(),
                        rows);
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            List<ColumnChunkMetaData> chunks = reader.getFooter().getBlocks().get(0).getColumns();
            assertThat(chunks.get(0).getEncodings()).contains(Encoding.DELTA_BINARY_PACKED);
            assertThat(chunks.get(1).getEncodings()).contains(Encoding.DELTA_BYTE_ARRAY);
            assertThat(chunks.get(2).getEncodings()).contains(Encoding.BYTE_STREAM_SPLIT);
            PageReadStore rowGroup = reader.readNextRowGroup();
            for (ColumnDescriptor column :
                    reader.getFooter().getFileMetaData().getSchema().getColumns()) {
                PageReader pages = rowGroup.getPageReader(column);
                int count = 0;
                for (DataPage page = pages.readPage(); page != null; page = pages.readPage()) {
                    assertThat(page).isInstanceOf(DataPageV2.class);
                    count++;
                }
                assertThat(count).isEqualTo(4);
            }
        }
        assertThat(render(ParquetTestFiles.readRows(file, columns)))
                .containsExactlyElementsOf(
                        render(
                                rows.stream()
                                        .map(
                                                r ->
                                                        new Object[] {
                                                            r[0],
                                                            r[1] == null
                                                                    ? null
                                                                    : bytes((String) r[1]),
                                                            r[2]
                                                        })
                                        .toList()));
    }

    @Test
    void dictionaryCanBeTurnedOnPerColumn() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                        ColumnSpec.required("country", ValueType.of(Kind.STRING)),
                        ColumnSpec.required("city", ValueType.of(Kind.STRING)));
        List<Object[]> rows = new ArrayList<>();
        for (long k = 0; k < 1_000; k++) {
            rows.add(new Object[] {k, "c" + (k % 3), "x" + (k % 4)});
        }
        Path file =
                write(
                        "dict.parquet",
                        columns,
                        List.of("k"),
                        WriterOptions.builder().dictionary("country", true).build(),
                        rows);
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            List<ColumnChunkMetaData> chunks = reader.getFooter().getBlocks().get(0).getColumns();
            assertThat(chunks.get(0).hasDictionaryPage()).isFalse();
            assertThat(chunks.get(1).hasDictionaryPage()).isTrue();
            assertThat(chunks.get(2).hasDictionaryPage()).isFalse();
        }
    }

    @Test
    void stringValuesMayBeGivenAsJavaStrings() throws IOException {
        List<ColumnSpec> columns =
                List.of(
                        ColumnSpec.required("k", ValueType.of(Kind.STRING)),
                        ColumnSpec.required("n", ValueType.of(Kind.INT)));
        List<Object[]> rows =
                Stream.of("a", "b", "é").map(s -> new Object[] {s, s.length()}).toList();
        Path file = write("strings.parquet", columns, List.of("k"), WriterOptions.defaults(), rows);
        assertThat(render(ParquetTestFiles.readRows(file, columns)))
                .containsExactly(
                        Arrays.deepToString(new Object[] {bytes("a"), 1}),
                        Arrays.deepToString(new Object[] {bytes("b"), 1}),
                        Arrays.deepToString(new Object[] {bytes("é"), 1}));
        // Unsigned byte order: "é" (0xC3 0xA9) sorts after "b", as Parquet statistics order it.
        assertThat(ByteBuffer.wrap(bytes("é")).get(0) & 0xFF).isGreaterThan('b');
    }
}
