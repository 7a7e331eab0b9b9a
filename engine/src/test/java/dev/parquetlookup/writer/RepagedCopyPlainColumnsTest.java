package dev.parquetlookup.writer;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RepagedCopy}'s own reading of flat PLAIN chunks ({@link PlainFlatColumn}): a parquet-java
 * file without dictionaries, in data pages V1 and V2, with required and optional columns of every
 * physical type (mixed with chunks parquet-java's column reader reads) (nulls, empty strings,
 * several pages and row groups), is copied, and parquet-java's record reader reads the same records
 * from both.
 */
class RepagedCopyPlainColumnsTest {

    private static final long SEED = 27;

    @TempDir Path tmp;

    @ParameterizedTest
    @EnumSource(ParquetProperties.WriterVersion.class)
    void copiesPlainFlatColumnsValueForValue(ParquetProperties.WriterVersion version)
            throws Exception {
        MessageType schema =
                MessageTypeParser.parseMessageType(
                        "message m { required int64 id; optional int32 i; optional float f;"
                                + " optional double d; optional binary s (STRING);"
                                + " required binary r; optional fixed_len_byte_array(3) x;"
                                + " optional int96 t; optional boolean b; }");
        Path source = tmp.resolve("plain-" + version + ".parquet");
        Random random = new Random(SEED);
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w =
                ExampleParquetWriter.builder(new LocalOutputFile(source))
                        .withType(schema)
                        .withDictionaryEncoding(false)
                        .withWriterVersion(version)
                        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                        .withPageRowCountLimit(7_000)
                        .withRowGroupRowCountLimit(20_000)
                        .build()) {
            for (int row = 0; row < 50_000; row++) {
                Group g = groups.newGroup().append("id", (long) row);
                if (random.nextInt(5) != 0) {
                    g.append("i", random.nextInt());
                    g.append("f", random.nextFloat());
                    g.append("d", random.nextDouble());
                    g.append("s", "v" + random.nextInt(row + 1));
                    g.append("x", Binary.fromConstantByteArray(new byte[] {1, (byte) row, 3}));
                    g.append("t", Binary.fromConstantByteArray(new byte[12]));
                    g.append("b", random.nextBoolean());
                }
                g.append("r", row % 11 == 0 ? "" : "name-" + row);
                w.write(g);
            }
        }
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(source))) {
            List<BlockMetaData> blocks = reader.getRowGroups();
            assertThat(blocks).hasSizeGreaterThan(1);
            // V1: every column but the BOOLEAN one is read by PlainFlatColumn; V2 writes DELTA
            // encodings for integers and byte arrays, read by parquet-java's column reader.
            Set<String> plain =
                    version == ParquetProperties.WriterVersion.PARQUET_1_0
                            ? Set.of("id", "i", "f", "d", "s", "r", "x", "t")
                            : Set.of("f", "d", "t");
            for (int c = 0; c < schema.getColumns().size(); c++) {
                ColumnChunkMetaData chunk = blocks.get(0).getColumns().get(c);
                String name = chunk.getPath().toDotString();
                assertThat(PlainFlatColumn.fits(schema.getColumns().get(c), chunk))
                        .as(name)
                        .isEqualTo(plain.contains(name));
            }
        }
        Path copy = tmp.resolve("copy-" + version + ".parquet");
        RepagedCopy.Result result =
                RepagedCopy.copy(
                        new LocalInputFile(source),
                        ParquetReadOptions.builder().build(),
                        new LocalOutputFile(copy),
                        Set.of("id"),
                        WriterOptions.defaults(),
                        Map.of());
        assertThat(result.rows()).isEqualTo(50_000);
        assertThat(RepagedCopyTest.records(copy)).isEqualTo(RepagedCopyTest.records(source));
    }
}
