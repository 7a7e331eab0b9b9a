package dev.parquetlookup.e2e;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * A small client of the SQL Gateway REST API v3: sessions, statements, operation status and results
 * (following {@code nextResultUri} until {@code EOS}).
 *
 * <pre>{@code
 * SqlGatewayClient.Session session = gateway.openSession();
 * session.execute("CREATE TABLE t (id BIGINT) WITH ('connector' = 'datagen')");
 * String jobId = session.execute("INSERT INTO sink SELECT id FROM t").jobId();
 * List<List<JsonNode>> rows = session.execute("SHOW TABLES").rows();
 * }</pre>
 */
final class SqlGatewayClient {

    private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(3);

    private final RestClient rest;

    SqlGatewayClient(RestClient rest) {
        this.rest = rest;
    }

    RestClient rest() {
        return rest;
    }

    /** Opens a session; {@code properties} are session configuration (like {@code SET}). */
    Session openSession(Map<String, String> properties) {
        JsonNode answer =
                rest.post("/v3/sessions", Map.of("sessionName", "e2e", "properties", properties));
        return new Session(answer.path("sessionHandle").asText());
    }

    Session openSession() {
        return openSession(Map.of());
    }

    /** The outcome of one statement: its job (for DML) and its rows (for queries, SHOW, ...). */
    record Result(String jobId, List<String> columns, List<List<JsonNode>> rows) {}

    /** One gateway session; statements run one after another. */
    final class Session implements AutoCloseable {
        private final String handle;

        private Session(String handle) {
            this.handle = handle;
        }

        /**
         * Runs one statement and returns all of its result pages. For an {@code INSERT} this
         * returns when the job is submitted, with its id in {@link Result#jobId()}.
         *
         * @throws IllegalStateException with the gateway's error (the Flink stack trace) when the
         *     statement fails
         */
        Result execute(String statement) throws TimeoutException {
            String op =
                    rest.post(
                                    "/v3/sessions/" + handle + "/statements",
                                    Map.of("statement", statement))
                            .path("operationHandle")
                            .asText();
            String base = "/v3/sessions/" + handle + "/operations/" + op;
            String status =
                    Poll.until(
                            "statement to finish: " + statement,
                            STATEMENT_TIMEOUT,
                            () -> {
                                String s = rest.get(base + "/status").path("status").asText();
                                return s.equals("RUNNING")
                                                || s.equals("PENDING")
                                                || s.equals("INITIALIZED")
                                        ? Optional.empty()
                                        : Optional.of(s);
                            });
            if (!status.equals("FINISHED")) {
                throw new IllegalStateException(
                        "statement ended " + status + ": " + statement + "\n" + error(base));
            }
            return fetchAll(base, statement);
        }

        private Result fetchAll(String base, String statement) throws TimeoutException {
            String next = base + "/result/0?rowFormat=JSON";
            String jobId = null;
            List<String> columns = new ArrayList<>();
            List<List<JsonNode>> rows = new ArrayList<>();
            while (next != null) {
                String uri = next;
                JsonNode page =
                        Poll.until(
                                "result page " + uri,
                                STATEMENT_TIMEOUT,
                                () -> {
                                    JsonNode p = rest.get(uri);
                                    return p.path("resultType").asText().equals("NOT_READY")
                                            ? Optional.empty()
                                            : Optional.of(p);
                                });
                if (page.hasNonNull("jobID")) {
                    jobId = page.path("jobID").asText();
                }
                JsonNode results = page.path("results");
                if (columns.isEmpty()) {
                    results.path("columns").forEach(c -> columns.add(c.path("name").asText()));
                }
                for (JsonNode row : results.path("data")) {
                    List<JsonNode> fields = new ArrayList<>();
                    row.path("fields").forEach(fields::add);
                    rows.add(fields);
                }
                boolean eos = page.path("resultType").asText().equals("EOS");
                next =
                        eos || !page.hasNonNull("nextResultUri")
                                ? null
                                : page.path("nextResultUri").asText();
            }
            if (jobId == null && columns.equals(List.of("job id")) && rows.size() == 1) {
                jobId = rows.get(0).get(0).asText();
            }
            return new Result(jobId, columns, rows);
        }

        private String error(String base) {
            try {
                return rest.get(base + "/result/0?rowFormat=JSON").toPrettyString();
            } catch (RestClient.RestException e) {
                return e.body;
            }
        }

        @Override
        public void close() {
            try {
                rest.delete("/v3/sessions/" + handle);
            } catch (RuntimeException e) {
                // The gateway may already be gone when a test fails; the cluster stops it anyway.
                System.err.println("closing gateway session " + handle + " failed: " + e);
            }
        }
    }
}
