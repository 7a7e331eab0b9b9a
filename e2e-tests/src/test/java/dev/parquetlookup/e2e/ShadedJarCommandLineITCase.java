package dev.parquetlookup.e2e;

import dev.parquetlookup.writer.WriterOptions;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line as a user runs it: {@code java -jar} on the shaded jar, nothing else on the
 * class path. Checks the documented exit codes (0 ok, 1 key not found or not sorted, 2 usage error,
 * 3 unreadable input), that errors name the file, that no SLF4J warning is printed, that {@code
 * prepare} is all or nothing, and that it reads a Brotli file from DuckDB.
 */
class ShadedJarCommandLineITCase {

    private static Path jar;

    @TempDir Path dir;

    @BeforeAll
    static void locateJar() {
        jar = Path.of(FlinkCluster.requiredProperty("e2e.connector.jar"));
        assertThat(jar)
                .as("the shaded SQL jar; build it with mvn -B -pl e2e-tests -am verify")
                .isRegularFile();
    }

    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private Run run(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        // A command of a second or two: the JIT's first tier and the serial collector start it
        // in a third of the time on 2 busy cores (measured: 1.7 s instead of 5.3 s at load 17);
        // the jar, its class path and the arguments are a user's.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile());
        builder.environment().remove("HADOOP_CLASSPATH");
        builder.environment().remove("HADOOP_HOME");
        builder.environment().remove("CLASSPATH");
        Process p = builder.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finishes", List.of(args)).isTrue();
        Run run =
                new Run(
                        p.exitValue(),
                        Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
        assertThat(run.err()).as("no SLF4J noise: %s", run).doesNotContain("SLF4J");
        return run;
    }

    private static void duckDb(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    @Timeout(300)
    void exitCodesAndMessagesAreTheDocumentedOnes() throws Exception {
        Path customers = dir.resolve("customers");
        DimensionFiles.write(customers, 3_000, 2, WriterOptions.Codec.ZSTD);

        Run found = run("get", customers.toString(), "--value", "4242");
        assertThat(found.exit()).as("%s", found).isZero();
        assertThat(found.out()).contains("4242\tcustomer-4242\t" + (4242 % 7));

        Run miss = run("get", customers.toString(), "--value", "4243");
        assertThat(miss.exit()).as("%s", miss).isEqualTo(1);
        assertThat(miss.out()).contains("0 row(s)");

        Run badValue = run("get", customers.toString(), "--value", "abc");
        assertThat(badValue.exit()).as("%s", badValue).isEqualTo(2);
        assertThat(badValue.err()).contains("--value for column 'id'");

        Run noPath = run("inspect", dir.resolve("nope").toString());
        assertThat(noPath.exit()).as("%s", noPath).isEqualTo(2);
        assertThat(noPath.err()).contains("does not exist");

        Run inspect = run("inspect", customers.toString());
        assertThat(inspect.exit()).as("%s", inspect).isZero();
        assertThat(inspect.out()).contains("Sort order: verified by the engine");

        // A damaged footer: the error names the file, exit status 3.
        Path damaged = dir.resolve("damaged.parquet");
        try (Stream<Path> parts = Files.list(customers)) {
            Files.copy(parts.sorted().findFirst().orElseThrow(), damaged);
        }
        try (RandomAccessFile f = new RandomAccessFile(damaged.toFile(), "rw")) {
            f.seek(f.length() - 8);
            f.writeInt(0x7fffffff);
        }
        for (String command : List.of("inspect", "get")) {
            Run broken =
                    command.equals("get")
                            ? run(command, damaged.toString(), "--value", "1")
                            : run(command, damaged.toString());
            assertThat(broken.exit()).as("%s", broken).isEqualTo(3);
            assertThat(broken.err()).contains("damaged.parquet");
        }

        // DuckDB writes no sort key: inspect needs --key, and says NOT sorted with status 1.
        Path unsorted = dir.resolve("unsorted.parquet");
        duckDb(
                "COPY (SELECT (hash(i) % 100000)::BIGINT AS k, 'v' || i AS v FROM range(50000)"
                        + " t(i)) TO '"
                        + unsorted
                        + "' (FORMAT PARQUET, ROW_GROUP_SIZE 10000)");
        Run noKey = run("inspect", unsorted.toString());
        assertThat(noKey.exit()).as("%s", noKey).isZero();
        assertThat(noKey.out()).contains("Sort key: not declared");
        Run notSorted = run("inspect", unsorted.toString(), "--key", "k");
        assertThat(notSorted.exit()).as("%s", notSorted).isEqualTo(1);
        assertThat(notSorted.out()).contains("NOT sorted").contains("unsorted.parquet");
    }

    @Test
    @Timeout(300)
    void prepareIsAllOrNothingAndReadsBrotli() throws Exception {
        Path brotli = dir.resolve("brotli.parquet");
        duckDb(
                "COPY (SELECT (i * 7919 % 20000)::BIGINT AS k, 'name-' || i AS v FROM"
                        + " range(20000) t(i)) TO '"
                        + brotli
                        + "' (FORMAT PARQUET, COMPRESSION 'brotli')");
        Path out = dir.resolve("out");
        Run prepared = run("prepare", brotli.toString(), out.toString(), "--key", "k");
        assertThat(prepared.exit()).as("%s", prepared).isZero();
        assertThat(prepared.out()).contains("Wrote 20,000 rows into 1 file(s)");
        Run get = run("get", out.toString(), "--value", "7919");
        assertThat(get.exit()).as("%s", get).isZero();
        assertThat(get.out()).contains("7919\tname-1");

        List<String> before = listing(out);
        Path bad = dir.resolve("bad.csv");
        StringBuilder csv = new StringBuilder("k,v\n");
        for (int i = 0; i < 10_000; i++) {
            csv.append(i == 9_000 ? "oops" : Integer.toString(i))
                    .append(",v")
                    .append(i)
                    .append('\n');
        }
        Files.writeString(bad, csv);
        Run failed =
                run(
                        "prepare",
                        bad.toString(),
                        out.toString(),
                        "--key",
                        "k",
                        "--schema",
                        "k BIGINT, v STRING",
                        "--overwrite");
        assertThat(failed.exit()).as("%s", failed).isEqualTo(3);
        assertThat(failed.err()).contains("bad.csv").contains("is as it was");
        assertThat(listing(out)).isEqualTo(before);
        assertThat(run("get", out.toString(), "--value", "7919").exit()).isZero();
    }

    /**
     * The lakehouse command line of docs/formats.md: {@code java -jar} of the SQL jar alone reads a
     * Delta table (written by the Delta kernel) and an Iceberg table (Iceberg's writers) with
     * {@code --format}; the formats, Avro and Jackson come from inside the jar.
     */
    @Test
    @Timeout(300)
    void readsDeltaAndIcebergTablesWithJavaDashJar() throws Exception {
        Path delta = dir.resolve("delta/customers");
        LakehouseTables.writeDelta(delta, 3_000, 2);
        Path iceberg = dir.resolve("iceberg/customers");
        LakehouseTables.writeIceberg(iceberg, 3_000, 2);
        String expected = "4242\tcustomer-4242\t" + (4242 % 7);

        Run deltaGet =
                run("get", "--format", "delta", delta.toString(), "--key", "id", "--value", "4242");
        assertThat(deltaGet.exit()).as("%s", deltaGet).isZero();
        assertThat(deltaGet.out())
                .contains(expected)
                .contains("Table version read: delta version 1");
        Run deltaMiss =
                run("get", "--format", "delta", delta.toString(), "--key", "id", "--value", "4243");
        assertThat(deltaMiss.exit()).as("%s", deltaMiss).isEqualTo(1);
        Run deltaInspect = run("inspect", "--format", "delta", delta.toString(), "--key", "id");
        assertThat(deltaInspect.exit()).as("%s", deltaInspect).isZero();
        assertThat(deltaInspect.out()).contains("delta version 1").contains("3,000");

        Run icebergGet = run("get", "--format", "iceberg", iceberg.toString(), "--value", "4242");
        assertThat(icebergGet.exit()).as("%s", icebergGet).isZero();
        assertThat(icebergGet.out()).contains(expected).contains("iceberg snapshot");
        Run icebergInspect =
                run("inspect", "--format", "iceberg", iceberg.toString(), "--key", "id");
        assertThat(icebergInspect.exit()).as("%s", icebergInspect).isZero();
        assertThat(icebergInspect.out()).contains("iceberg snapshot").contains("3,000");

        // The table root without --format is refused with the fix, not read as plain files.
        Run plain = run("get", delta.toString(), "--key", "id", "--value", "4242");
        assertThat(plain.exit()).as("%s", plain).isEqualTo(2);
        assertThat(plain.err()).contains("--format delta");
    }

    private static List<String> listing(Path directory) throws IOException {
        try (Stream<Path> s = Files.walk(directory)) {
            return s.map(p -> directory.relativize(p).toString()).sorted().toList();
        }
    }
}
