package dev.parquetlookup.io;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.endpoints.Endpoint;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The light client's memoized S3 endpoint rules: the same answers, each evaluated once. */
class LightSdkS3ClientTest {

    @Test
    void theMemoKeyCoversEveryParameterOfThisSdk() {
        assertThat(LightSdkS3Client.MemoizedEndpoints.coversParameters()).isTrue();
        assertThat(LightSdkS3Client.MemoizedEndpoints.ofDefaultRules()).isNotNull();
    }

    @Test
    void sameParametersAreResolvedOnceAndAnswerAsTheRulesDo() throws Exception {
        S3EndpointProvider rules = S3EndpointProvider.defaultProvider();
        AtomicInteger evaluations = new AtomicInteger();
        LightSdkS3Client.MemoizedEndpoints memo =
                new LightSdkS3Client.MemoizedEndpoints(
                        p -> {
                            evaluations.incrementAndGet();
                            return rules.resolveEndpoint(p);
                        });
        S3EndpointParams pathStyle =
                S3EndpointParams.builder()
                        .bucket("bench")
                        .key("seed/a.parquet")
                        .region(Region.US_EAST_1)
                        .endpoint("http://127.0.0.1:9000")
                        .forcePathStyle(true)
                        .build();
        S3EndpointParams virtualHost =
                S3EndpointParams.builder()
                        .bucket("bench")
                        .key("seed/a.parquet")
                        .region(Region.EU_WEST_1)
                        .build();
        for (S3EndpointParams p : new S3EndpointParams[] {pathStyle, virtualHost}) {
            Endpoint expected = rules.resolveEndpoint(p).get();
            for (int i = 0; i < 3; i++) {
                // Equal parameters built anew each time, as the SDK does per request.
                Endpoint got = memo.resolveEndpoint(p.toBuilder().build()).get();
                assertThat(got.url()).isEqualTo(expected.url());
                assertThat(got.headers()).isEqualTo(expected.headers());
            }
        }
        assertThat(evaluations).hasValue(2);
        assertThat(memo.size()).isEqualTo(2);
        Endpoint otherKey =
                memo.resolveEndpoint(pathStyle.toBuilder().key("seed/b.parquet").build()).get();
        assertThat(otherKey.url()).isEqualTo(rules.resolveEndpoint(pathStyle).get().url());
        assertThat(evaluations).as("another object is another parameter set").hasValue(3);
    }
}
