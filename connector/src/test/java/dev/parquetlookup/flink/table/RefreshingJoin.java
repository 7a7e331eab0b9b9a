package dev.parquetlookup.flink.table;

import dev.parquetlookup.flink.datastream.ParquetEnrichment;
import dev.parquetlookup.flink.datastream.ParquetEnrichmentFunction;

import org.apache.flink.streaming.api.datastream.AsyncDataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refresh check every way of publishing a dimension shares (plain files renamed or in snapshot
 * directories, Delta versions, Iceberg snapshots): a running SQL lookup join of an unbounded
 * datagen stream of keys {@code 0 .. KEYS-1} with {@code dim (k BIGINT, ver INT, label STRING)},
 * whose version {@code v} holds the rows {@code (k, v, "k/v")}. Version 1 is served while the job
 * runs; after version 2 is published, {@link #STABLE_ROWS} consecutive results must carry it within
 * {@link #INTERVAL} plus {@link #MARGIN}, and every result matches exactly one version.
 *
 * <pre>{@code
 * RefreshingJoin.switchesToVersion2("delta", "'format' = 'delta', 'path' = '...', 'sort-key' = 'k'",
 *         () -> delta.commit(...));
 * }</pre>
 */
final class RefreshingJoin {

    static final long KEYS = 100;
    static final Duration INTERVAL = Duration.ofSeconds(1);

    /** Generous for a loaded 2-core machine; the switch itself takes one interval. */
    static final Duration MARGIN = Duration.ofSeconds(30);

    /** After the switch, this many consecutive results must all carry the new version. */
    static final int STABLE_ROWS = 200;

    /** Publishes version 2 of the dimension (version 1 is there before the job starts). */
    @FunctionalInterface
    interface Publisher {
        void publishVersion2() throws Exception;
    }

    private RefreshingJoin() {}

    /**
     * Runs the join on the MiniCluster of the calling class and checks the switch.
     *
     * @param what names the case in the messages ({@code "delta"}, {@code RENAME_INTO_PLACE})
     * @param dimOptions the dimension's {@code WITH} options besides {@code 'connector'} and {@code
     *     'refresh.interval'}, e.g. {@code 'path' = 'file:/...'}
     */
    static void switchesToVersion2(String what, String dimOptions, Publisher publisher)
            throws Exception {
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
                        + " 'connector' = 'parquet-lookup', "
                        + dimOptions
                        + ", 'refresh.interval' = '"
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

            publisher.publishVersion2();
            long published = System.nanoTime();
            long deadline = published + INTERVAL.plus(MARGIN).toNanos();
            long firstNew = -1;
            int stable = 0;
            int oldAfterPublish = 0;
            while (stable < STABLE_ROWS) {
                assertThat(System.nanoTime())
                        .as(
                                "%s: %d consecutive version-2 results within %s + %s of the"
                                        + " publication (first at %d ms, %d version-1 results"
                                        + " after it)",
                                what, STABLE_ROWS, INTERVAL, MARGIN, firstNew, oldAfterPublish)
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
                    "refresh %s: first version-2 result %d ms after the publication, %d version-1"
                            + " results after it, then %d consecutive version-2 results%n",
                    what, firstNew, oldAfterPublish, STABLE_ROWS);
        }
    }

    /**
     * Enriches {@code keys} with the dimension's label through the DataStream builder (format and
     * options as {@code table} sets them, sort key {@code k}, a left join) on the calling class's
     * MiniCluster: {@code "k label"}, or {@code "k -"} where no row matches.
     */
    static List<String> labelsThroughDataStream(ParquetEnrichment<Long> table, List<Long> keys)
            throws Exception {
        ParquetEnrichmentFunction<Long, String> function =
                table.sortKey("k")
                        .key(k -> k)
                        .columns("label")
                        .leftJoin()
                        .join((Long k, Row d) -> k + " " + (d == null ? "-" : d.getField(0)))
                        .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        List<String> actual = new ArrayList<>();
        try (CloseableIterator<String> it =
                AsyncDataStream.unorderedWait(
                                env.fromData(keys), function, 30, TimeUnit.SECONDS, 50)
                        .executeAndCollect()) {
            it.forEachRemaining(actual::add);
        }
        return actual;
    }

    /** Checks one joined row (k, ver, label) is consistent and returns its version. */
    static int version(Row row) {
        long k = (Long) row.getField(0);
        int ver = (Integer) row.getField(1);
        assertThat(row.getField(2)).as("row %s", row).isEqualTo(k + "/" + ver);
        return ver;
    }
}
