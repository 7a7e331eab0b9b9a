package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prepare} on an input that is not a whole Parquet file (found by a user: exit 2 and
 * parquet-java's raw "Expected magic number at tail", where {@code inspect} and {@code get} print
 * the engine's message and exit 3): the same message and exit code as the other commands.
 */
class PrepareBadInputTest {

    @TempDir Path dir;

    @Test
    void aTruncatedInputGetsTheEnginesMessageAndExitCodeThree() throws IOException {
        Path good = dir.resolve("good.parquet");
        ForeignFiles.write(good, List.of(3L, 1L, 2L));
        byte[] bytes = Files.readAllBytes(good);
        Path in = Files.createDirectories(dir.resolve("in"));
        Files.write(in.resolve("cut.parquet"), Arrays.copyOf(bytes, bytes.length - 100));

        ToolRunner.Result prepare = prepare(in);
        assertThat(prepare.exitCode()).as("%s", prepare).isEqualTo(3);
        assertThat(prepare.err())
                .contains("cut.parquet is not a readable Parquet file")
                .contains("truncated")
                .doesNotContain("Expected magic number");
        ToolRunner.Result inspect = ToolRunner.run("inspect", in.toString());
        assertThat(inspect.exitCode()).as("%s", inspect).isEqualTo(3);
        assertThat(inspect.err()).contains("cut.parquet is not a readable Parquet file");
    }

    @Test
    void aForeignFileGetsTheEnginesMessageAndExitCodeThree() throws IOException {
        Path in = Files.createDirectories(dir.resolve("in"));
        Files.writeString(in.resolve("notes.parquet"), "id,name\n1,a\n");

        ToolRunner.Result prepare = prepare(in);
        assertThat(prepare.exitCode()).as("%s", prepare).isEqualTo(3);
        assertThat(prepare.err())
                .contains("notes.parquet is not a readable Parquet file")
                .contains("some other kind of file");
    }

    private ToolRunner.Result prepare(Path in) {
        return ToolRunner.run(
                "prepare", in.toString(), dir.resolve("out").toString(), "--key", "k");
    }
}
