package dev.parquetlookup.writer;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.airlift.compress.lz4.Lz4Compressor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * Compresses the pages of one file writer's columns as LZ4_RAW blocks, into buffers it reuses.
 * parquet-java's codec makes a Hadoop compressor stream per page and reads its buffer size from a
 * Hadoop {@code Configuration} each time: with 256-row pages a third of the compression's cost
 * (measured on a DuckDB file's local form). One instance per writer, used from one thread; the
 * returned bytes are valid until the next call, as parquet-java's page writer copies them at once.
 */
final class Lz4RawPageCompressor implements CompressionCodecFactory.BytesInputCompressor {

    private final Lz4Compressor lz4 = new Lz4Compressor();
    private final Input input = new Input();
    private byte[] output = new byte[0];

    /** A byte stream whose array is read in place. */
    private static final class Input extends ByteArrayOutputStream {
        byte[] array() {
            return buf;
        }
    }

    @Override
    public BytesInput compress(BytesInput bytes) throws IOException {
        input.reset();
        bytes.writeAllTo(input);
        int length = input.size();
        int max = lz4.maxCompressedLength(length);
        if (output.length < max) {
            output = new byte[Math.max(max, output.length * 2)];
        }
        int n = lz4.compress(input.array(), 0, length, output, 0, output.length);
        return BytesInput.from(output, 0, n);
    }

    @Override
    public CompressionCodecName getCodecName() {
        return CompressionCodecName.LZ4_RAW;
    }

    @Override
    public void release() {}
}
