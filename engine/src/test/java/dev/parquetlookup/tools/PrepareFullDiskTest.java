package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prepare} on an output disk that fills up (found by a user: Hadoop's {@code FSError}
 * escaped with a 40-line stack trace and exit 1, and {@code OUT/_prepare-<id>/part-00000.parquet}
 * stayed, so the disk stayed full and each retry added one): the staging directory is removed, the
 * message names the disk error and the file, and the exit code is 3 as documented.
 */
class PrepareFullDiskTest {

    @TempDir Path dir;

    @Test
    void aFullOutputDiskIsCleanedUpAndReportedWithExitCodeThree() throws IOException {
        Path in = dir.resolve("in.parquet");
        List<Long> keys =
                LongStream.range(0, 20_000).map(k -> (k * 7_919) % 20_000).boxed().toList();
        ForeignFiles.write(in, keys);
        Path out = Files.createDirectories(dir.resolve("out"));

        for (int attempt = 0; attempt < 2; attempt++) {
            ToolRunner.Result r =
                    ToolRunner.run(
                            "prepare",
                            in.toString(),
                            out.toString(),
                            "--key",
                            "k",
                            "--hadoop",
                            "fs.file.impl=" + FullDiskFileSystem.class.getName());
            assertThat(r.exitCode()).as("%s", r).isEqualTo(3);
            assertThat(r.err())
                    .contains("No space left on device")
                    .contains("part-00000.parquet")
                    .contains("nothing was published, OUT " + out + " is as it was")
                    .doesNotContain("\tat ")
                    .doesNotContain("FSError");
            try (Stream<Path> left = Files.list(out)) {
                assertThat(left).as("no staging directory or partial file left").isEmpty();
            }
        }
    }
}
