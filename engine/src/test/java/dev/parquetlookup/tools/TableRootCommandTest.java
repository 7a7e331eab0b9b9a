package dev.parquetlookup.tools;

import dev.parquetlookup.engine.source.TableRootsTest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line refuses a Delta or Iceberg table's root read as plain files (the default {@code
 * --format files}) with a usage error (exit 2) naming the flag that fixes it: before, {@code get}
 * answered a key the table holds once with two rows, one from a file the log had removed.
 */
class TableRootCommandTest {

    @TempDir Path dir;

    @Test
    void getInspectAndPrepareRefuseADeltaRoot() throws IOException {
        Path root = TableRootsTest.deltaRootWithARemovedFile(dir);
        ToolRunner.Result get = ToolRunner.run("get", root.toString(), "--value", "7");
        assertThat(get.exitCode()).as(get.toString()).isEqualTo(2);
        assertThat(get.err()).contains("_delta_log").contains("--format delta");
        assertThat(get.out()).doesNotContain("part-1.parquet-7");

        ToolRunner.Result inspect = ToolRunner.run("inspect", root.toString());
        assertThat(inspect.exitCode()).as(inspect.toString()).isEqualTo(2);
        assertThat(inspect.err()).contains("--format delta");
        assertThat(inspect.out()).doesNotContain("verified");

        ToolRunner.Result prepare =
                ToolRunner.run(
                        "prepare", root.toString(), dir.resolve("out").toString(), "--key", "k");
        assertThat(prepare.exitCode()).as(prepare.toString()).isEqualTo(2);
        assertThat(prepare.err()).contains("plain Parquet files only");
    }

    @Test
    void getRefusesAnIcebergRoot() throws IOException {
        Path root = TableRootsTest.icebergRoot(dir);
        ToolRunner.Result get = ToolRunner.run("get", root.toString(), "--value", "7");
        assertThat(get.exitCode()).as(get.toString()).isEqualTo(2);
        assertThat(get.err()).contains("Iceberg").contains("--format iceberg");
    }
}
