package dev.parquetlookup.io;

import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MappedRangeSourceTest {

    private static final long SEED = 7L;

    @TempDir Path dir;

    @Test
    void readsTheFilesBytesAcrossSegmentBoundaries() throws IOException {
        byte[] content = randomBytes(10_000);
        Path file = write("data.bin", content);
        SplittableRandom random = new SplittableRandom(SEED);
        try (MappedRangeSource source =
                MappedRangeSource.tryOpen(id(file, content.length), file.toFile(), 1_000)) {
            assertThat(source).isNotNull();
            for (int i = 0; i < 2_000; i++) {
                int length = random.nextInt(2_500);
                int position = random.nextInt(content.length - length + 1);
                byte[] read = source.read(new FileRange(position, length));
                assertThat(read)
                        .as("range %d+%d (seed %d)", position, length, SEED)
                        .isEqualTo(Arrays.copyOfRange(content, position, position + length));
            }
            byte[][] all = source.readAll(List.of(new FileRange(999, 2), new FileRange(0, 10_000)));
            assertThat(all[0]).isEqualTo(Arrays.copyOfRange(content, 999, 1_001));
            assertThat(all[1]).isEqualTo(content);
        }
    }

    @Test
    void readWithSeesTheBytesInPlaceAndAcrossSegments() throws IOException {
        byte[] content = randomBytes(10_000);
        Path file = write("data.bin", content);
        SplittableRandom random = new SplittableRandom(SEED);
        try (MappedRangeSource source =
                MappedRangeSource.tryOpen(id(file, content.length), file.toFile(), 1_000)) {
            for (int i = 0; i < 2_000; i++) {
                int length = random.nextInt(2_500);
                int position = random.nextInt(content.length - length + 1);
                byte[] read =
                        source.readWith(
                                position,
                                length,
                                b -> {
                                    byte[] copy = new byte[b.limit()];
                                    b.get(0, copy);
                                    return copy;
                                });
                assertThat(read)
                        .as("range %d+%d (seed %d)", position, length, SEED)
                        .isEqualTo(Arrays.copyOfRange(content, position, position + length));
            }
        }
    }

    @Test
    void aMappingClosedUnderAReaderStaysUntilTheReaderReturns() throws IOException {
        byte[] content = randomBytes(4_000);
        Path file = write("data.bin", content);
        MappedRangeSource source =
                MappedRangeSource.tryOpen(id(file, content.length), file.toFile(), 1_000);
        byte[] seen =
                source.readWith(
                        100,
                        500,
                        b -> {
                            source.close(); // e.g. a refresh releasing the file meanwhile
                            byte[] copy = new byte[500];
                            b.get(0, copy); // still mapped: the reader holds it
                            return copy;
                        });
        assertThat(seen).isEqualTo(Arrays.copyOfRange(content, 100, 600));
        assertThatThrownBy(() -> source.readWith(0, 10, b -> b.get(0)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is closed");
    }

    @Test
    void aReadPastTheEndIsRefused() throws IOException {
        Path file = write("data.bin", randomBytes(100));
        try (MappedRangeSource source =
                MappedRangeSource.tryOpen(id(file, 100), file.toFile(), 64)) {
            assertThatThrownBy(() -> source.read(new FileRange(90, 11)))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("past the end of " + file.toUri());
        }
    }

    @Test
    void aFileWhoseLengthChangedSinceListingIsRefusedAtOpen() throws IOException {
        Path file = write("data.bin", randomBytes(100));

        assertThatThrownBy(() -> MappedRangeSource.tryOpen(id(file, 120), file.toFile()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is 100 bytes but was listed with 120");
    }

    @Test
    void aMissingFileIsNotFound() {
        Path file = dir.resolve("gone.bin");

        assertThatThrownBy(() -> MappedRangeSource.tryOpen(id(file, 1), file.toFile()))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("gone.bin");
    }

    @Test
    void aReadAfterCloseFails() throws IOException {
        Path file = write("data.bin", randomBytes(100));
        MappedRangeSource source = MappedRangeSource.tryOpen(id(file, 100), file.toFile());
        source.close();
        source.close(); // idempotent

        assertThatThrownBy(() -> source.read(new FileRange(0, 10)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("is closed");
    }

    /**
     * Close while many threads read: every read returns the right bytes or fails with "closed";
     * none touches a released mapping (that would crash the JVM, not fail the test).
     */
    @Test
    void closeWhileReadingNeverReleasesTheMappingUnderAReader() throws Exception {
        byte[] content = randomBytes(1 << 16);
        Path file = write("data.bin", content);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 20; round++) {
                MappedRangeSource source =
                        MappedRangeSource.tryOpen(id(file, content.length), file.toFile(), 4096);
                CountDownLatch started = new CountDownLatch(4);
                List<Future<Integer>> readers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    long seed = SEED + round * 10L + t;
                    readers.add(
                            pool.submit(
                                    () -> {
                                        SplittableRandom random = new SplittableRandom(seed);
                                        started.countDown();
                                        int ok = 0;
                                        while (true) {
                                            int length = 1 + random.nextInt(9_000);
                                            int position =
                                                    random.nextInt(content.length - length + 1);
                                            byte[] read;
                                            try {
                                                read = source.read(new FileRange(position, length));
                                            } catch (IOException e) {
                                                assertThat(e).hasMessageContaining("is closed");
                                                return ok;
                                            }
                                            assertThat(read)
                                                    .isEqualTo(
                                                            Arrays.copyOfRange(
                                                                    content,
                                                                    position,
                                                                    position + length));
                                            ok++;
                                        }
                                    }));
                }
                started.await();
                source.close();
                for (Future<Integer> reader : readers) {
                    assertThat(reader.get(30, TimeUnit.SECONDS)).isNotNegative();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theStoreMapsLocalFiles() throws IOException {
        byte[] content = randomBytes(5_000);
        Path file = write("data.parquet", content);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            FileId id = store.list(file.toUri().toString()).get(0);
            try (RangeSource source = store.open(id)) {
                assertThat(source).isInstanceOf(MappedRangeSource.class);
                assertThat(source.read(new FileRange(1_000, 3_000)))
                        .isEqualTo(Arrays.copyOfRange(content, 1_000, 4_000));
            }
        }
    }

    @Test
    void theStoreReadsWithPositionedReadsWhenMappingIsOff() throws IOException {
        byte[] content = randomBytes(5_000);
        Path file = write("data.parquet", content);
        try (HadoopFileStore store = HadoopFileStore.create(Map.of(), false)) {
            FileId id = store.list(file.toUri().toString()).get(0);
            try (RangeSource source = store.open(id)) {
                assertThat(source).isInstanceOf(HadoopRangeSource.class);
                assertThat(source.read(new FileRange(1_000, 3_000)))
                        .isEqualTo(Arrays.copyOfRange(content, 1_000, 4_000));
            }
        }
    }

    private FileId id(Path file, long length) {
        return new FileId(file.toUri().toString(), length, 0);
    }

    private Path write(String name, byte[] content) throws IOException {
        return Files.write(dir.resolve(name), content);
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new SplittableRandom(SEED + n).nextBytes(bytes);
        return bytes;
    }
}
