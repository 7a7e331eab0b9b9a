package dev.parquetlookup.formats;

import dev.parquetlookup.engine.lookup.TableConfig;
import dev.parquetlookup.engine.lookup.UnsortedFiles;
import dev.parquetlookup.engine.table.RefreshingTable;
import dev.parquetlookup.fixtures.FixtureFileSystem;

import org.apache.parquet.avro.AvroParquetReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;

import org.apache.hadoop.conf.Configuration;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Iceberg tables written and maintained by Apache Spark 4.1 (iceberg-spark-runtime 1.12; the
 * fixtures of {@code src/test/resources/spark-iceberg/}, written by the {@code spark-tables}
 * module): every snapshot, opened with {@code 'scan.version'}, answers every id and every name
 * exactly as Spark reads it, as {@link SparkDeltaTablesTest} checks the Delta tables: appends
 * without sorting to a table without a sort order, {@code rewrite_data_files} (bin packing) over
 * sorted files, merge-on-read {@code DELETE} and {@code UPDATE} (position delete files).
 *
 * <p>Iceberg records absolute locations, so the tables were written under {@code
 * file:/parquet-lookup-fixtures/spark-iceberg/...} and are read through {@code 'format' =
 * 'iceberg'} with {@link FixtureFileSystem} as the table's {@code fs.file.impl}, which maps that
 * prefix to the test resources: the tables name no folder of the machine that wrote them, and the
 * test runs wherever the repository is checked out.
 */
class SparkIcebergTablesTest extends SparkTableChecks {

    /** The snapshots (by their place in the table's history) holding a file not sorted by id. */
    private static final Map<String, Set<Long>> UNSORTED =
            Map.of("unsorted", Set.of(0L, 1L), "compacted", Set.of(2L, 3L, 4L));

    /** Where the tables' locations say they are. */
    private static final String LOCATION = "file:" + FixtureFileSystem.ROOT + "/spark-iceberg";

    static Path fixtures() {
        return fixtures("spark-iceberg");
    }

    /** Every (table, n, snapshot id, operation) of the fixtures. */
    static Stream<String[]> snapshots() throws IOException {
        return history(fixtures(), 7);
    }

    /**
     * The table's snapshot by its Iceberg location, read through {@link FixtureFileSystem}: the
     * format's own reading, its Hadoop options being a user's.
     */
    private RefreshingTable open(String table, String snapshot, UnsortedFiles unsorted)
            throws IOException {
        return open(
                TableConfig.builder(LOCATION + "/tables/db/" + table)
                        .sortKey(List.of("id"))
                        .hadoopOptions(
                                Map.of(
                                        "scan.version",
                                        snapshot,
                                        "fs.file.impl",
                                        FixtureFileSystem.class.getName(),
                                        "fs.file.impl.disable.cache",
                                        "true",
                                        FixtureFileSystem.DIR,
                                        fixtures().getParent().toString()))
                        .unsortedFiles(unsorted)
                        .indexDirectory(dir.resolve("indexes"))
                        .metadataCache(cache)
                        .build(),
                IcebergFormat.NAME);
    }

    @ParameterizedTest(name = "{0} #{1} ({3})")
    @MethodSource("snapshots")
    void everyRowOfEverySnapshotIsServedAsSparkReadsIt(
            String table, String n, String snapshot, String operation) throws IOException {
        Expected expected =
                Expected.read(fixtures().resolve("expected").resolve(table), Long.parseLong(n));
        assertThat(expected.columns()).containsExactly("id", "name", "region", "score", "ts");
        assertServedAsSparkReadsIt(
                expected,
                "iceberg snapshot " + snapshot,
                UNSORTED.get(table).contains(Long.parseLong(n)),
                unsorted -> open(table, snapshot, unsorted));
    }

    /**
     * Every location in the tables, decoded (metadata JSON, the Avro manifest lists and manifests,
     * the Parquet files' footers and rows, among them the position delete files' {@code
     * file_path}), is under {@code file:/parquet-lookup-fixtures/spark-iceberg/tables/db/<table>}:
     * nothing names a folder of the machine that wrote them.
     */
    @Test
    void theTablesNameNoFolderOfTheMachineThatWroteThem() throws IOException {
        Pattern location =
                Pattern.compile(
                        "\\b(file|hdfs|s3|s3a|s3n|gs|abfss?|wasbs?|viewfs):/[^\\s\"',}\\]]*");
        Path tables = fixtures().resolve("tables/db");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(tables)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        Set<String> kinds = new TreeSet<>();
        int locations = 0;
        for (Path file : files) {
            String table = tables.relativize(file).getName(0).toString();
            String text = decoded(file);
            Matcher m = location.matcher(text);
            while (m.find()) {
                assertThat(m.group())
                        .as("a location in %s", file)
                        .matches(Pattern.quote(LOCATION + "/tables/db/" + table) + "(/.*)?");
                locations++;
                String name = file.getFileName().toString();
                kinds.add(
                        name.endsWith("-deletes.parquet")
                                ? "position deletes"
                                : name.substring(name.lastIndexOf('.') + 1));
            }
            assertThat(text).as("%s", file).doesNotContain(fixtures().toString());
        }
        assertThat(kinds).contains("json", "avro", "position deletes");
        assertThat(locations).isGreaterThan(50);
    }

    /** {@code file}'s contents as text: Avro and Parquet files decoded, record by record. */
    private static String decoded(Path file) throws IOException {
        String name = file.getFileName().toString();
        StringBuilder text = new StringBuilder();
        if (name.endsWith(".avro")) {
            try (DataFileReader<GenericRecord> in =
                    new DataFileReader<>(file.toFile(), new GenericDatumReader<>())) {
                for (String key : in.getMetaKeys()) {
                    text.append(in.getMetaString(key)).append('\n');
                }
                for (GenericRecord r : in) {
                    text.append(r).append('\n');
                }
            }
        } else if (name.endsWith(".parquet")) {
            Configuration conf = new Configuration();
            HadoopInputFile input =
                    HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.toUri()), conf);
            try (ParquetFileReader footer = ParquetFileReader.open(input)) {
                footer.getFileMetaData()
                        .getKeyValueMetaData()
                        .values()
                        .forEach(v -> text.append(v).append('\n'));
            }
            try (ParquetReader<GenericRecord> in =
                    AvroParquetReader.<GenericRecord>builder(input).withConf(conf).build()) {
                for (GenericRecord r = in.read(); r != null; r = in.read()) {
                    text.append(r).append('\n');
                }
            }
        } else {
            text.append(Files.readString(file, StandardCharsets.UTF_8));
        }
        return text.toString();
    }
}
