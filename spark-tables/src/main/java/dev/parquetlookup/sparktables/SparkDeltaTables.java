package dev.parquetlookup.sparktables;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.TimestampType;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

import static org.apache.spark.sql.functions.col;

/**
 * Writes the Delta tables of {@code formats/src/test/resources/spark-delta/} with Apache Spark
 * (delta-spark), as users' jobs and maintenance leave them, and Spark's own read of every version
 * as the rows a reader must serve. Run in its own JVM ({@code mvn -B -Pspark-tables -pl
 * spark-tables package}); everything is written from fixed arithmetic (no random numbers), so a
 * rerun writes the same rows (file names, log timestamps and file boundaries may differ).
 *
 * <p>Output, under the directory given as the only argument:
 *
 * <ul>
 *   <li>{@code tables/<table>/}: the Delta table (its {@code _delta_log/} and data files);
 *   <li>{@code expected/<table>/v<N>.tsv.gz}: version N as Spark reads it (gzip): a header of the
 *       columns, then one row per line, tab-separated, sorted by id; {@code \N} is NULL, a
 *       TIMESTAMP is its microseconds since the epoch;
 *   <li>{@code expected/<table>/history.tsv}: version, then the operation that wrote it.
 * </ul>
 */
public final class SparkDeltaTables {

    /** Ids that are never written ({@code id % 13 == 5}): looked up as absent keys. */
    static final String ABSENT = "k % 13 != 5";

    private final SparkSession spark;
    private final Path out;

    private SparkDeltaTables(SparkSession spark, Path out) {
        this.spark = spark;
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]).toAbsolutePath();
        deleteRecursively(out.resolve("tables"));
        deleteRecursively(out.resolve("expected"));
        long start = System.nanoTime();
        SparkSession spark =
                SparkSession.builder()
                        .master("local[2]")
                        .appName("parquet-lookup spark tables")
                        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                        .config(
                                "spark.sql.catalog.spark_catalog",
                                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                        .config("spark.sql.session.timeZone", "UTC")
                        .config("spark.ui.enabled", "false")
                        .config("spark.sql.shuffle.partitions", "4")
                        // Small tables: keep the writes' file counts as the code below asks.
                        .config("spark.sql.adaptive.enabled", "false")
                        .getOrCreate();
        try {
            SparkDeltaTables t = new SparkDeltaTables(spark, out);
            t.unsorted();
            t.optimize();
            t.zorder();
            t.update();
            t.mapped();
        } finally {
            spark.stop();
        }
        tidy(out.resolve("tables"));
        System.out.printf(
                "Wrote the Spark tables to %s in %.1f s%n", out, (System.nanoTime() - start) / 1e9);
    }

    /**
     * {@code n} rows whose ids are {@code offset + stride * k} for k in 0..n-1 (less the absent
     * ones), in {@code files} partitions; unsorted inside each (k runs through a permutation of
     * 0..n-1), unless {@code sorted}, then range-partitioned and sorted by id as a careful writer
     * would.
     */
    private Dataset<Row> rows(
            long n, long offset, long stride, int files, String tag, boolean sorted) {
        return rows(spark, n, offset, stride, files, tag, sorted);
    }

    /** As {@link #rows(long, long, long, int, String, boolean)}, in {@code spark}. */
    static Dataset<Row> rows(
            SparkSession spark,
            long n,
            long offset,
            long stride,
            int files,
            String tag,
            boolean sorted) {
        Dataset<Row> rows =
                spark.range(0, n, 1, files)
                        .selectExpr("(id * 7919) % " + n + " AS p")
                        .selectExpr(offset + " + " + stride + " * p AS k")
                        .where(ABSENT)
                        .selectExpr(
                                "k AS id",
                                "concat('n', k % 997, '-" + tag + "') AS name",
                                "CASE WHEN k % 17 = 0 THEN NULL"
                                        + " ELSE element_at(array('eu', 'us', 'ap'), CAST(k % 3 AS"
                                        + " INT) + 1) END AS region",
                                "CAST(k * 31 % 1000 AS INT) AS score",
                                "timestamp_micros(1700000000000000 + k * 1000003) AS ts");
        return sorted ? rows.repartitionByRange(files, col("id")).sortWithinPartitions("id") : rows;
    }

    private String path(String table) {
        return out.resolve("tables").resolve(table).toString();
    }

    private void append(String table, Dataset<Row> rows) {
        rows.write().format("delta").mode("append").save(path(table));
    }

    private void sql(String table, String statement) {
        spark.sql(statement.replace("$T", "delta.`" + path(table) + "`"));
    }

    /** (a) Plain writes without sorting: 4 files, then 2 more (ids 2500..2999 twice). */
    private void unsorted() throws IOException {
        String t = "unsorted";
        append(t, rows(3_000, 0, 1, 4, "a", false));
        append(t, rows(1_000, 2_500, 1, 2, "b", false));
        expect(t);
    }

    /** (b) Even ids then odd ids, each written sorted in 4 files; then {@code OPTIMIZE}. */
    private void optimize() throws IOException {
        String t = "optimize";
        append(t, rows(1_500, 0, 2, 4, "e", true));
        append(t, rows(1_500, 1, 2, 4, "o", true));
        sql(t, "OPTIMIZE $T");
        expect(t);
    }

    /** (c) As (b), then {@code OPTIMIZE ZORDER BY (id)} into files of at most ~16 KB. */
    private void zorder() throws IOException {
        String t = "zorder";
        append(t, rows(1_500, 0, 2, 4, "e", true));
        append(t, rows(1_500, 1, 2, 4, "o", true));
        spark.conf().set("spark.databricks.delta.optimize.maxFileSize", "16384");
        sql(t, "OPTIMIZE $T ZORDER BY (id)");
        spark.conf().unset("spark.databricks.delta.optimize.maxFileSize");
        expect(t);
    }

    /**
     * (d) 8 small sorted files; an {@code UPDATE} whose scan covers all of them (rewritten into
     * fewer files); deletion vectors enabled; a {@code DELETE} (deletion vectors); an {@code
     * UPDATE} with deletion vectors.
     */
    private void update() throws IOException {
        String t = "update";
        spark.conf()
                .set("spark.databricks.delta.properties.defaults.enableDeletionVectors", "false");
        append(t, rows(4_000, 0, 1, 8, "u", true));
        spark.conf().unset("spark.databricks.delta.properties.defaults.enableDeletionVectors");
        sql(t, "UPDATE $T SET score = score + 1000, name = concat(name, '-x') WHERE id % 5 = 0");
        sql(t, "ALTER TABLE $T SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')");
        sql(t, "DELETE FROM $T WHERE id % 11 = 0");
        sql(t, "UPDATE $T SET region = 'upd', ts = ts + INTERVAL 1 DAY WHERE id % 7 = 3");
        expect(t);
    }

    /**
     * (e) Column mapping by name: sorted files, {@code name} renamed to {@code label}, an unsorted
     * append, then {@code OPTIMIZE}.
     */
    private void mapped() throws IOException {
        String t = "mapped";
        spark.conf().set("spark.databricks.delta.properties.defaults.columnMapping.mode", "name");
        append(t, rows(2_000, 0, 1, 4, "m", true));
        spark.conf().unset("spark.databricks.delta.properties.defaults.columnMapping.mode");
        sql(t, "ALTER TABLE $T RENAME COLUMN name TO label");
        append(t, rows(1_000, 1_500, 1, 2, "r", false).withColumnRenamed("name", "label"));
        sql(t, "OPTIMIZE $T");
        expect(t);
    }

    /** Spark's read of every version of {@code table}, and its history. */
    private void expect(String table) throws IOException {
        Path dir = out.resolve("expected").resolve(table);
        Files.createDirectories(dir);
        List<Row> history =
                spark.sql("DESCRIBE HISTORY delta.`" + path(table) + "`")
                        .select("version", "operation")
                        .orderBy("version")
                        .collectAsList();
        List<String> lines = new ArrayList<>();
        for (Row h : history) {
            long version = h.getLong(0);
            lines.add(version + "\t" + h.getString(1));
            Dataset<Row> read =
                    spark.read().format("delta").option("versionAsOf", version).load(path(table));
            writeExpected(read, dir.resolve("v" + version + ".tsv.gz"));
        }
        Files.write(dir.resolve("history.tsv"), lines, StandardCharsets.UTF_8);
    }

    /** Removes Hadoop's {@code .<file>.crc} side files and empty directories under {@code dir}. */
    static void tidy(Path dir) throws IOException {
        // Hadoop's local file system leaves a .<file>.crc beside each file; readers do not need
        // them.
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.toList()) {
                String name = p.getFileName().toString();
                if (name.startsWith(".") && name.endsWith(".crc")) {
                    Files.delete(p);
                }
            }
        }
        // Nor empty directories (_delta_log/_staged_commits/): git would not keep them anyway.
        try (Stream<Path> dirs = Files.walk(dir)) {
            for (Path p : dirs.sorted(Comparator.reverseOrder()).toList()) {
                if (Files.isDirectory(p)) {
                    try (Stream<Path> in = Files.list(p)) {
                        if (in.findAny().isEmpty()) {
                            Files.delete(p);
                        }
                    }
                }
            }
        }
    }

    /**
     * {@code read} as the expected rows: a header, then one tab-separated line per row sorted by
     * id, {@code \N} for NULL, a TIMESTAMP as microseconds since the epoch; gzip.
     */
    static void writeExpected(Dataset<Row> read, Path file) throws IOException {
        List<String> columns = new ArrayList<>();
        List<String> exprs = new ArrayList<>();
        for (StructField f : read.schema().fields()) {
            columns.add(f.name());
            exprs.add(
                    f.dataType() instanceof TimestampType
                            ? "CAST(unix_micros(`" + f.name() + "`) AS STRING)"
                            : "CAST(`" + f.name() + "` AS STRING)");
        }
        List<String[]> rows = new ArrayList<>();
        for (Row r : read.selectExpr(exprs.toArray(String[]::new)).collectAsList()) {
            String[] values = new String[r.length()];
            for (int i = 0; i < values.length; i++) {
                values[i] = r.isNullAt(i) ? "\\N" : r.getString(i);
            }
            rows.add(values);
        }
        rows.sort(
                Comparator.<String[]>comparingLong(v -> Long.parseLong(v[0]))
                        .thenComparing(v -> String.join("\t", v)));
        List<String> text = new ArrayList<>();
        text.add(String.join("\t", columns));
        for (String[] v : rows) {
            text.add(String.join("\t", v));
        }
        try (Writer w =
                new OutputStreamWriter(
                        new GZIPOutputStream(Files.newOutputStream(file)),
                        StandardCharsets.UTF_8)) {
            w.write(String.join("\n", text) + "\n");
        }
    }

    static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
