package dev.parquetlookup.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Owns building an AWS SDK asynchronous S3 client for ranged GETs only ({@code
 * parquet-lookup.s3.range-client} = {@code sdk-light}), for comparison with S3A's own client: the
 * same endpoint, region, path style and credentials as S3A's, but Netty with two event-loop
 * threads, no response checksum validation, no SDK retries ({@link RetryingRangeSource} retries),
 * no multipart or cross-region wrappers and none of S3A's own audit interceptors (those a user
 * lists in {@code fs.s3a.audit.execution.interceptors} are added).
 */
final class LightSdkS3Client {

    private LightSdkS3Client() {}

    static S3AsyncClient build(FileSystem fs) throws IOException {
        S3AFileSystem s3a = (S3AFileSystem) fs;
        Configuration conf = s3a.getConf();
        S3Client sync = s3a.getS3AInternals().getAmazonS3Client("parquet-lookup ranged GETs");
        S3ServiceClientConfiguration config = sync.serviceClientConfiguration();
        long connect =
                conf.getTimeDuration(
                        "fs.s3a.connection.establish.timeout", 30_000, TimeUnit.MILLISECONDS);
        ClientOverrideConfiguration.Builder override =
                ClientOverrideConfiguration.builder().retryStrategy(b -> b.maxAttempts(1));
        // Interceptors a user added to S3A's clients (S3A's own auditor is not one of them).
        for (Class<?> c : conf.getClasses("fs.s3a.audit.execution.interceptors")) {
            try {
                override.addExecutionInterceptor(
                        (ExecutionInterceptor) c.getDeclaredConstructor().newInstance());
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IOException(
                        "fs.s3a.audit.execution.interceptors: cannot create " + c.getName(), e);
            }
        }
        var builder =
                S3AsyncClient.builder()
                        .region(config.region())
                        .credentialsProvider(s3a.shareCredentials("parquet-lookup ranged GETs"))
                        .forcePathStyle(conf.getBoolean("fs.s3a.path.style.access", false))
                        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                        .overrideConfiguration(override.build())
                        .httpClientBuilder(
                                NettyNioAsyncHttpClient.builder()
                                        .eventLoopGroupBuilder(
                                                software.amazon.awssdk.http.nio.netty
                                                        .SdkEventLoopGroup.builder()
                                                        .numberOfThreads(2))
                                        .maxConcurrency(
                                                conf.getInt("fs.s3a.connection.maximum", 500))
                                        .connectionTimeout(Duration.ofMillis(Math.max(1, connect)))
                                        // Below servers' idle timeouts (Jetty, S3: 20-30 s), so
                                        // a kept connection is not reused as the server closes it.
                                        .connectionMaxIdleTime(Duration.ofSeconds(5)));
        config.endpointOverride().ifPresent(builder::endpointOverride);
        return builder.build();
    }
}
