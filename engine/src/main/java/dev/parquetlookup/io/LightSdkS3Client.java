package dev.parquetlookup.io;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.endpoints.Endpoint;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Owns building an AWS SDK asynchronous S3 client for ranged GETs only ({@code
 * parquet-lookup.s3.range-client} = {@code sdk-light}), for comparison with S3A's own client: the
 * same endpoint, region, path style and credentials as S3A's, but Netty with two event-loop
 * threads, no response checksum validation, no SDK retries ({@link RetryingRangeSource} retries),
 * no multipart or cross-region wrappers and none of S3A's own audit interceptors (those a user
 * lists in {@code fs.s3a.audit.execution.interceptors} are added), and S3's endpoint rules
 * evaluated once per bucket and object instead of twice per GET ({@link MemoizedEndpoints}).
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
        S3EndpointProvider endpoints = MemoizedEndpoints.ofDefaultRules();
        if (endpoints != null) {
            builder.endpointProvider(endpoints);
        }
        return builder.build();
    }

    /**
     * S3's endpoint rules, evaluated once per distinct set of parameters. The SDK evaluates the
     * whole S3 rule set twice per request (once to choose the signing scheme, once for the URL):
     * profiled in the {@code objectstore} suite's cold windows, 15-25% of the client's CPU per
     * ranged GET. The rules are a function of their parameters (bucket, key, region, flags), and a
     * lookup job asks for the same few files again and again, so the answer is kept (at most
     * {@value #MAX_ENTRIES} parameter sets, then forgotten and built again).
     *
     * <p>Used only when {@link S3EndpointParams} has exactly the parameters this class keys on; an
     * SDK with more parameters gets the rules evaluated per request as before.
     */
    static final class MemoizedEndpoints implements S3EndpointProvider {

        static final int MAX_ENTRIES = 1024;

        /** The parameters of {@link S3EndpointParams} that the key below covers. */
        private static final Set<String> KEYED =
                Set.of(
                        "bucket",
                        "region",
                        "useFips",
                        "useDualStack",
                        "endpoint",
                        "forcePathStyle",
                        "accelerate",
                        "useGlobalEndpoint",
                        "useObjectLambdaEndpoint",
                        "key",
                        "prefix",
                        "copySource",
                        "disableAccessPoints",
                        "disableMultiRegionAccessPoints",
                        "useArnRegion",
                        "useS3ExpressControlEndpoint",
                        "disableS3ExpressSessionAuth",
                        "deleteObjectKeys");

        private final S3EndpointProvider rules;
        private final ConcurrentHashMap<List<Object>, Endpoint> resolved =
                new ConcurrentHashMap<>();

        MemoizedEndpoints(S3EndpointProvider rules) {
            this.rules = rules;
        }

        /** Memoized default rules, or null if this SDK's parameters are not the ones keyed. */
        static S3EndpointProvider ofDefaultRules() {
            return coversParameters()
                    ? new MemoizedEndpoints(S3EndpointProvider.defaultProvider())
                    : null;
        }

        /** Whether {@link #KEYED} names every parameter accessor of {@link S3EndpointParams}. */
        static boolean coversParameters() {
            Set<String> accessors = new TreeSet<>();
            for (Method m : S3EndpointParams.class.getDeclaredMethods()) {
                if (Modifier.isPublic(m.getModifiers())
                        && !Modifier.isStatic(m.getModifiers())
                        && m.getParameterCount() == 0
                        && !m.getName().equals("toBuilder")
                        && !m.getName().equals("hashCode")
                        && !m.getName().equals("toString")) {
                    accessors.add(m.getName());
                }
            }
            return accessors.equals(new TreeSet<>(KEYED));
        }

        @Override
        public CompletableFuture<Endpoint> resolveEndpoint(S3EndpointParams p) {
            List<Object> key =
                    Arrays.asList(
                            p.bucket(),
                            p.region(),
                            p.useFips(),
                            p.useDualStack(),
                            p.endpoint(),
                            p.forcePathStyle(),
                            p.accelerate(),
                            p.useGlobalEndpoint(),
                            p.useObjectLambdaEndpoint(),
                            p.key(),
                            p.prefix(),
                            p.copySource(),
                            p.disableAccessPoints(),
                            p.disableMultiRegionAccessPoints(),
                            p.useArnRegion(),
                            p.useS3ExpressControlEndpoint(),
                            p.disableS3ExpressSessionAuth(),
                            p.deleteObjectKeys());
            Endpoint known = resolved.get(key);
            if (known != null) {
                return CompletableFuture.completedFuture(known);
            }
            return rules.resolveEndpoint(p)
                    .thenApply(
                            endpoint -> {
                                if (resolved.size() >= MAX_ENTRIES) {
                                    resolved.clear();
                                }
                                resolved.put(key, endpoint);
                                return endpoint;
                            });
        }

        /** Parameter sets held now; for tests. */
        int size() {
            return resolved.size();
        }
    }
}
