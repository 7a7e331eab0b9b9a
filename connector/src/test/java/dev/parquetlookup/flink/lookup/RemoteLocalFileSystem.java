package dev.parquetlookup.flink.lookup;

import org.apache.hadoop.fs.RawLocalFileSystem;

import java.net.URI;

/**
 * The local file system under the scheme {@code remote:}, so a test of the glue can open a table
 * the connector treats as remote (read through the disk tier) without an object store: {@code
 * hadoop.fs.remote.impl} = this class, path {@code remote:///tmp/dim/}.
 */
public final class RemoteLocalFileSystem extends RawLocalFileSystem {

    @Override
    public URI getUri() {
        return URI.create("remote:///");
    }

    @Override
    public String getScheme() {
        return "remote";
    }
}
