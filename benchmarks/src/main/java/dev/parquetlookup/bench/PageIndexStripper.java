package dev.parquetlookup.bench;

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
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Copies a Parquet file without its page index (ColumnIndex and OffsetIndex), as writers that omit
 * it produce: the data pages stay byte for byte, the index region is dropped and the footer loses
 * its references to it.
 *
 * <p>parquet-java has no switch to write files without a page index, so the benchmarks write one
 * with it and strip it here; both files then hold exactly the same pages.
 */
final class PageIndexStripper {

    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private PageIndexStripper() {}

    static void strip(Path source, Path target) throws IOException {
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
            long length = in.size();
            ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            in.read(tail, length - 8);
            int footerLength = tail.getInt(0);
            long footerStart = length - 8 - footerLength;
            ByteBuffer footer = ByteBuffer.allocate(footerLength);
            while (footer.hasRemaining()) {
                in.read(footer, footerStart + footer.position());
            }
            FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(footer.array()));
            long indexStart = footerStart;
            for (RowGroup rowGroup : meta.getRow_groups()) {
                for (ColumnChunk chunk : rowGroup.getColumns()) {
                    if (chunk.isSetColumn_index_offset()) {
                        indexStart = Math.min(indexStart, chunk.getColumn_index_offset());
                    }
                    if (chunk.isSetOffset_index_offset()) {
                        indexStart = Math.min(indexStart, chunk.getOffset_index_offset());
                    }
                    chunk.unsetColumn_index_offset();
                    chunk.unsetColumn_index_length();
                    chunk.unsetOffset_index_offset();
                    chunk.unsetOffset_index_length();
                }
            }
            ByteArrayOutputStream newFooter = new ByteArrayOutputStream();
            Util.writeFileMetaData(meta, newFooter);
            try (FileChannel out =
                            FileChannel.open(
                                    target,
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.TRUNCATE_EXISTING,
                                    StandardOpenOption.WRITE);
                    OutputStream os = java.nio.channels.Channels.newOutputStream(out)) {
                long copied = 0;
                while (copied < indexStart) {
                    copied += in.transferTo(copied, indexStart - copied, out);
                }
                out.position(indexStart);
                newFooter.writeTo(os);
                ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
                len.putInt(0, newFooter.size());
                os.write(len.array());
                os.write(MAGIC);
            }
        }
        if (Files.size(target) >= Files.size(source)) {
            throw new IllegalStateException(
                    "stripping the page index of " + source + " did not shrink it: no index?");
        }
    }
}
