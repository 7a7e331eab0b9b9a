package dev.parquetlookup.engine.page;

import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.IndexPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The hand-written header parser against parquet-java's Thrift serialisation of the same. */
class PageHeaderTest {

    private static final long SEED = 20261130L;

    @Test
    void agreesWithParquetJavaOnRandomHeaders() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 2_000; i++) {
            PageHeader expected = randomHeader(random);
            byte[] payload = new byte[expected.getCompressed_page_size()];
            byte[] prefix = new byte[random.nextInt(4)];
            byte[] bytes = concat(prefix, serialize(expected), payload);

            PageDecoder.Header parsed =
                    PageDecoder.header(bytes, prefix.length, bytes.length - prefix.length);

            String seed = "header " + i + " (seed " + SEED + "): " + expected;
            assertThat(parsed.type().getValue()).as(seed).isEqualTo(expected.getType().getValue());
            assertThat(parsed.compressedSize())
                    .as(seed)
                    .isEqualTo(expected.getCompressed_page_size());
            assertThat(parsed.uncompressedSize())
                    .as(seed)
                    .isEqualTo(expected.getUncompressed_page_size());
            assertThat(parsed.payloadOffset()).as(seed).isEqualTo(bytes.length - payload.length);
            switch (expected.getType()) {
                case DATA_PAGE -> {
                    DataPageHeader h = expected.getData_page_header();
                    assertThat(parsed.valueCount()).as(seed).isEqualTo(h.getNum_values());
                    assertThat(parsed.rowCount()).as(seed).isEqualTo(h.getNum_values());
                    assertThat(parsed.encoding().name()).as(seed).isEqualTo(h.getEncoding().name());
                    assertThat(parsed.definitionEncoding().name())
                            .as(seed)
                            .isEqualTo(h.getDefinition_level_encoding().name());
                }
                case DATA_PAGE_V2 -> {
                    DataPageHeaderV2 h = expected.getData_page_header_v2();
                    assertThat(parsed.valueCount()).as(seed).isEqualTo(h.getNum_values());
                    assertThat(parsed.rowCount()).as(seed).isEqualTo(h.getNum_rows());
                    assertThat(parsed.encoding().name()).as(seed).isEqualTo(h.getEncoding().name());
                    assertThat(parsed.definitionLength())
                            .as(seed)
                            .isEqualTo(h.getDefinition_levels_byte_length());
                    assertThat(parsed.repetitionLength())
                            .as(seed)
                            .isEqualTo(h.getRepetition_levels_byte_length());
                    assertThat(parsed.compressed())
                            .as(seed)
                            .isEqualTo(!h.isSetIs_compressed() || h.isIs_compressed());
                }
                case DICTIONARY_PAGE -> {
                    DictionaryPageHeader h = expected.getDictionary_page_header();
                    assertThat(parsed.valueCount()).as(seed).isEqualTo(h.getNum_values());
                    assertThat(parsed.encoding().name()).as(seed).isEqualTo(h.getEncoding().name());
                }
                default -> assertThat(parsed.encoding()).as(seed).isNull();
            }
        }
    }

    @Test
    void everyTruncationFailsWithAnIoException() throws IOException {
        SplittableRandom random = new SplittableRandom(SEED + 1);
        for (int i = 0; i < 200; i++) {
            PageHeader header = randomHeader(random);
            byte[] bytes = serialize(header);
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                String seed = "header " + i + " cut at " + cut + " (seed " + SEED + ")";
                assertThatThrownBy(() -> PageDecoder.header(truncated, 0, truncated.length))
                        .as(seed)
                        .isInstanceOf(IOException.class);
            }
        }
    }

    @Test
    void randomBytesNeverEscapeAsAnotherException() {
        SplittableRandom random = new SplittableRandom(SEED + 2);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(64)];
            for (int j = 0; j < bytes.length; j++) {
                bytes[j] = (byte) random.nextInt(256);
            }
            try {
                PageDecoder.Header header = PageDecoder.header(bytes, 0, bytes.length);
                assertThat(header.payloadOffset() + header.compressedSize())
                        .isLessThanOrEqualTo(bytes.length);
            } catch (IOException expected) {
                // damaged input is reported, never a wrong size, a hang or another exception
            }
        }
    }

    @Test
    void aPayloadLongerThanTheBytesIsRefused() throws IOException {
        PageHeader header = dataPage(1_000);
        byte[] bytes = concat(serialize(header), new byte[999]);

        assertThatThrownBy(() -> PageDecoder.header(bytes, 0, bytes.length))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("1000 bytes follow but only 999 are there");
    }

    @Test
    void aNegativeSizeIsRefused() throws IOException {
        PageHeader header = dataPage(-5);
        byte[] bytes = serialize(header);

        assertThatThrownBy(() -> PageDecoder.header(bytes, 0, bytes.length))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("invalid sizes");
    }

    private static PageHeader dataPage(int compressed) {
        PageHeader header = new PageHeader(PageType.DATA_PAGE, 10, compressed);
        header.setData_page_header(
                new DataPageHeader(3, Encoding.PLAIN, Encoding.RLE, Encoding.RLE));
        return header;
    }

    private static PageHeader randomHeader(SplittableRandom random) {
        PageType[] types = PageType.values();
        PageType type = types[random.nextInt(types.length)];
        Encoding[] encodings = {
            Encoding.PLAIN,
            Encoding.PLAIN_DICTIONARY,
            Encoding.RLE,
            Encoding.BIT_PACKED,
            Encoding.DELTA_BINARY_PACKED,
            Encoding.DELTA_LENGTH_BYTE_ARRAY,
            Encoding.DELTA_BYTE_ARRAY,
            Encoding.RLE_DICTIONARY,
            Encoding.BYTE_STREAM_SPLIT
        };
        int compressed = random.nextInt(random.nextBoolean() ? 100 : 1 << 16);
        PageHeader header = new PageHeader(type, random.nextInt(Integer.MAX_VALUE), compressed);
        if (random.nextBoolean()) {
            header.setCrc(random.nextInt());
        }
        Encoding encoding = encodings[random.nextInt(encodings.length)];
        switch (type) {
            case DATA_PAGE -> {
                DataPageHeader h =
                        new DataPageHeader(
                                random.nextInt(1 << 20),
                                encoding,
                                random.nextBoolean() ? Encoding.RLE : Encoding.BIT_PACKED,
                                Encoding.RLE);
                if (random.nextBoolean()) {
                    h.setStatistics(randomStatistics(random));
                }
                header.setData_page_header(h);
            }
            case DATA_PAGE_V2 -> {
                DataPageHeaderV2 h =
                        new DataPageHeaderV2(
                                random.nextInt(1 << 20),
                                random.nextInt(1 << 10),
                                random.nextInt(1 << 20),
                                encoding,
                                random.nextInt(1 << 12),
                                random.nextInt(1 << 12));
                if (random.nextBoolean()) {
                    h.setIs_compressed(random.nextBoolean());
                }
                if (random.nextBoolean()) {
                    h.setStatistics(randomStatistics(random));
                }
                header.setData_page_header_v2(h);
            }
            case DICTIONARY_PAGE -> {
                DictionaryPageHeader h =
                        new DictionaryPageHeader(random.nextInt(1 << 16), encoding);
                if (random.nextBoolean()) {
                    h.setIs_sorted(random.nextBoolean());
                }
                header.setDictionary_page_header(h);
            }
            default -> header.setIndex_page_header(new IndexPageHeader());
        }
        return header;
    }

    private static Statistics randomStatistics(SplittableRandom random) {
        Statistics statistics = new Statistics();
        if (random.nextBoolean()) {
            statistics.setMin_value(randomBytes(random));
            statistics.setMax_value(randomBytes(random));
        }
        if (random.nextBoolean()) {
            statistics.setNull_count(random.nextLong(1L << 40));
        }
        if (random.nextBoolean()) {
            statistics.setDistinct_count(random.nextLong(1L << 40));
        }
        if (random.nextBoolean()) {
            statistics.setIs_min_value_exact(random.nextBoolean());
        }
        return statistics;
    }

    private static ByteBuffer randomBytes(SplittableRandom random) {
        byte[] bytes = new byte[random.nextInt(40)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return ByteBuffer.wrap(bytes);
    }

    private static byte[] serialize(PageHeader header) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Util.writePageHeader(header, out);
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
