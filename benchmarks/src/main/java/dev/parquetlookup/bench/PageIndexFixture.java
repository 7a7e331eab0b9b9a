package dev.parquetlookup.bench;

import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The page-index study's fixtures (from the seed): two row groups of 4,096 rows, 128-row pages,
 * dictionary off, 16 nullable string payload columns and a string filter column {@code f}. 64 rows
 * match {@code f = 'match'}: in the {@code localized} layout the first 32 rows of each row group
 * (one page per row group), in the {@code scattered} layout one row in each of the 32 pages of each
 * row group. Non-matching filter values sort below {@code match}, so page statistics exclude pages
 * without a match.
 *
 * <p>Each layout is written once with a page index and copied without it ({@link
 * PageIndexStripper}): identical data pages, so the only difference is the index.
 */
final class PageIndexFixture {

    static final int ROW_GROUPS = 2;
    static final int ROWS_PER_ROW_GROUP = 4_096;
    static final int ROWS_PER_PAGE = 128;
    static final int PAYLOAD_COLUMNS = 16;
    static final String MATCH = "match";
    static final int MATCHES = 64;

    static final MessageType SCHEMA = schema();

    private PageIndexFixture() {}

    private static MessageType schema() {
        StringBuilder sb = new StringBuilder("message fixture { required binary f (STRING);");
        for (int c = 0; c < PAYLOAD_COLUMNS; c++) {
            sb.append(" optional binary ").append(column(c)).append(" (STRING);");
        }
        return MessageTypeParser.parseMessageType(sb.append(" }").toString());
    }

    static String column(int c) {
        return String.format("p%02d", c);
    }

    static boolean matches(boolean localized, int rowInGroup) {
        return localized ? rowInGroup < MATCHES / ROW_GROUPS : rowInGroup % ROWS_PER_PAGE == 5;
    }

    /** The payload value of a cell, or null (about one cell in eleven). */
    static byte[] payload(long row, int column, int width) {
        if ((row * 17 + column * 5) % 11 == 0) {
            return null;
        }
        SplittableRandom random = new SplittableRandom(row * 64 + column);
        byte[] value = new byte[width];
        for (int i = 0; i < width; i++) {
            value[i] = (byte) "0123456789abcdef".charAt(random.nextInt(16));
        }
        return value;
    }

    /**
     * The indexed and unindexed files of one layout, generated once under {@code dir}; {@code
     * width} is the payload length in bytes (the seed's files hold about 430-byte values).
     */
    static Path[] files(Path dir, boolean localized, int width) throws IOException {
        Files.createDirectories(dir);
        String name = "pageindex-" + (localized ? "localized" : "scattered") + "-w" + width;
        Path indexed = dir.resolve(name + "-idx.parquet");
        Path unindexed = dir.resolve(name + "-noidx.parquet");
        Path done = dir.resolve(name + ".done");
        if (!(Files.exists(indexed) && Files.exists(unindexed) && Files.exists(done))) {
            Files.deleteIfExists(done);
            Path tmp = dir.resolve(".tmp-" + name + ".parquet");
            Files.deleteIfExists(tmp);
            write(tmp, localized, width);
            Files.move(tmp, indexed, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.deleteIfExists(unindexed);
            PageIndexStripper.strip(indexed, unindexed);
            Files.writeString(done, "ok\n");
        }
        return new Path[] {indexed, unindexed};
    }

    private static void write(Path target, boolean localized, int width) throws IOException {
        SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new LocalOutputFile(target))
                        .withType(SCHEMA)
                        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                        .withDictionaryEncoding(false)
                        .withRowGroupRowCountLimit(ROWS_PER_ROW_GROUP)
                        .withPageRowCountLimit(ROWS_PER_PAGE)
                        .withRowGroupSize(1L << 40)
                        .withPageSize(64 << 20)
                        .build()) {
            for (long row = 0; row < (long) ROW_GROUPS * ROWS_PER_ROW_GROUP; row++) {
                int inGroup = (int) (row % ROWS_PER_ROW_GROUP);
                Group g = groups.newGroup();
                g.add("f", matches(localized, inGroup) ? MATCH : String.format("a-%08d", row));
                for (int c = 0; c < PAYLOAD_COLUMNS; c++) {
                    byte[] v = payload(row, c, width);
                    if (v != null) {
                        g.add(column(c), new String(v, StandardCharsets.US_ASCII));
                    }
                }
                writer.write(g);
            }
        }
    }
}
