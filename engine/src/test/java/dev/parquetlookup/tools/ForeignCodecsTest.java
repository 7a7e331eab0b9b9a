package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.DimensionTable;
import dev.parquetlookup.engine.lookup.LookupPlan;
import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.metadata.MetadataCache;
import dev.parquetlookup.writer.ParquetTestFiles;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every codec of the Parquet format, in files from other writers: DuckDB for BROTLI, GZIP, ZSTD,
 * SNAPPY, LZ4_RAW and UNCOMPRESSED; parquet-java for the Hadoop-framed LZ4 and for LZO (through a
 * hadoop-lzo-compatible codec on the test class path). The engine looks keys up in each, and {@code
 * prepare} rewrites each (it reads pages with the engine's decompression).
 */
class ForeignCodecsTest {

    private static final int ROWS = 5_000;

    @TempDir Path dir;

    private static String value(long k) {
        return "value-" + k + "-" + "x".repeat((int) (k % 40));
    }

    private static void assertLookups(Path file) throws IOException {
        try (DimensionTable t =
                DimensionTable.open(
                        TableConfig.builder(file.toString())
                                .sortKey(List.of("k"))
                                .metadataCache(new MetadataCache(16 << 20))
                                .build())) {
            LookupPlan plan = t.plan(List.of("k"), List.of("k", "v", "amount"));
            for (long k : new long[] {0, 1, 2_047, 2_048, 3_333, ROWS - 1}) {
                List<Object[]> rows = t.lookup(plan, new Object[] {k});
                assertThat(rows).as("key %d in %s", k, file).hasSize(1);
                assertThat(new String((byte[]) rows.get(0)[1], StandardCharsets.UTF_8))
                        .isEqualTo(value(k));
                assertThat(rows.get(0)[2]).isEqualTo(BigDecimal.valueOf(k * 3, 2));
            }
            assertThat(t.lookup(plan, new Object[] {(long) ROWS})).isEmpty();
        }
    }

    private void assertPrepareRewritesIt(Path file) throws IOException {
        Path out = dir.resolve("prepared");
        ToolRunner.Result r =
                ToolRunner.run("prepare", file.toString(), out.toString(), "--key", "k");
        assertThat(r.exitCode()).as("%s", r).isZero();
        Path part = out.resolve("part-00000.parquet");
        try (ParquetFileReader reader = ParquetTestFiles.open(part)) {
            assertThat(reader.getRecordCount()).isEqualTo(ROWS);
        }
        assertLookups(part);
        ToolRunner.Result get =
                ToolRunner.run("get", file.toString(), "--key", "k", "--value", "3333");
        assertThat(get.exitCode()).as("%s", get).isZero();
        assertThat(get.out()).contains("3333\t" + value(3_333) + "\t99.99");
    }

    private static CompressionCodecName codecOf(Path file) throws IOException {
        try (ParquetFileReader reader = ParquetTestFiles.open(file)) {
            ColumnChunkMetaData v = reader.getFooter().getBlocks().get(0).getColumns().get(1);
            return v.getCodec();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"brotli", "gzip", "zstd", "snappy", "lz4", "uncompressed"})
    void duckDbFiles(String codec) throws Exception {
        Path file = dir.resolve("duck-" + codec + ".parquet");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(
                    "COPY (SELECT i::BIGINT AS k, 'value-' || i || '-' || repeat('x', (i % 40)::INTEGER)"
                            + " AS v, (i * 0.03)::DECIMAL(12,2) AS amount FROM range("
                            + ROWS
                            + ") t(i) ORDER BY k) TO '"
                            + file
                            + "' (FORMAT PARQUET, COMPRESSION '"
                            + codec
                            + "', ROW_GROUP_SIZE 2048)");
        }
        CompressionCodecName expected =
                switch (codec) {
                    case "lz4" -> CompressionCodecName.LZ4_RAW;
                    default -> CompressionCodecName.valueOf(codec.toUpperCase(Locale.ROOT));
                };
        assertThat(codecOf(file)).isEqualTo(expected);
        assertLookups(file);
        assertPrepareRewritesIt(file);
    }

    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"LZ4", "LZO"})
    void parquetJavaHadoopFramedCodecs(CompressionCodecName codec) throws Exception {
        Path file = dir.resolve("java-" + codec + ".parquet");
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        "message m { required int64 k; required binary v (STRING);"
                                + " required int64 amount (DECIMAL(12,2)); }");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(schema)
                        .withCompressionCodec(codec)
                        .withRowGroupSize(64 << 10)
                        .withPageSize(4 << 10)
                        .build()) {
            for (long k = 0; k < ROWS; k++) {
                writer.write(
                        groups.newGroup()
                                .append("k", k)
                                .append("v", value(k))
                                .append("amount", k * 3));
            }
        }
        assertThat(codecOf(file)).isEqualTo(codec);
        assertLookups(file);
        assertPrepareRewritesIt(file);
    }
}
