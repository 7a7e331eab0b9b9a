package dev.parquetlookup.e2e;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Gives the test classes of a test JVM one running {@link FlinkCluster} (two TaskManagers, the
 * default configuration) under {@code target/e2e/SharedCluster-<time>/}, started by the first class
 * that asks for it and stopped when the JVM's tests are done, as a session cluster serves many
 * jobs; each class writes under its own {@link #dataDir()}. Prints the tail of every process log
 * when a test fails (the full logs stay in that folder).
 *
 * <p>Starting a cluster takes 10-15 s on 2 cores: one per Flink line instead of one per class. A
 * class that changes the cluster runs last (its {@code Order}, see junit-platform.properties:
 * TaskManagerFailureITCase kills a TaskManager).
 *
 * <pre>{@code
 * @RegisterExtension
 * static final FlinkClusterExtension FLINK = new FlinkClusterExtension();
 *
 * @Test
 * void runs() { FLINK.cluster().gateway()...; Path data = FLINK.dataDir(); }
 * }</pre>
 */
final class FlinkClusterExtension implements BeforeAllCallback, TestWatcher {

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(FlinkClusterExtension.class);

    private FlinkCluster cluster;
    private Path dataDir;

    FlinkCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException(
                    "the cluster starts in @BeforeAll; register the extension as a static field");
        }
        return cluster;
    }

    /** This class's folder for its data and sinks: {@code <cluster home>/data/<class name>}. */
    Path dataDir() {
        cluster();
        return dataDir;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        cluster =
                context.getRoot()
                        .getStore(NAMESPACE)
                        .getOrComputeIfAbsent("cluster", key -> new Shared(start()), Shared.class)
                        .cluster();
        dataDir =
                cluster.home()
                        .resolve("data")
                        .resolve(context.getRequiredTestClass().getSimpleName());
        Files.createDirectories(dataDir);
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        if (cluster != null) {
            System.err.println(
                    "Test " + context.getDisplayName() + " failed.\n" + cluster.logTails(80));
        }
    }

    private static FlinkCluster start() {
        Path root = Path.of(FlinkCluster.requiredProperty("e2e.work.dir"));
        Path home = root.resolve("SharedCluster-" + LocalDateTime.now().format(STAMP));
        try {
            Files.createDirectories(home);
            return FlinkCluster.start(home, 2, Map.of());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The cluster in the root store: JUnit closes it when the JVM's tests are done. */
    private record Shared(FlinkCluster cluster) implements AutoCloseable {
        @Override
        public void close() {
            cluster.close();
        }
    }
}
