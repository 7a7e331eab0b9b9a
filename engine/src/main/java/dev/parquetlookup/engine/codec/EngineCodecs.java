package dev.parquetlookup.engine.codec;

import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * parquet-java's reader with the engine's page decompression ({@link Decompression}) instead of
 * Hadoop's codec classes, so {@code prepare} and the key index builder read every file the engine
 * reads: BROTLI and LZO included, for which Hadoop has no codec on the class path.
 */
public final class EngineCodecs implements CompressionCodecFactory {

    private EngineCodecs() {}

    /** Read options whose pages are decompressed by the engine's code. */
    public static ParquetReadOptions readOptions() {
        return ParquetReadOptions.builder().withCodecFactory(new EngineCodecs()).build();
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        throw new UnsupportedOperationException("reading only");
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return new BytesInputDecompressor() {
            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize)
                    throws IOException {
                // A page read from a chunk is a slice of a heap buffer: read in place, no copy.
                ByteBuffer in = bytes.toByteBuffer();
                if (!in.hasArray()) {
                    byte[] copy = new byte[in.remaining()];
                    in.duplicate().get(copy);
                    in = ByteBuffer.wrap(copy);
                }
                return BytesInput.from(
                        Decompression.decompress(
                                codec,
                                in.array(),
                                in.arrayOffset() + in.position(),
                                in.remaining(),
                                uncompressedSize));
            }

            @Override
            public void decompress(
                    ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                    throws IOException {
                byte[] in = new byte[compressedSize];
                input.duplicate().get(in);
                output.put(
                        Decompression.decompress(codec, in, 0, compressedSize, uncompressedSize));
            }

            @Override
            public void release() {}
        };
    }

    @Override
    public void release() {}
}
