package dev.parquetlookup.testing;

import dev.parquetlookup.s3proxy.LatencyProxy;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The latency harness with the real client: S3A (the AWS SDK's HTTP client, keep-alive, signed PUTs
 * and ranged GETs) through {@link LatencyProxy} in front of S3Proxy. The proxy's request counts
 * must equal what the SDK transmitted ({@link S3RequestLog}), every response must come back intact,
 * and each GET must take at least the delay.
 */
class LatencyProxyS3ITCase {

    @RegisterExtension static final S3ProxyExtension S3 = new S3ProxyExtension();

    private static final String BUCKET = "latency";
    private static final int SIZE = 3 * 1024 * 1024;

    @Test
    void s3aRequestsThroughTheProxyAreCountedDelayedAndIntact() throws Exception {
        S3.createBucket(BUCKET);
        LatencyProxy proxy = S3.latencyProxy(Duration.ZERO);
        Map<String, String> hadoop = new LinkedHashMap<>(S3.hadoopOptions(proxy));
        hadoop.put("fs.s3a.audit.execution.interceptors", S3RequestLog.class.getName());
        Configuration conf = new Configuration();
        hadoop.forEach(conf::set);
        byte[] bytes = new byte[SIZE];
        new SplittableRandom(11).nextBytes(bytes);
        Path object = new Path("s3a://" + BUCKET + "/dir/object.bin");
        try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
            S3RequestLog.clear();
            try (FSDataOutputStream out = fs.create(object, true)) {
                out.write(bytes);
            }
            FileStatus status = fs.getFileStatus(object);
            assertThat(status.getLen()).isEqualTo(SIZE);
            LatencyProxy.Stats upload = proxy.stats();
            assertThat(upload.requests())
                    .as("requests through the proxy vs sent by the SDK: %s", upload)
                    .isEqualTo(S3RequestLog.requests().size());
            assertThat(upload.completed()).isEqualTo(upload.requests());
            assertThat(upload.requestBytes()).isGreaterThan(SIZE);

            Duration delay = Duration.ofMillis(30);
            proxy.setDelay(delay);
            proxy.resetStats();
            S3RequestLog.clear();
            List<FileRange> ranges = new ArrayList<>();
            try (FSDataInputStream in =
                    fs.openFile(object)
                            .withFileStatus(status)
                            .opt("fs.option.openfile.read.policy", "random")
                            .build()
                            .get()) {
                for (int i = 0; i < 4; i++) {
                    // Far apart: one GET each, never coalesced.
                    FileRange range = FileRange.createFileRange(i * 700_000L + 13, 5_000);
                    long start = System.nanoTime();
                    in.readVectored(List.of(range), ByteBuffer::allocate);
                    ByteBuffer data = range.getData().get(60, TimeUnit.SECONDS);
                    assertThat(Duration.ofNanos(System.nanoTime() - start))
                            .isGreaterThanOrEqualTo(delay);
                    byte[] got = new byte[data.remaining()];
                    data.get(got);
                    byte[] expected = new byte[5_000];
                    System.arraycopy(bytes, (int) range.getOffset(), expected, 0, 5_000);
                    assertThat(got).isEqualTo(expected);
                    ranges.add(range);
                }
            }
            LatencyProxy.Stats reads = proxy.stats();
            long sdkGets = S3RequestLog.count("GET", "/dir/object.bin");
            assertThat(sdkGets).isEqualTo(ranges.size());
            assertThat(reads.gets()).as("%s", reads).isEqualTo(sdkGets);
            assertThat(reads.completed()).isEqualTo(reads.requests());
            assertThat(reads.inFlight()).isZero();
            assertThat(reads.maxInFlight()).isEqualTo(1);
            assertThat(reads.meanRequestMillis()).isGreaterThanOrEqualTo(30.0);
            assertThat(reads.responseBytes()).isGreaterThan(4 * 5_000L);
        }
    }
}
