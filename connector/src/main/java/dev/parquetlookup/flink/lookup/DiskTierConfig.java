package dev.parquetlookup.flink.lookup;

import dev.parquetlookup.engine.table.TableWarmup;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.configuration.GlobalConfiguration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The local disk tier of remote files and its warm-up, as configured for one table ({@code
 * local-cache.dir}, {@code local-cache.max-bytes}, {@code warmup}; defaults in {@link
 * ParquetLookupOptions}).
 *
 * <p>Example: {@code new DiskTierConfig(null, 1L << 30, TableWarmup.Mode.ALL)}: 1 GiB below Flink's
 * {@code io.tmp.dirs}, whole table warmed.
 *
 * @param directory base directory, or null for the TaskManager's first {@code io.tmp.dirs} entry
 * @param maxBytes bound of the tier, 0 to read remote files without it
 * @param warmup what is fetched into the tier after the table opens
 */
public record DiskTierConfig(@Nullable String directory, long maxBytes, TableWarmup.Mode warmup)
        implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(DiskTierConfig.class);

    /** Fetches in flight per warming table and subtask. */
    static final int WARMUP_CONCURRENCY = 4;

    public DiskTierConfig {
        if (maxBytes < 0) {
            throw new IllegalArgumentException(
                    "local-cache.max-bytes must not be negative, got " + maxBytes);
        }
        Objects.requireNonNull(warmup, "warmup");
    }

    public boolean enabled() {
        return maxBytes > 0;
    }

    /** The base directory: the option, else the first of Flink's {@code io.tmp.dirs}. */
    Path resolveDirectory() {
        if (directory != null && !directory.isBlank()) {
            return Path.of(directory);
        }
        return TmpDirs.FIRST;
    }

    /**
     * The TaskManager's first temporary directory: {@code io.tmp.dirs} of the configuration file
     * the process was started with ({@code FLINK_CONF_DIR}), else {@code java.io.tmpdir} (also
     * Flink's own default for {@code io.tmp.dirs}). Lookup functions get no handle on the
     * TaskManager's runtime configuration, so the file is read once per JVM.
     */
    private static final class TmpDirs {
        static final Path FIRST = find();

        private static Path find() {
            String confDir = System.getenv("FLINK_CONF_DIR");
            if (confDir != null) {
                try {
                    Configuration conf = GlobalConfiguration.loadConfiguration(confDir);
                    String[] dirs = ConfigurationUtils.parseTempDirectories(conf);
                    if (dirs.length > 0 && !dirs[0].isBlank()) {
                        return Path.of(dirs[0]);
                    }
                } catch (RuntimeException e) {
                    LOG.info(
                            "Cannot read io.tmp.dirs from {}, using java.io.tmpdir: {}",
                            confDir,
                            e.toString());
                }
            }
            return Path.of(System.getProperty("java.io.tmpdir"));
        }
    }
}
