package dev.parquetlookup.e2e;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * Starts one {@link FlinkCluster} per test class under {@code target/e2e/<class>-<time>/} and stops
 * it after the class, whatever happened; prints the tail of every process log when a test fails
 * (the full logs stay in that folder).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final FlinkClusterExtension FLINK = new FlinkClusterExtension(2, Map.of());
 *
 * @Test
 * void runs() { FLINK.cluster().gateway()... }
 * }</pre>
 */
final class FlinkClusterExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    private final int taskManagers;
    private final Map<String, String> config;
    private FlinkCluster cluster;

    FlinkClusterExtension(int taskManagers, Map<String, String> config) {
        this.taskManagers = taskManagers;
        this.config = config;
    }

    FlinkCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "the cluster starts in @BeforeAll; register the extension as a static field");
        }
        return cluster;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path root = Path.of(FlinkCluster.requiredProperty("e2e.work.dir"));
        Path home =
                root.resolve(
                        context.getRequiredTestClass().getSimpleName()
                                + "-"
                                + LocalDateTime.now().format(STAMP));
        Files.createDirectories(home);
        cluster = FlinkCluster.start(home, taskManagers, config);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (cluster != null) {
            System.err.println(
                    "Test " + context.getDisplayName() + " failed.\n" + cluster.logTails(80));
        }
    }
}
