package dev.parquetlookup.io.s3;

import dev.parquetlookup.io.AsyncRangeReader;
import dev.parquetlookup.io.AsyncRangeReaderFactory;
import dev.parquetlookup.io.hedge.HedgedRangeReader;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Locale;

/**
 * The S3 store's entry in the seam ({@code META-INF/services}): files of {@code s3a://} are read
 * through {@link NettyS3RangeReader}, with S3A's endpoint, region, path style and credentials;
 * settings only S3A's own client applies ({@link S3RangeRequests#unsupported}: SSE-C, requester
 * pays, a proxy, access points) leave them to S3A's streams, as does {@value #ASYNC_READS} = {@code
 * false}. Its reader is hedged ({@link HedgedRangeReader}, options {@code parquet-lookup.hedge.*}).
 *
 * <p>The removed option {@value #REMOVED_CLIENT_OPTION} (it chose among four clients until
 * 2026-12-05) is accepted with a warning when it names the one left ({@code netty}) and refused
 * otherwise, with what to do.
 */
public final class S3RangeReaderFactory implements AsyncRangeReaderFactory {

    /**
     * Hadoop option (table option {@code hadoop.parquet-lookup.s3.async-reads}): false reads every
     * range of {@code s3a://} files through S3A's streams (the fallback; asynchronous reads on a
     * bounded pool of blocking reads) instead of {@link NettyS3RangeReader}. Default true.
     */
    public static final String ASYNC_READS = "parquet-lookup.s3.async-reads";

    /**
     * Hadoop option (table option {@code hadoop.parquet-lookup.s3.request-timeout}): how long one
     * ranged GET may take in all, from its start to its answer's last byte, a duration ({@code
     * 10s}, {@code 500ms}); a GET past it is aborted (its connection closed) and fails as
     * transient, so the read's retry policy tries again. 0 turns it off. Default 10 s. {@code
     * fs.s3a.connection.request.timeout} still bounds the wait for each next byte.
     */
    public static final String REQUEST_TIMEOUT = "parquet-lookup.s3.request-timeout";

    /** Removed Hadoop option: the client of ranged GETs. */
    static final String REMOVED_CLIENT_OPTION = "parquet-lookup.s3.range-client";

    private static final Logger LOG = LoggerFactory.getLogger(S3RangeReaderFactory.class);

    @Override
    public String scheme() {
        return "s3a";
    }

    @Override
    @Nullable
    public String unsupported(FileSystem fs) {
        Configuration conf = fs.getConf();
        checkRemovedOptions(conf);
        if (!fs.getClass().getName().equals("org.apache.hadoop.fs.s3a.S3AFileSystem")) {
            return "the file system is " + fs.getClass().getName() + ", not S3A";
        }
        if (!conf.getBoolean(ASYNC_READS, true)) {
            return ASYNC_READS + " is false";
        }
        String unsupported = S3RangeRequests.unsupported(conf);
        if (unsupported != null) {
            return unsupported + " is configured, which only S3A's own client applies";
        }
        try {
            // HttpDecoderConfig: a Netty 4.1 recent enough for the client (the SDK's own is).
            Class.forName(
                    "io.netty.handler.codec.http.HttpDecoderConfig",
                    false,
                    S3RangeReaderFactory.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return "Netty 4.1 with HttpDecoderConfig (the jars of the AWS SDK's netty-nio-client)"
                    + " is not on the class path";
        }
        return null;
    }

    @Override
    public AsyncRangeReader create(FileSystem fs) throws IOException {
        // Hedged here, where the store's reader is made: late GETs are sent a second time.
        return HedgedRangeReader.around(NettyS3RangeReader.forFileSystem(fs), fs.getConf());
    }

    /**
     * {@value #REMOVED_CLIENT_OPTION}: {@code netty} is harmless (the one client left) and logged;
     * any other value is refused, since it asked for a client that is gone.
     */
    static void checkRemovedOptions(Configuration conf) {
        String client = conf.getTrimmed(REMOVED_CLIENT_OPTION);
        if (client == null) {
            return;
        }
        if (client.toLowerCase(Locale.ROOT).equals("netty")) {
            LOG.warn(
                    "Hadoop option {} (table option hadoop.{}) was removed: 'netty' is the only"
                            + " client of ranged GETs now; remove the option",
                    REMOVED_CLIENT_OPTION,
                    REMOVED_CLIENT_OPTION);
            return;
        }
        throw new IllegalArgumentException(
                "Hadoop option "
                        + REMOVED_CLIENT_OPTION
                        + " (table option hadoop."
                        + REMOVED_CLIENT_OPTION
                        + ") = '"
                        + client
                        + "' was removed with the clients 'sdk', 'sdk-light' and 'jdk': remove the"
                        + " option. Ranged GETs of s3a:// go through the Netty client; settings it"
                        + " does not support (SSE-C, requester pays, a proxy, access points) fall"
                        + " back to S3A's streams by themselves, and hadoop."
                        + ASYNC_READS
                        + " = 'false' forces that fallback.");
    }
}
