package dev.parquetlookup.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code prepare}'s errors say where (found by a user: a corrupt data page in one of several inputs
 * gave a raw Thrift {@code PageHeader} message naming no file; a failed spill said only "No space
 * left on device", not which directory nor the flag that moves it).
 */
class PrepareDamagedInputTest {

    @TempDir Path dir;

    @Test
    void aCorruptPageNamesTheFileAndRowGroup() throws IOException {
        Path in = Files.createDirectories(dir.resolve("in"));
        ForeignFiles.write(in.resolve("a.parquet"), LongStream.range(0, 500).boxed().toList());
        Path bad = in.resolve("b.parquet");
        ForeignFiles.write(bad, LongStream.range(500, 1000).boxed().toList());
        // Overwrite the first data page's header (right after the magic) with garbage.
        try (RandomAccessFile f = new RandomAccessFile(bad.toFile(), "rw")) {
            f.seek(4);
            f.write(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x13, 0x7f});
        }
        ToolRunner.Result r =
                ToolRunner.run(
                        "prepare", in.toString(), dir.resolve("out").toString(), "--key", "k");
        assertThat(r.exitCode()).as("%s", r).isEqualTo(3);
        assertThat(r.err())
                .contains("b.parquet, row group 0: a page cannot be read")
                .contains("The file is damaged")
                .doesNotContain("\tat ");
    }

    @Test
    void aFailedSpillNamesTheDirectoryAndTheFlag() throws IOException {
        Path in = dir.resolve("in.parquet");
        ForeignFiles.write(in, LongStream.range(0, 5_000).map(k -> 4_999 - k).boxed().toList());
        Path notADirectory = Files.writeString(dir.resolve("spill"), "a file, not a directory");
        ToolRunner.Result r =
                ToolRunner.run(
                        "prepare",
                        in.toString(),
                        dir.resolve("out").toString(),
                        "--key",
                        "k",
                        "--sort-buffer-rows",
                        "1000",
                        "--temp-dir",
                        notADirectory.toString());
        assertThat(r.exitCode()).as("%s", r).isEqualTo(3);
        assertThat(r.err())
                .contains("The sort could not spill")
                .contains(notADirectory.toString())
                .contains("--temp-dir")
                .contains("nothing was published");
        assertThat(dir.resolve("out"))
                .as("OUT did not exist before: it still does not")
                .doesNotExist();
    }
}
