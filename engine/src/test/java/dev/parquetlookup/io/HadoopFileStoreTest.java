package dev.parquetlookup.io;

import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HadoopFileStoreTest {

    @TempDir Path dir;

    @Test
    void listsDataFilesRecursivelySkippingHiddenAndMetadataNames() throws IOException {
        Files.createDirectories(dir.resolve("a/b"));
        Files.createDirectories(dir.resolve("_tmp"));
        Files.write(dir.resolve("a/b/part-1.parquet"), new byte[] {1});
        Files.write(dir.resolve("part-0.parquet"), new byte[] {1, 2});
        Files.write(dir.resolve("_SUCCESS"), new byte[0]);
        Files.write(dir.resolve(".part-0.parquet.crc"), new byte[] {1});
        Files.write(dir.resolve("_tmp/part-9.parquet"), new byte[] {1});
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            List<FileId> files = store.list(dir.toString());
            assertThat(files)
                    .extracting(FileId::fileName)
                    .containsExactly("part-1.parquet", "part-0.parquet");
            assertThat(files.get(1).length()).isEqualTo(2);
            // Local files are known by length and modification time; no status is kept.
            assertThat(files).allSatisfy(f -> assertThat(f.etag()).isNull());
            assertThat(files).allSatisfy(f -> assertThat(f.status()).isNull());
            assertThat(store.list(dir.resolve("part-0.parquet").toUri().toString())).hasSize(1);
        }
    }

    @Test
    void missingPathIsFileNotFound() throws IOException {
        try (HadoopFileStore store = HadoopFileStore.create(Map.of())) {
            assertThatThrownBy(() -> store.list(dir.resolve("nope").toString()))
                    .isInstanceOf(FileNotFoundException.class);
        }
    }

    @Test
    void positionedReadsFromManyThreadsAndCounting() throws Exception {
        byte[] content = new byte[1 << 20];
        new Random(7).nextBytes(content);
        Path file = dir.resolve("f.bin");
        Files.write(file, content);
        ReadStatistics stats = new ReadStatistics();
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source =
                        new CountingRangeSource(store.open(store.stat(file.toString())), stats)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int seed = t;
                results.add(
                        pool.submit(
                                () -> {
                                    Random random = new Random(seed);
                                    for (int i = 0; i < 500; i++) {
                                        int offset = random.nextInt(content.length - 4096);
                                        int length = 1 + random.nextInt(4096);
                                        byte[] bytes = source.read(new FileRange(offset, length));
                                        for (int j = 0; j < length; j++) {
                                            if (bytes[j] != content[offset + j]) {
                                                return false;
                                            }
                                        }
                                    }
                                    return true;
                                }));
            }
            for (Future<Boolean> r : results) {
                assertThat(r.get()).isTrue();
            }
            pool.shutdown();
            assertThat(stats.readRequests()).isEqualTo(2000);
            byte[][] two = source.readAll(List.of(new FileRange(0, 10), new FileRange(1000, 5)));
            assertThat(two[1][0]).isEqualTo(content[1000]);
            assertThat(stats.readRequests()).isEqualTo(2002);
            assertThatThrownBy(() -> source.read(new FileRange(content.length - 2, 10)))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining(file.getFileName().toString())
                    .hasMessageContaining("past the end");
        }
    }

    @Test
    void localFilesUseTheRawFileSystemWithoutChecksumFiles() throws IOException {
        Path file = dir.resolve("x.bin");
        Files.write(file, new byte[] {1, 2, 3});
        try (HadoopFileStore store = HadoopFileStore.create(Map.of());
                RangeSource source = store.open(store.stat(file.toString()))) {
            assertThat(source.read(new FileRange(1, 2))).containsExactly(2, 3);
        }
        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString())).containsExactly("x.bin");
        }
    }
}
