package dev.parquetlookup.io;

import org.apache.hadoop.fs.FileSystem;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Locale;

/**
 * Owns choosing the client of an S3A file system's asynchronous ranged GETs from the Hadoop option
 * {@value #CLIENT_OPTION}: {@code netty} (default: {@link NettyS3RangeReader}), {@code sdk-light}
 * ({@link LightSdkS3Client}), {@code jdk} ({@link JdkS3RangeReader}) or {@code sdk} (S3A's own
 * asynchronous client, {@link S3AsyncRangeReader#forFileSystem}). The clients other than {@code
 * sdk} fall back to it when a setting only S3A's request pipeline applies is configured ({@link
 * S3RangeRequests#unsupported}). Touches the S3 classes only when called.
 */
final class S3RangeClients {

    /** Hadoop option: the client of the lookups' ranged GETs on {@code s3a://}. */
    static final String CLIENT_OPTION = "parquet-lookup.s3.range-client";

    /** The value of {@link #CLIENT_OPTION} when it is not set. */
    static final String DEFAULT = "netty";

    private static final Logger LOG = LoggerFactory.getLogger(S3RangeClients.class);

    private S3RangeClients() {}

    /**
     * The reader {@code fs}'s configuration chooses, or null when S3A's asynchronous client is
     * chosen and not available.
     *
     * @throws IllegalArgumentException if {@value #CLIENT_OPTION} names no client
     */
    @Nullable
    static AsyncRangeReader forFileSystem(FileSystem fs) throws IOException {
        String client = fs.getConf().getTrimmed(CLIENT_OPTION, DEFAULT).toLowerCase(Locale.ROOT);
        if (!client.equals("sdk")
                && !client.equals("sdk-light")
                && !client.equals("netty")
                && !client.equals("jdk")) {
            throw new IllegalArgumentException(
                    "Hadoop option "
                            + CLIENT_OPTION
                            + " (table option hadoop."
                            + CLIENT_OPTION
                            + ") is '"
                            + client
                            + "': use 'netty' (the SDK's Netty HTTP client with our own"
                            + " signing, the default), 'sdk-light' (an SDK client for ranged GETs"
                            + " only), 'jdk' (the JDK's HTTP client with our own signing) or 'sdk'"
                            + " (S3A's asynchronous client)");
        }
        if (!client.equals("sdk")) {
            String unsupported = S3RangeRequests.unsupported(fs.getConf());
            if (unsupported == null) {
                return switch (client) {
                    case "jdk" -> JdkS3RangeReader.forFileSystem(fs);
                    case "sdk-light" ->
                            S3AsyncRangeReader.withClient(fs, LightSdkS3Client.build(fs));
                    default -> NettyS3RangeReader.forFileSystem(fs); // "netty"
                };
            }
            LOG.info(
                    "{}: {} is configured, which only S3A's own client applies: ranged GETs go"
                            + " through it",
                    fs.getUri(),
                    unsupported);
        }
        return S3AsyncRangeReader.forFileSystem(fs);
    }
}
