package dev.parquetlookup.metadata;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads and decodes a file's footer, checking the magic bytes and every length against the file.
 * Stateless.
 *
 * <p>A Parquet file ends with {@code [data pages][ColumnIndexes][OffsetIndexes][footer][footer
 * length: 4 bytes LE]["PAR1"]}. The reader fetches the last 64 KiB first (usually footer and
 * indexes at once), then one more read only for a larger footer. The tail is kept in the result so
 * the page-index reader can reuse it.
 *
 * <p>Example: {@code FooterReader.Footer f = FooterReader.read(source);
 * f.metadata().getBlocks().size()} is the number of row groups.
 */
public final class FooterReader {

    static final int TAIL_READ = 64 * 1024;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);

    private FooterReader() {}

    /**
     * A decoded footer and the tail bytes read to find it.
     *
     * @param file the file version
     * @param thrift the footer as Thrift decoded it (sorting columns, key-value metadata)
     * @param metadata the footer as parquet-java's model (schema, row groups, statistics)
     * @param tail the last bytes of the file, as read
     * @param tailStart the file offset of {@code tail[0]}
     */
    public record Footer(
            FileId file,
            FileMetaData thrift,
            ParquetMetadata metadata,
            byte[] tail,
            long tailStart) {

        /** Whether {@code range} lies inside the tail already read. */
        boolean inTail(FileRange range) {
            return range.offset() >= tailStart;
        }
    }

    /**
     * Reads the footer of the file behind {@code source}.
     *
     * @throws LookupFileException if the file is empty, not Parquet, encrypted, or its footer is
     *     damaged
     */
    public static Footer read(RangeSource source) throws IOException {
        FileId file = source.file();
        long length = file.length();
        if (length == 0) {
            throw new LookupFileException(
                    "File "
                            + file
                            + " is empty (0 bytes): not a Parquet file. Remove it from the table's"
                            + " path or write it again"
                            + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                            + ".");
        }
        if (length < 12) {
            throw notParquet(file, length + " bytes is too short for a Parquet file");
        }
        int tailLength = (int) Math.min(length, TAIL_READ);
        long tailStart = length - tailLength;
        byte[] tail = source.read(new FileRange(tailStart, tailLength));
        byte[] magic = Arrays.copyOfRange(tail, tailLength - 4, tailLength);
        if (Arrays.equals(magic, ENCRYPTED_MAGIC)) {
            throw new LookupFileException(
                    "File "
                            + file
                            + " has an encrypted footer, which parquet-lookup does not"
                            + " read. Rewrite it without encryption"
                            + LookupFileException.PLAIN_FILES_ONLY
                            + ".");
        }
        if (!Arrays.equals(magic, MAGIC)) {
            byte[] head =
                    tailStart == 0
                            ? Arrays.copyOfRange(tail, 0, 4)
                            : source.read(new FileRange(0, 4));
            throw notParquet(
                    file,
                    Arrays.equals(head, MAGIC)
                            ? "it starts with the magic bytes PAR1 but does not end with them (a"
                                    + " truncated file, or a write that did not finish)"
                            : "it neither starts nor ends with the magic bytes PAR1 (it is some"
                                    + " other kind of file)");
        }
        int footerLength =
                ByteBuffer.wrap(tail, tailLength - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (footerLength <= 0 || footerLength > length - 12) {
            throw MetadataReader.corrupt(
                    file,
                    "footer length "
                            + footerLength
                            + " does not fit a file of "
                            + length
                            + " bytes",
                    null);
        }
        long footerStart = length - 8 - footerLength;
        byte[] footerBytes;
        int footerOffset;
        if (footerStart >= tailStart) {
            footerBytes = tail;
            footerOffset = (int) (footerStart - tailStart);
        } else {
            footerBytes = source.read(new FileRange(footerStart, footerLength));
            footerOffset = 0;
        }
        try {
            FileMetaData thrift =
                    Util.readFileMetaData(
                            new ByteArrayInputStream(footerBytes, footerOffset, footerLength));
            ParquetMetadata footer = new ParquetMetadataConverter().fromParquetMetadata(thrift);
            return new Footer(file, thrift, footer, tail, tailStart);
        } catch (IOException | RuntimeException e) {
            throw MetadataReader.corrupt(
                    file, "the footer is damaged (Thrift: " + stripPeriod(e.getMessage()) + ")", e);
        }
    }

    private static String stripPeriod(String message) {
        String m = String.valueOf(message).trim();
        while (m.endsWith(".")) {
            m = m.substring(0, m.length() - 1);
        }
        return m;
    }

    private static LookupFileException notParquet(FileId file, String why) {
        return new LookupFileException(
                "File "
                        + file
                        + " is not a readable Parquet file: "
                        + why
                        + ". Remove it from the table's path or rewrite it"
                        + LookupFileException.DAMAGED_PLAIN_FILES_ONLY
                        + ".");
    }
}
