package dev.parquetlookup.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * JSON over HTTP to a Flink REST endpoint on loopback, with {@code java.net.http} only.
 *
 * <pre>{@code
 * RestClient jm = new RestClient(URI.create("http://127.0.0.1:8081"));
 * JsonNode overview = jm.get("/overview");
 * }</pre>
 */
final class RestClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final HttpClient http;

    RestClient(URI base) {
        this.base = base;
        this.http =
                HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
    }

    URI base() {
        return base;
    }

    /** GET {@code path}; a non-2xx answer is an exception carrying the body. */
    JsonNode get(String path) {
        return send(HttpRequest.newBuilder(resolve(path)).GET(), path);
    }

    /** POST {@code body} as JSON to {@code path}. */
    JsonNode post(String path, Object body) {
        String json;
        try {
            json = JSON.writeValueAsString(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return send(
                HttpRequest.newBuilder(resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json)),
                path);
    }

    /** DELETE {@code path}. */
    JsonNode delete(String path) {
        return send(HttpRequest.newBuilder(resolve(path)).DELETE(), path);
    }

    /** True once the endpoint answers {@code path} with 2xx; false while it refuses. */
    boolean answers(String path) {
        try {
            HttpResponse<String> response =
                    http.send(
                            HttpRequest.newBuilder(resolve(path))
                                    .timeout(Duration.ofSeconds(5))
                                    .GET()
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.statusCode() / 100 == 2;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private URI resolve(String path) {
        return base.resolve(path);
    }

    private JsonNode send(HttpRequest.Builder request, String path) {
        HttpResponse<String> response;
        try {
            response =
                    http.send(
                            request.timeout(REQUEST_TIMEOUT).build(),
                            HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("request to " + base + path + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during request to " + path, e);
        }
        if (response.statusCode() / 100 != 2) {
            throw new RestException(base + path, response.statusCode(), response.body());
        }
        try {
            String body = response.body();
            return JSON.readTree(body.isEmpty() ? "{}" : body);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON from " + base + path, e);
        }
    }

    /** A non-2xx REST answer; the body holds Flink's error list (often a stack trace). */
    static final class RestException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        final int status;
        final String body;

        RestException(String url, int status, String body) {
            super("HTTP " + status + " from " + url + ": " + body);
            this.status = status;
            this.body = body;
        }
    }
}
