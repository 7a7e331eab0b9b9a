package dev.parquetlookup.testing;

import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records every HTTP request S3A's SDK client transmits (every attempt, retries included), for
 * tests that count GETs and HEADs. Installed with {@code fs.s3a.audit.execution.interceptors =
 * dev.parquetlookup.testing.S3RequestLog}; S3A instantiates it, so the log is static.
 *
 * <p>Example: {@code S3RequestLog.clear(); ...; S3RequestLog.count("GET", "/bucket/dim/part-0")}.
 */
public final class S3RequestLog implements ExecutionInterceptor {

    /** One transmitted request: method, path ({@code /bucket/key}), query, Range header. */
    public record Request(String method, String path, String query, Optional<Range> range) {}

    /** An HTTP byte range, inclusive end as sent. */
    public record Range(long first, long last) {
        public long length() {
            return last - first + 1;
        }
    }

    private static final ConcurrentLinkedQueue<Request> REQUESTS = new ConcurrentLinkedQueue<>();

    public S3RequestLog() {}

    @Override
    public void beforeTransmission(
            Context.BeforeTransmission context, ExecutionAttributes executionAttributes) {
        SdkHttpRequest http = context.httpRequest();
        Optional<Range> range =
                http.firstMatchingHeader("Range")
                        .map(
                                h -> {
                                    String[] parts = h.replace("bytes=", "").split("-");
                                    return new Range(
                                            Long.parseLong(parts[0]), Long.parseLong(parts[1]));
                                });
        REQUESTS.add(
                new Request(
                        http.method().name(),
                        http.encodedPath(),
                        http.encodedQueryParameters().orElse(""),
                        range));
    }

    public static void clear() {
        REQUESTS.clear();
    }

    /** Everything transmitted since the last {@link #clear()}. */
    public static List<Request> requests() {
        return new ArrayList<>(REQUESTS);
    }

    /** Requests with this method whose path contains {@code pathPart}. */
    public static long count(String method, String pathPart) {
        return REQUESTS.stream()
                .filter(r -> r.method().equals(method) && r.path().contains(pathPart))
                .count();
    }
}
