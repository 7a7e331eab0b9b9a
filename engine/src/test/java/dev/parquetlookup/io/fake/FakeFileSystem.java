package dev.parquetlookup.io.fake;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

import java.io.IOException;
import java.net.URI;

/**
 * The listing side of the test-only store {@code fake://}: local files under the {@code fake}
 * scheme ({@code fake:/tmp/dim/part-0.parquet} is {@code /tmp/dim/part-0.parquet}). Its streams
 * refuse to open, so every byte a table reads must come through the store's client, {@link
 * FakeRangeReader}. Registered with the Hadoop option {@code fs.fake.impl}.
 */
public final class FakeFileSystem extends RawLocalFileSystem {

    private static final URI NAME = URI.create("fake:///");

    @Override
    public URI getUri() {
        return NAME;
    }

    @Override
    public String getScheme() {
        return "fake";
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        throw new IOException(f + ": fake:// files are read through FakeRangeReader only");
    }
}
