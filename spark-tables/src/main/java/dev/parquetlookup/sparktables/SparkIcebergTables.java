package dev.parquetlookup.sparktables;

import dev.parquetlookup.fixtures.FixtureFileSystem;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes the Iceberg tables of {@code formats/src/test/resources/spark-iceberg/} with Apache Spark
 * (iceberg-spark-runtime, a Hadoop catalog: tables kept by location), and Spark's own read of every
 * snapshot. The rows are those of {@link SparkDeltaTables#rows}.
 *
 * <p>Output, under the directory given as the only argument:
 *
 * <ul>
 *   <li>{@code tables/db/<table>/}: the Iceberg table ({@code metadata/}, {@code data/}), its
 *       locations under {@code file:/parquet-lookup-fixtures/<the directory's name>/tables}
 *       ({@link FixtureFileSystem}), not under the directory's own path;
 *   <li>{@code expected/<table>/v<N>.tsv.gz}: the table's N-th snapshot as Spark reads it (the
 *       format of {@link SparkDeltaTables#writeExpected});
 *   <li>{@code expected/<table>/history.tsv}: N, the snapshot id, the snapshot's operation.
 * </ul>
 */
public final class SparkIcebergTables {

    private static final String COLUMNS =
            "(id BIGINT, name STRING, region STRING, score INT, ts TIMESTAMP)";

    private final SparkSession spark;
    private final Path out;

    private SparkIcebergTables(SparkSession spark, Path out) {
        this.spark = spark;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]).toAbsolutePath().normalize();
        SparkDeltaTables.deleteRecursively(out.resolve("tables"));
        SparkDeltaTables.deleteRecursively(out.resolve("expected"));
        long start = System.nanoTime();
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("parquet-lookup spark iceberg tables")
                        .config(
                                "spark.sql.extensions",
                                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
                        .config("spark.sql.catalog.ice", "org.apache.iceberg.spark.SparkCatalog")
                        .config("spark.sql.catalog.ice.type", "hadoop")
                        // Written under file:/parquet-lookup-fixtures/<out's name>/tables: the
                        // metadata names no folder of this machine (FixtureFileSystem).
                        .config(
                                "spark.sql.catalog.ice.warehouse",
                                "file:"
                                        + FixtureFileSystem.ROOT
                                        + "/"
                                        + out.getFileName()
                                        + "/tables")
                        .config("spark.hadoop.fs.file.impl", FixtureFileSystem.class.getName())
                        .config("spark.hadoop.fs.file.impl.disable.cache", "true")
                        .config(
                                "spark.hadoop." + FixtureFileSystem.DIR,
                                out.getParent().toString())
                        .config("spark.sql.session.timeZone", "UTC")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "4")
                        .config("spark.sql.adaptive.enabled", "false")
                        .getOrCreate();
        try {
            SparkIcebergTables t = new SparkIcebergTables(spark, out);
            t.unsorted();
            t.compacted();
        } finally {
            spark.stop();
        }
        SparkDeltaTables.tidy(out.resolve("tables"));
        System.out.printf(
                "Wrote the Spark Iceberg tables to %s in %.1f s%n",
                out, (System.nanoTime() - start) / 1e9);
    }

    /** A table without a sort order: two appends without sorting (4 + 2 files, ids reused). */
    private void unsorted() throws IOException {
        spark.sql(
                "CREATE TABLE ice.db.unsorted "
                        + COLUMNS
                        + " USING iceberg TBLPROPERTIES ('format-version' = '2')");
        append("ice.db.unsorted", SparkDeltaTables.rows(spark, 3_000, 0, 1, 4, "a", false));
        append("ice.db.unsorted", SparkDeltaTables.rows(spark, 1_000, 2_500, 1, 2, "b", false));
        expect("unsorted");
    }

    /**
     * Even ids then odd ids, each written sorted (4 files each); {@code rewrite_data_files} (bin
     * packing, as scheduled compaction runs it); a merge-on-read {@code DELETE} and {@code UPDATE}
     * (position delete files).
     */
    private void compacted() throws IOException {
        spark.sql(
                "CREATE TABLE ice.db.compacted "
                        + COLUMNS
                        + " USING iceberg TBLPROPERTIES ('format-version' = '2',"
                        + " 'write.delete.mode' = 'merge-on-read',"
                        + " 'write.update.mode' = 'merge-on-read')");
        append("ice.db.compacted", SparkDeltaTables.rows(spark, 1_500, 0, 2, 4, "e", true));
        append("ice.db.compacted", SparkDeltaTables.rows(spark, 1_500, 1, 2, 4, "o", true));
        spark.sql(
                "CALL ice.system.rewrite_data_files(table => 'db.compacted',"
                        + " options => map('min-input-files', '2'))");
        spark.sql("DELETE FROM ice.db.compacted WHERE id % 11 = 0");
        spark.sql("UPDATE ice.db.compacted SET region = 'upd' WHERE id % 7 = 3");
        expect("compacted");
    }

    private static void append(String table, Dataset<Row> rows) {
        try {
            rows.writeTo(table).append();
        } catch (NoSuchTableException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Spark's read of every snapshot of {@code table}, and the list of snapshots. */
    private void expect(String table) throws IOException {
        Path dir = out.resolve("expected").resolve(table);
        Files.createDirectories(dir);
        List<Row> snapshots =
                spark.sql(
                                "SELECT snapshot_id, operation FROM ice.db."
                                        + table
                                        + ".snapshots ORDER BY committed_at")
                        .collectAsList();
        List<String> lines = new ArrayList<>();
        for (int n = 0; n < snapshots.size(); n++) {
            long id = snapshots.get(n).getLong(0);
            lines.add(n + "\t" + id + "\t" + snapshots.get(n).getString(1));
            SparkDeltaTables.writeExpected(
                    spark.sql("SELECT * FROM ice.db." + table + " VERSION AS OF " + id),
                    dir.resolve("v" + n + ".tsv.gz"));
        }
        Files.write(dir.resolve("history.tsv"), lines, StandardCharsets.UTF_8);
    }
}
