package dev.parquetlookup.writer;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The end of a Parquet file as the format lays it out: the Thrift {@code FileMetaData} footer, its
 * length (4 bytes, little endian) and the magic {@code PAR1}. The one place that writes a footer
 * after an edit (the writer's {@link FooterRewritingOutputFile}, the tests' page-index rewriter),
 * and that takes a file's page index out of its footer.
 *
 * <p>Example, a file's page index dropped from its footer:
 *
 * <pre>{@code
 * int start = ParquetTail.footerStart(bytes, bytes.length);
 * FileMetaData footer = ParquetTail.read(bytes, start, bytes.length);
 * long[] index = ParquetTail.dropPageIndex(footer); // {start, end} of the index bytes, or null
 * out.write(bytes, 0, index == null ? start : (int) index[0]);
 * ParquetTail.write(footer, out);
 * }</pre>
 */
public final class ParquetTail {

    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private ParquetTail() {}

    /** Whether {@code bytes[0, end)} ends with the magic {@code PAR1}. */
    public static boolean endsWithMagic(byte[] bytes, int end) {
        return end >= 8 && Arrays.equals(bytes, end - 4, end, MAGIC, 0, 4);
    }

    /**
     * Where the footer of the file ending at {@code bytes[end]} starts, from the length stored
     * before the magic; negative when the footer is longer than the bytes given.
     */
    public static int footerStart(byte[] bytes, int end) {
        return end - 8 - ByteBuffer.wrap(bytes, end - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /** The footer in {@code bytes[footerStart, end - 8)}. */
    public static FileMetaData read(byte[] bytes, int footerStart, int end) throws IOException {
        return Util.readFileMetaData(
                new ByteArrayInputStream(bytes, footerStart, end - 8 - footerStart));
    }

    /**
     * Takes every column chunk's ColumnIndex and OffsetIndex references out of {@code footer}.
     *
     * @return the first and the end offset of the index bytes they named, or null if none
     */
    public static long[] dropPageIndex(FileMetaData footer) {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (RowGroup rowGroup : footer.getRow_groups()) {
            for (ColumnChunk c : rowGroup.getColumns()) {
                if (c.isSetColumn_index_offset()) {
                    start = Math.min(start, c.getColumn_index_offset());
                    end = Math.max(end, c.getColumn_index_offset() + c.getColumn_index_length());
                }
                if (c.isSetOffset_index_offset()) {
                    start = Math.min(start, c.getOffset_index_offset());
                    end = Math.max(end, c.getOffset_index_offset() + c.getOffset_index_length());
                }
                c.unsetColumn_index_offset();
                c.unsetColumn_index_length();
                c.unsetOffset_index_offset();
                c.unsetOffset_index_length();
            }
        }
        return start == Long.MAX_VALUE ? null : new long[] {start, end};
    }

    /** Writes {@code footer}, its length and the magic: the last bytes of a Parquet file. */
    public static void write(FileMetaData footer, OutputStream out) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Util.writeFileMetaData(footer, bytes);
        bytes.writeTo(out);
        out.write(
                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.size()).array());
        writeMagic(out);
    }

    /** Writes the magic {@code PAR1} that starts and ends a Parquet file. */
    public static void writeMagic(OutputStream out) throws IOException {
        out.write(MAGIC);
    }
}
