package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The disk tier over in-memory "remote" files: hits, ranges inside stored chunks, the bound, the
 * release of dropped files, and the disk's faults (flipped bytes, a deleted cache file, a full
 * disk) which are detected and served from the store, never as wrong bytes.
 */
class DiskTierTest {

    private static final long SEED = 20261201L;

    @TempDir Path base;

    /** A remote file held in memory that counts the ranges read from it. */
    static final class RemoteBytes implements RangeSource {
        final FileId file;
        final byte[] bytes;
        final AtomicInteger ranges = new AtomicInteger();

        RemoteBytes(String path, String etag, int length, long seed) {
            this.bytes = new byte[length];
            new Random(seed).nextBytes(bytes);
            this.file = new FileId(path, length, 1_000L, etag, null);
        }

        @Override
        public FileId file() {
            return file;
        }

        @Override
        public void readFully(long position, byte[] buffer, int offset, int length) {
            ranges.incrementAndGet();
            System.arraycopy(bytes, (int) position, buffer, offset, length);
        }

        @Override
        public void close() {}

        byte[] slice(FileRange r) {
            return Arrays.copyOfRange(bytes, (int) r.offset(), (int) r.end());
        }
    }

    private static RemoteBytes remote(int length) {
        return new RemoteBytes("s3a://bucket/dim/part-0.parquet", "\"e1\"", length, SEED);
    }

    private static List<Path> segmentFiles(DiskTier tier) throws IOException {
        try (Stream<Path> files = Files.list(tier.directory())) {
            return files.filter(p -> p.getFileName().toString().startsWith("segment-"))
                    .sorted()
                    .toList();
        }
    }

    @Test
    void heldRangesAndPagesInsideAStoredChunkAreServedFromDiskWithoutTheStore() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            FileRange page = new FileRange(1000, 20_000);
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges).hasValue(1);
            tier.flush().get();

            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            byte[] buffer = new byte[100];
            source.readFully(1500, buffer, 0, 100);
            assertThat(buffer).isEqualTo(remote.slice(new FileRange(1500, 100)));
            assertThat(remote.ranges).as("served from disk").hasValue(1);

            FileRange chunk = new FileRange(200_000, 300_000);
            assertThat(source.warm(chunk)).isTrue();
            assertThat(source.warm(chunk)).as("already held").isFalse();
            assertThat(remote.ranges).hasValue(2);
            List<FileRange> pagesInside =
                    List.of(new FileRange(200_000, 4096), new FileRange(350_123, 35_000));
            CompletableFuture<byte[][]> read = source.readAllAsync(pagesInside);
            assertThat(read).as("no thread hand-off for held ranges").isDone();
            assertThat(read.get()[0]).isEqualTo(remote.slice(pagesInside.get(0)));
            assertThat(read.get()[1]).isEqualTo(remote.slice(pagesInside.get(1)));
            assertThat(remote.ranges).hasValue(2);
            assertThat(tier.stats().hits()).isEqualTo(4);
        }
    }

    @Test
    void asyncMissesGoToTheStoreAndAreStoredInTheBackground() throws Exception {
        RemoteBytes remote = remote(256 << 10);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            List<FileRange> ranges =
                    List.of(new FileRange(0, 10), new FileRange(5000, 9000), new FileRange(0, 10));
            byte[][] first = source.readAllAsync(ranges).get();
            for (int i = 0; i < ranges.size(); i++) {
                assertThat(first[i]).isEqualTo(remote.slice(ranges.get(i)));
            }
            tier.flush().get();
            int before = remote.ranges.get();
            byte[][] again = source.readAllAsync(ranges).get();
            assertThat(again[1]).isEqualTo(remote.slice(ranges.get(1)));
            assertThat(remote.ranges).hasValue(before);
        }
    }

    @Test
    void flippedBytesOnDiskAreDetectedFetchedAgainAndNeverServed() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            FileRange chunk = new FileRange(4, 500_000);
            source.warm(chunk);
            Path segment = segmentFiles(tier).get(0);
            // Flip one byte in the block holding file offset 100,004 (segment position 100,000).
            try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
                ByteBuffer flipped = ByteBuffer.wrap(new byte[] {(byte) ~remote.bytes[100_004]});
                channel.write(flipped, 100_000);
            }
            int before = remote.ranges.get();
            FileRange page = new FileRange(99_000, 3000);
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges.get()).as("fetched again").isEqualTo(before + 1);
            assertThat(tier.stats().checksumFailures()).isEqualTo(1);

            // The damaged chunk left the index; the refetched page is stored anew.
            tier.flush().get();
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges.get()).isEqualTo(before + 1);
            FileRange elsewhere = new FileRange(300_000, 1000);
            assertThat(source.readAll(List.of(elsewhere))[0]).isEqualTo(remote.slice(elsewhere));
            assertThat(tier.stats().checksumFailures()).isEqualTo(1);
        }
    }

    @Test
    void heldRangesAreReadInPlaceAndFlippedBytesAreNeverHandedOut() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            FileRange page = new FileRange(10_000, 9000);
            assertThat(source.readHeld(page)).as("not held yet").isNull();
            assertThat(tier.stats().misses()).as("the caller reads it, and counts it").isZero();
            source.warm(new FileRange(0, 400_000));
            int before = remote.ranges.get();
            assertThat(source.readHeld(page)).isEqualTo(remote.slice(page));
            assertThat(tier.stats().hits()).isEqualTo(1);

            // Every read checks the blocks it touches, however often the range was served.
            Path segment = segmentFiles(tier).get(0);
            try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
                ByteBuffer flipped = ByteBuffer.wrap(new byte[] {(byte) ~remote.bytes[12_345]});
                channel.write(flipped, 12_345);
            }
            assertThat(source.readHeld(page)).as("detected, not served").isNull();
            assertThat(tier.stats().checksumFailures()).isEqualTo(1);
            assertThat(remote.ranges).as("nothing fetched by readHeld").hasValue(before);
            assertThat(source.readAllAsync(List.of(page)).get()[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges).as("fetched again").hasValue(before + 1);
        }
    }

    @Test
    void aCacheFileDeletedFromOutsideIsDetectedAndItsRangesFetchedAgain() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            FileRange chunk = new FileRange(0, 400_000);
            source.warm(chunk);
            for (Path p : segmentFiles(tier)) {
                Files.delete(p);
            }
            assertThat(tier.checkFiles()).isEqualTo(1);
            assertThat(tier.stats().lostFiles()).isEqualTo(1);
            assertThat(tier.extentCount(remote.file)).isZero();
            int before = remote.ranges.get();
            FileRange page = new FileRange(1234, 5678);
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges.get()).isEqualTo(before + 1);

            assertThat(source.warm(chunk)).as("warmed again into a new file").isTrue();
            assertThat(segmentFiles(tier)).hasSize(1);
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges.get()).isEqualTo(before + 2);
        }
    }

    @Test
    void aFullDiskFailsTheWritesNotTheReadsAndTheTierRecoversWithSpace() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        AtomicBoolean full = new AtomicBoolean(true);
        DiskWrites writes =
                (channel, bytes, position) -> {
                    if (full.get()) {
                        throw new IOException("No space left on device");
                    }
                    DiskWrites.DIRECT.write(channel, bytes, position);
                };
        try (DiskTier tier = DiskTier.create(base, 64L << 20, writes);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            FileRange page = new FileRange(77, 9999);
            for (int i = 0; i < 3; i++) {
                assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
                tier.flush().get();
            }
            assertThat(source.warm(new FileRange(100_000, 100_000))).isTrue();
            assertThat(tier.stats().writeFailures()).isEqualTo(4);
            assertThat(tier.stats().bytes()).as("failed writes take no space").isZero();
            assertThat(remote.ranges).hasValue(4);

            full.set(false);
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            tier.flush().get();
            assertThat(source.readAll(List.of(page))[0]).isEqualTo(remote.slice(page));
            assertThat(remote.ranges).hasValue(5);
        }
    }

    @Test
    void evictionKeepsTheBoundAndEveryReadIsRight() throws Exception {
        long max = 1L << 20;
        RemoteBytes remote = remote(8 << 20);
        Random random = new Random(SEED);
        try (DiskTier tier = DiskTier.create(base, max);
                TieredRangeSource source = new TieredRangeSource(tier, remote.file, remote)) {
            for (int i = 0; i < 400; i++) {
                int length = 1 + random.nextInt(60_000);
                FileRange r = new FileRange(random.nextInt(remote.bytes.length - length), length);
                assertThat(source.readAll(List.of(r))[0])
                        .as("seed %d, read %d", SEED, i)
                        .isEqualTo(remote.slice(r));
                if (i % 10 == 0) {
                    tier.flush().get();
                    assertThat(tier.stats().bytes()).isLessThanOrEqualTo(max);
                    assertThat(segmentFiles(tier).size())
                            .isLessThanOrEqualTo((int) (max / tier.maxExtentBytes()) + 1);
                }
            }
            tier.flush().get();
            assertThat(tier.stats().evictedBytes()).isPositive();
            assertThat(tier.stats().hits()).isPositive();
            assertThat(tier.stats().bytes()).isLessThanOrEqualTo(max);
        }
    }

    @Test
    void theLastCloseOfAFileVersionRemovesItsRangesAndFiles() throws Exception {
        RemoteBytes remote = remote(1 << 20);
        try (DiskTier tier = DiskTier.create(base, 64L << 20)) {
            TieredRangeSource a = new TieredRangeSource(tier, remote.file, remote);
            TieredRangeSource b = new TieredRangeSource(tier, remote.file, remote);
            a.warm(new FileRange(0, 100_000));
            b.warm(new FileRange(200_000, 100_000));
            a.close();
            a.close(); // once
            assertThat(tier.extentCount(remote.file)).isEqualTo(2);
            assertThat(b.isHeld(new FileRange(10, 10))).isTrue();
            b.close();
            assertThat(tier.extentCount(remote.file)).isZero();
            assertThat(tier.stats().bytes()).isZero();
            assertThat(segmentFiles(tier)).as("dead segments deleted").isEmpty();
        }
    }

    @Test
    void anOverwrittenObjectIsAnotherVersionAndNeverMeetsTheOldBytes() throws Exception {
        RemoteBytes first = new RemoteBytes("s3a://bucket/dim/x.parquet", "\"e1\"", 50_000, 1);
        RemoteBytes second = new RemoteBytes("s3a://bucket/dim/x.parquet", "\"e2\"", 50_000, 2);
        assertThat(first.file).isNotEqualTo(second.file);
        try (DiskTier tier = DiskTier.create(base, 64L << 20);
                TieredRangeSource old = new TieredRangeSource(tier, first.file, first);
                TieredRangeSource now = new TieredRangeSource(tier, second.file, second)) {
            FileRange all = new FileRange(0, 50_000);
            old.warm(all);
            assertThat(now.isHeld(all)).isFalse();
            assertThat(now.readAll(List.of(all))[0]).isEqualTo(second.bytes);
            assertThat(second.ranges).hasValue(1);
            assertThat(old.readAll(List.of(all))[0]).isEqualTo(first.bytes);
        }
    }

    @Test
    void directoriesOfEndedProcessesAreRemovedAndLiveOnesKept() throws Exception {
        Path stale = Files.createDirectory(base.resolve(DiskTier.DIRECTORY_PREFIX + "old"));
        Files.writeString(stale.resolve("segment-000000.bin"), "left over");
        Files.createFile(stale.resolve(".lock"));
        Path heldElsewhere = Files.createDirectory(base.resolve(DiskTier.DIRECTORY_PREFIX + "x"));
        // A lock held by this JVM stands for another live process here.
        try (FileChannel channel =
                        FileChannel.open(
                                heldElsewhere.resolve(".lock"),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE);
                FileLock lock = channel.lock();
                DiskTier live = DiskTier.create(base, 1L << 20);
                DiskTier second = DiskTier.create(base, 1L << 20)) {
            assertThat(stale).doesNotExist();
            assertThat(heldElsewhere).exists();
            assertThat(live.directory()).exists();
            assertThat(second.directory()).isNotEqualTo(live.directory()).exists();
            Path liveDirectory = live.directory();
            live.close();
            assertThat(liveDirectory).doesNotExist();
        }
    }

    @Test
    void concurrentReadersOfTwoFilesOverASmallTierAlwaysGetTheRightBytes() throws Exception {
        RemoteBytes one = new RemoteBytes("s3a://bucket/a/part-0.parquet", "\"a\"", 4 << 20, 11);
        RemoteBytes two = new RemoteBytes("s3a://bucket/b/part-0.parquet", "\"b\"", 4 << 20, 12);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (DiskTier tier = DiskTier.create(base, 2L << 20)) {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long seed = SEED + t;
                RemoteBytes remote = t % 2 == 0 ? one : two;
                results.add(
                        pool.submit(
                                () -> {
                                    Random random = new Random(seed);
                                    int checked = 0;
                                    try (TieredRangeSource source =
                                            new TieredRangeSource(tier, remote.file, remote)) {
                                        for (int i = 0; i < 500; i++) {
                                            int length = 1 + random.nextInt(40_000);
                                            FileRange r =
                                                    new FileRange(
                                                            random.nextInt(
                                                                    remote.bytes.length - length),
                                                            length);
                                            byte[] got =
                                                    i % 3 == 0
                                                            ? source.readAllAsync(List.of(r))
                                                                    .get()[0]
                                                            : i % 3 == 1
                                                                    ? source.readAll(List.of(r))[0]
                                                                    : warmThenRead(source, r);
                                            assertThat(got)
                                                    .as("seed %d read %d", seed, i)
                                                    .isEqualTo(remote.slice(r));
                                            checked++;
                                        }
                                    }
                                    return checked;
                                }));
            }
            for (Future<Integer> f : results) {
                assertThat(f.get()).isEqualTo(500);
            }
            tier.flush().get();
            assertThat(tier.stats().bytes()).isLessThanOrEqualTo(2L << 20);
            assertThat(tier.stats().hits()).isPositive();
            assertThat(tier.stats().checksumFailures()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    private static byte[] warmThenRead(TieredRangeSource source, FileRange r) throws IOException {
        source.warm(r);
        return source.readAll(List.of(r))[0];
    }
}
