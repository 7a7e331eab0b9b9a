package dev.parquetlookup.formats;

import dev.parquetlookup.tools.Main;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static dev.parquetlookup.formats.IcebergTestTable.range;
import static dev.parquetlookup.formats.IcebergTestTable.rows;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code inspect} and {@code get} with {@code --format iceberg} name the snapshot they read. */
class IcebergToolsTest {

    @TempDir Path dir;

    private record Result(int exitCode, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void getAndInspectReadTheCurrentSnapshot() throws IOException {
        String location = dir.resolve("dim").toUri().toString();
        IcebergTestTable iceberg = IcebergTestTable.create(location, PartitionSpec.unpartitioned());
        DataFile first = iceberg.append(rows("a", "eu", range(0, 200, 1)));
        iceberg.overwrite(first, rows("b", "us", range(0, 200, 2)));
        long current = iceberg.currentSnapshotId();

        Result get = run("get", location, "--format", "iceberg", "--sort-key", "id", "--key", "42");
        assertThat(get.exitCode()).as(get.err()).isZero();
        assertThat(get.out())
                .contains("42\tb-42\tus")
                .contains("1 row(s) for (id) = (42)")
                .contains("Read iceberg snapshot " + current + " of " + location);
        Result miss =
                run("get", location, "--format", "iceberg", "--sort-key", "id", "--key", "43");
        assertThat(miss.out()).contains("0 row(s) for (id) = (43)");

        Result inspect = run("inspect", location, "--format", "iceberg", "--key", "id");
        assertThat(inspect.exitCode()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("iceberg snapshot " + current);

        Result notATable = run("get", dir.toUri().toString(), "--format", "iceberg", "--key", "1");
        assertThat(notATable.exitCode()).isNotZero();
        assertThat(notATable.err()).contains("is not an Iceberg table");
    }
}
