package dev.parquetlookup.metadata;

import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.Util;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Our OffsetIndex decoding against parquet-java's Thrift serialisation of the same index. */
class OffsetIndexDecodingTest {

    private static final long SEED = 1130L;

    @Test
    void agreesWithParquetJavaOnRandomIndexes() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int t = 0; t < 500; t++) {
            int pages = random.nextInt(t % 10 == 0 ? 3_000 : 20);
            List<PageLocation> locations = new ArrayList<>();
            long offset = random.nextLong(1L << 40);
            long row = 0;
            for (int i = 0; i < pages; i++) {
                int size = random.nextInt(1 << 24);
                locations.add(new PageLocation(offset, size, row));
                offset += size;
                row += random.nextInt(5_000);
            }
            OffsetIndex index = new OffsetIndex(locations);
            if (random.nextBoolean()) {
                List<Long> unencoded = new ArrayList<>();
                for (int i = 0; i < pages; i++) {
                    unencoded.add(random.nextLong(1L << 30));
                }
                index.setUnencoded_byte_array_data_bytes(unencoded);
            }
            byte[] prefix = new byte[random.nextInt(5)];
            byte[] bytes = concat(prefix, serialize(index));

            PageLocations decoded =
                    PageIndexReader.decodeOffsetIndex(
                            bytes, prefix.length, bytes.length - prefix.length);

            String seed = "index " + t + " (seed " + SEED + ")";
            assertThat(decoded.offsets())
                    .as(seed)
                    .containsExactly(
                            locations.stream().mapToLong(PageLocation::getOffset).toArray());
            assertThat(decoded.sizes())
                    .as(seed)
                    .containsExactly(
                            locations.stream()
                                    .mapToInt(PageLocation::getCompressed_page_size)
                                    .toArray());
            assertThat(decoded.firstRows())
                    .as(seed)
                    .containsExactly(
                            locations.stream()
                                    .mapToLong(PageLocation::getFirst_row_index)
                                    .toArray());
        }
    }

    @Test
    void damagedIndexesFailWithAnIoException() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        List<PageLocation> locations = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            locations.add(new PageLocation(1_000L * i + 4, 1_000, 100L * i));
        }
        byte[] bytes = serialize(new OffsetIndex(locations));
        for (int cut = 0; cut < bytes.length; cut++) {
            byte[] truncated = Arrays.copyOf(bytes, cut);
            assertThatThrownBy(
                            () -> PageIndexReader.decodeOffsetIndex(truncated, 0, truncated.length))
                    .as("cut at %d", cut)
                    .isInstanceOf(IOException.class);
        }
        for (int i = 0; i < 20_000; i++) {
            byte[] noise = new byte[random.nextInt(80)];
            random.nextBytes(noise);
            try {
                PageLocations decoded = PageIndexReader.decodeOffsetIndex(noise, 0, noise.length);
                assertThat(decoded.offsets()).hasSameSizeAs(decoded.sizes());
            } catch (IOException expected) {
                // reported, never another exception or a hang
            }
        }
    }

    private static byte[] serialize(OffsetIndex index) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Util.writeOffsetIndex(index, out);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
