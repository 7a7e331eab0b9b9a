package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The disk tier checks the bytes it returns, not the mapping it copied them from (found from
 * outside: it checked the mapped bytes, then copied from the same mapping, so bytes changed in
 * between would have been served unchecked).
 */
class FileExtentsVerifyCopyTest {

    @TempDir Path dir;

    @Test
    void theCopyIsWhatIsChecked() throws IOException {
        int length = FileExtents.BLOCK * 3 + 1_000;
        byte[] bytes = new byte[length];
        new Random(42).nextBytes(bytes);
        Path file = dir.resolve("segment");
        Segment segment = Segment.create(file, 1 << 20);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), 4096);
        }
        Extent x =
                new Extent(
                        new FileId("s3a://b/k", 1 << 30, 1),
                        0,
                        length,
                        segment,
                        4096,
                        FileExtents.checksums(bytes));
        try {
            // Unaligned ranges inside one block, across blocks, up to the short last block.
            int[][] ranges = {
                {0, length}, {100, 50}, {8_000, 500}, {8_192, 8_192}, {20_000, 5_576}
            };
            for (int[] r : ranges) {
                byte[] copy = new byte[r[1] + 7];
                System.arraycopy(bytes, r[0], copy, 7, r[1]);
                assertThat(FileExtents.verifyCopy(x, r[0], r[1], copy, 7))
                        .as("%d+%d", r[0], r[1])
                        .isTrue();

                // The mapping is intact, the copy differs (changed after a check of the mapping):
                // refused.
                copy[7 + r[1] / 2] ^= 1;
                assertThat(FileExtents.verifyCopy(x, r[0], r[1], copy, 7))
                        .as("%d+%d", r[0], r[1])
                        .isFalse();
            }
        } finally {
            segment.drop();
        }
    }
}
