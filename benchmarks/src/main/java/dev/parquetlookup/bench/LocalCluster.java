package dev.parquetlookup.bench;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the suites that run Flink jobs share: one embedded cluster's configuration (one TaskManager,
 * REST on a free loopback port), the environment submitting to it, and the removal of their working
 * folders between jobs.
 */
final class LocalCluster {

    private LocalCluster() {}

    /**
     * One TaskManager with at least two slots ({@code parallelism} if more), REST bound to a free
     * port on 127.0.0.1, on top of {@code conf}'s own settings.
     */
    static MiniClusterConfiguration configuration(Configuration conf, int parallelism) {
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(RestOptions.ADDRESS, "127.0.0.1");
        return new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(1)
                .setNumSlotsPerTaskManager(Math.max(2, parallelism))
                .build();
    }

    /** An environment submitting to {@code cluster} (started), with {@code parallelism}. */
    static StreamExecutionEnvironment environment(MiniCluster cluster, int parallelism)
            throws Exception {
        URI rest = cluster.getRestAddress().get();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort());
        env.setParallelism(parallelism);
        return env;
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
