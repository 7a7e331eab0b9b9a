package dev.parquetlookup.tools;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import org.apache.hadoop.conf.Configuration;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Parquet files as other writers make them: parquet-java's defaults (20,000-row pages, dictionary
 * on, SNAPPY), in any row order, no sort key declared.
 */
final class ForeignFiles {

    static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType(
                    "message m { required int64 k; optional binary v (STRING);"
                            + " optional int32 d (DATE); optional int64 ts (TIMESTAMP(MICROS,true));"
                            + " optional fixed_len_byte_array(9) amount (DECIMAL(20,2)); }");

    private ForeignFiles() {}

    /** Rows {k, v, d, ts, amount} with k from {@code keys}; v null when k % 11 == 0. */
    static void write(Path file, List<Long> keys) throws IOException {
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
                        .withConf(new Configuration())
                        .withType(SCHEMA)
                        .withCompressionCodec(CompressionCodecName.SNAPPY)
                        .build()) {
            for (long k : keys) {
                Group g = groups.newGroup().append("k", k);
                if (k % 11 != 0) {
                    g.append("v", "value-" + k);
                }
                g.append("d", (int) (k % 20_000));
                g.append("ts", k * 1_000_001L);
                byte[] amount = new byte[9];
                java.math.BigInteger unscaled = java.math.BigInteger.valueOf(k * 7 - 1000);
                byte[] minimal = unscaled.toByteArray();
                java.util.Arrays.fill(amount, (byte) (unscaled.signum() < 0 ? 0xFF : 0));
                System.arraycopy(minimal, 0, amount, 9 - minimal.length, minimal.length);
                g.append("amount", org.apache.parquet.io.api.Binary.fromConstantByteArray(amount));
                writer.write(g);
            }
        }
    }
}
