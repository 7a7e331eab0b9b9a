package dev.parquetlookup.flink.table;

import dev.parquetlookup.types.ValueType;
import dev.parquetlookup.types.ValueType.Kind;
import dev.parquetlookup.writer.ColumnSpec;
import dev.parquetlookup.writer.LookupFileWriter;
import dev.parquetlookup.writer.WriterOptions;

import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running SQL lookup join whose enrichment switches to new values after the dimension is
 * rewritten, within {@code refresh.interval} plus a margin: an unbounded datagen stream joined on a
 * MiniCluster, results polled from the job as they come.
 */
class ParquetLookupRefreshITCase {

    private static final long KEYS = 100;
    private static final Duration INTERVAL = Duration.ofSeconds(1);

    /** Generous for a loaded 2-core machine; the switch itself takes one interval. */
    private static final Duration MARGIN = Duration.ofSeconds(30);

    /** After the switch, this many consecutive results must all carry the new version. */
    private static final int STABLE_ROWS = 200;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    private static final List<ColumnSpec> COLUMNS =
            List.of(
                    ColumnSpec.required("k", ValueType.of(Kind.BIGINT)),
                    ColumnSpec.required("ver", ValueType.of(Kind.INT)),
                    ColumnSpec.required("label", ValueType.of(Kind.STRING)));

    /** The two publishing patterns of docs/refresh.md. */
    enum Publishing {
        /** (a) all-files: the file is rewritten elsewhere and renamed over the old one. */
        RENAME_INTO_PLACE("all-files"),
        /** (b) latest-success: a new snapshot directory, its _SUCCESS marker written last. */
        NEW_SNAPSHOT_DIRECTORY("latest-success");

        final String mode;

        Publishing(String mode) {
            this.mode = mode;
        }
    }

    @ParameterizedTest
    @EnumSource(Publishing.class)
    void enrichmentSwitchesToTheRewrittenValuesWithinTheInterval(Publishing publishing)
            throws Exception {
        publish(publishing, 1);

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE events (k BIGINT, proc AS PROCTIME()) WITH ("
                        + " 'connector' = 'datagen', 'rows-per-second' = '200',"
                        + " 'fields.k.kind' = 'random', 'fields.k.min' = '0',"
                        + " 'fields.k.max' = '"
                        + (KEYS - 1)
                        + "')");
        tEnv.executeSql(
                "CREATE TEMPORARY TABLE dim (k BIGINT, ver INT, label STRING) WITH ("
                        + " 'connector' = 'parquet-lookup',"
                        + " 'path' = '"
                        + dir.toUri()
                        + "',"
                        + " 'path.snapshot-mode' = '"
                        + publishing.mode
                        + "',"
                        + " 'refresh.interval' = '"
                        + INTERVAL.toMillis()
                        + " ms')");

        try (CloseableIterator<Row> results =
                tEnv.sqlQuery(
                                "SELECT e.k, d.ver, d.label FROM events AS e"
                                        + " JOIN dim FOR SYSTEM_TIME AS OF e.proc AS d"
                                        + " ON e.k = d.k")
                        .execute()
                        .collect()) {
            // Version 1 is served while the job runs.
            for (int i = 0; i < 50; i++) {
                assertThat(version(results.next())).isEqualTo(1);
            }

            publish(publishing, 2);
            long published = System.nanoTime();
            long deadline = published + INTERVAL.plus(MARGIN).toNanos();
            long firstNew = -1;
            int stable = 0;
            int oldAfterPublish = 0;
            while (stable < STABLE_ROWS) {
                assertThat(System.nanoTime())
                        .as(
                                "%d consecutive version-2 results within %s + %s of the rewrite"
                                        + " (first at %d ms, %d version-1 results after it)",
                                STABLE_ROWS, INTERVAL, MARGIN, firstNew, oldAfterPublish)
                        .isLessThan(deadline);
                int v = version(results.next()); // blocks until the running job emits a row
                if (v == 2) {
                    if (firstNew < 0) {
                        firstNew = (System.nanoTime() - published) / 1_000_000;
                    }
                    stable++;
                } else {
                    assertThat(v).isEqualTo(1);
                    oldAfterPublish++;
                    stable = 0;
                }
            }
            System.out.printf(
                    "refresh %s: first version-2 result %d ms after the rewrite, %d version-1"
                            + " results after it, then %d consecutive version-2 results%n",
                    publishing, firstNew, oldAfterPublish, STABLE_ROWS);
        }
    }

    /** Checks one joined row (k, ver, label) is consistent and returns its version. */
    private static int version(Row row) {
        long k = (Long) row.getField(0);
        int ver = (Integer) row.getField(1);
        assertThat(row.getField(2)).as("row %s", row).isEqualTo(k + "/" + ver);
        return ver;
    }

    private void publish(Publishing publishing, int version) throws IOException {
        switch (publishing) {
            case RENAME_INTO_PLACE -> {
                Path tmp = dir.resolve(".dim.parquet.tmp");
                write(tmp, version);
                // A modification time of its own, even within the file system's clock resolution.
                Files.setLastModifiedTime(tmp, FileTime.fromMillis(1_700_000_000_000L + version));
                Files.move(
                        tmp,
                        dir.resolve("dim.parquet"),
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            }
            case NEW_SNAPSHOT_DIRECTORY -> {
                Path snapshot = Files.createDirectories(dir.resolve("v=" + version));
                write(snapshot.resolve("part-0.parquet"), version);
                Files.write(snapshot.resolve("_SUCCESS"), new byte[0]);
            }
        }
    }

    private static void write(Path file, int version) throws IOException {
        try (LookupFileWriter w =
                LookupFileWriter.open(
                        file.toString(), COLUMNS, List.of("k"), WriterOptions.defaults())) {
            for (long k = 0; k < KEYS; k++) {
                w.write(new Object[] {k, version, (k + "/" + version).getBytes()});
            }
        }
    }
}
