package dev.parquetlookup.formats;

import dev.parquetlookup.tools.Main;

import io.delta.kernel.data.Row;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static dev.parquetlookup.formats.FormatTestTable.range;
import static dev.parquetlookup.formats.FormatTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code inspect} and {@code get} with {@code --format} on table roots, with the exit codes. */
class TableFormatCommandLineTest {

    @TempDir Path dir;

    /** Exit code, standard output, standard error. */
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** {@code ids} shuffled in place with {@code seed}; returns them. */
    private static long[] shuffled(long[] ids, long seed) {
        java.util.Random random = new java.util.Random(seed);
        for (int i = ids.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = ids[i];
            ids[i] = ids[j];
            ids[j] = t;
        }
        return ids;
    }

    @Test
    void getAndInspectReadTheCurrentDeltaVersionWithoutDeletedRows() throws IOException {
        String root = dir.resolve("delta").toUri().toString();
        DeltaTestTable delta =
                DeltaTestTable.create(root, Map.of("delta.enableDeletionVectors", "true"));
        Row file = delta.append(rows("a", "eu", range(0, 500, 1)));
        delta.deleteRows(file, false, 3, 4);
        long version = delta.version();

        Run hit = run("get", "--format", "delta", root, "--key", "id", "--value", "5");
        assertThat(hit.exit()).as(hit.err()).isZero();
        assertThat(hit.out())
                .contains("5\ta-5\teu")
                .contains("Table version read: delta version " + version + " of " + root);

        Run deleted = run("get", "--format", "DELTA", root, "--key", "id", "--value", "3");
        assertThat(deleted.exit()).as(deleted.err()).isEqualTo(1);
        assertThat(deleted.out()).contains("0 row(s) for (id) = (3)");

        Run inspect = run("inspect", "--format", "delta", root, "--key", "id");
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out())
                .contains("Table version read: delta version " + version)
                .contains("2 row(s) of 1 file(s) deleted");
    }

    /**
     * A Delta data file whose rows are not in key order (as Spark's OPTIMIZE leaves them): inspect
     * finds it by reading the rows, says it is served through a key index and never advises
     * prepare; get answers through the index.
     */
    @Test
    void inspectAndGetOnADeltaFileNotSortedByTheKey() throws IOException {
        String root = dir.resolve("delta-unsorted").toUri().toString();
        DeltaTestTable delta = DeltaTestTable.create(root, Map.of()).unsorted();
        long[] ids = shuffled(range(0, 500, 1), 27);
        delta.append(rows("a", "eu", ids));

        Run inspect = run("inspect", "--format", "delta", root, "--key", "id");
        assertThat(inspect.exit()).as("not sorted: exit status 1; %s", inspect.err()).isEqualTo(1);
        assertThat(inspect.out())
                .contains("Sort order: NOT sorted: ")
                .contains("The engine serves it through a key index")
                .contains("Key index: 1 of 1 file(s) not sorted by 'id'")
                .doesNotContain("prepare");

        Run hit = run("get", "--format", "delta", root, "--key", "id", "--value", "137");
        assertThat(hit.exit()).as(hit.err()).isZero();
        assertThat(hit.out()).contains("137\ta-137\teu");
    }

    /**
     * A column-mapped Delta table written by Spark (its files name their columns col-&lt;uuid&gt;):
     * inspect names the key as the table does, never as the files store it, both where the files'
     * statistics show them unsorted (version 2, an append without sorting) and where only their
     * rows do (version 3, OPTIMIZE into one page), and in the page index report.
     */
    @Test
    void inspectNamesAColumnMappedDeltaTablesKeyByItsTableName() throws IOException {
        String root = SparkDeltaTablesTest.fixtures().resolve("tables/mapped").toUri().toString();
        for (String version : new String[] {"2", "3"}) {
            Run inspect =
                    run(
                            "inspect",
                            "--format",
                            "delta",
                            root,
                            "--key",
                            "id",
                            "--hadoop",
                            "scan.version=" + version);
            assertThat(inspect.exit()).as("not sorted: exit 1; %s", inspect.err()).isEqualTo(1);
            assertThat(inspect.out())
                    .as("version %s", version)
                    .contains("Table version read: delta version " + version)
                    .contains("Sort order: NOT sorted: File ")
                    .contains("file(s) not sorted by 'id'")
                    .doesNotContain("col-");
        }

        // A column-mapped file whose pages' statistics show it unsorted (the engine's own
        // refusal, which names the key as the file was read).
        String shuffled = dir.resolve("delta-mapped-unsorted").toUri().toString();
        DeltaTestTable delta =
                DeltaTestTable.create(shuffled, Map.of("delta.columnMapping.mode", "name"))
                        .unsorted();
        long[] ids = shuffled(range(0, 50_000, 1), 28);
        delta.appendValues(FormatTestTable.Row.values(rows("a", "eu", ids)));
        Run inspect = run("inspect", "--format", "delta", shuffled, "--key", "id");
        assertThat(inspect.exit()).as("not sorted: exit 1; %s", inspect.err()).isEqualTo(1);
        assertThat(inspect.out())
                .contains("Sort order: NOT sorted: File ")
                .contains(" is not sorted by 'id': ")
                .contains("Key index: 1 of 1 file(s) not sorted by 'id'")
                .doesNotContain("col-");
    }

    @Test
    void getAndInspectReadTheCurrentIcebergSnapshot() throws IOException {
        String root = dir.resolve("iceberg").toUri().toString();
        IcebergTestTable iceberg = IcebergTestTable.create(root, PartitionSpec.unpartitioned());
        DataFile file = iceberg.append(rows("a", "eu", range(0, 500, 1)));
        iceberg.deletePositions(file, 7);
        long snapshot = iceberg.version();

        Run hit = run("get", "--format", "iceberg", root, "--key", "id", "--value", "8");
        assertThat(hit.exit()).as(hit.err()).isZero();
        assertThat(hit.out()).contains("8\ta-8\teu", "iceberg snapshot " + snapshot);
        assertThat(run("get", "--format", "iceberg", root, "--key", "id", "--value", "7").exit())
                .isEqualTo(1);

        Run inspect = run("inspect", "--format", "iceberg", root, "--key", "id");
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("iceberg snapshot " + snapshot, "1 row(s) of 1 file(s)");
    }

    /**
     * Without --key, inspect takes the Iceberg table's sort order as the key, as get and SQL do
     * (found by a user: "Sort key: not declared" while get served the table by its sort order).
     */
    @Test
    void inspectTakesTheIcebergSortOrderAsTheKey() throws IOException {
        String root = dir.resolve("sorted-iceberg").toUri().toString();
        IcebergTestTable iceberg = IcebergTestTable.create(root, PartitionSpec.unpartitioned());
        iceberg.table.replaceSortOrder().asc("id").commit();
        iceberg.append(rows("a", "eu", range(0, 500, 1)));

        Run inspect = run("inspect", "--format", "iceberg", root);
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out())
                .contains("Sort key: (id), declared")
                .contains("verified by the engine")
                .doesNotContain("not declared");
        Run get = run("get", "--format", "iceberg", root, "--value", "8");
        assertThat(get.exit()).as(get.err()).isZero();
    }

    @Test
    void anUnknownFormatIsAUsageErrorAndAPathThatIsNotATableCannotBeRead() throws IOException {
        Path plain = Files.createDirectories(dir.resolve("plain"));
        Run unknown = run("get", "--format", "hudi", plain.toString(), "--value", "1");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("--format: Unknown table format 'hudi'", "delta");

        Run notATable = run("inspect", "--format", "delta", plain.toUri().toString());
        assertThat(notATable.exit()).isEqualTo(3);
        assertThat(notATable.err()).contains("is not a Delta table");
        Run notIceberg =
                run("get", "--format", "iceberg", plain.toUri().toString(), "--value", "1");
        assertThat(notIceberg.exit()).isEqualTo(3);
        assertThat(notIceberg.err()).contains("is not an Iceberg table");
    }

    /**
     * inspect on an Iceberg table whose files name a column differently (a rename), lack one (an
     * added column) and are partitioned: the files are reported with the table's names, agree on
     * the schema, and the table is usable (exit 0).
     */
    @Test
    void inspectReportsAnEvolvedIcebergTableWithTheTableNames() throws IOException {
        String root = dir.resolve("evolved").toUri().toString();
        IcebergTestTable iceberg = IcebergTestTable.create(root, IcebergTestTable.byRegion());
        iceberg.append(rows("a", "eu", range(0, 300, 1)));
        iceberg.table.updateSchema().renameColumn("name", "label").commit();
        iceberg.table
                .updateSchema()
                .addColumn("score", org.apache.iceberg.types.Types.IntegerType.get())
                .commit();
        java.util.List<Map<String, Object>> later = new java.util.ArrayList<>();
        for (long id = 300; id < 600; id++) {
            later.add(
                    new java.util.HashMap<>(
                            Map.of("id", id, "label", "b-" + id, "region", "us", "score", 1)));
        }
        iceberg.appendValues(later);

        Run inspect = run("inspect", "--format", "iceberg", root, "--key", "id");
        assertThat(inspect.exit()).as(inspect.out() + inspect.err()).isZero();
        assertThat(inspect.out())
                .doesNotContain("Schema: the files disagree")
                .contains("label")
                .contains("score")
                .contains("Table version read: iceberg snapshot " + iceberg.version());

        Run get = run("get", "--format", "iceberg", root, "--key", "id", "--value", "5");
        assertThat(get.exit()).as(get.err()).isZero();
        assertThat(get.out()).contains("5\ta-5\teu\t");
    }
}
