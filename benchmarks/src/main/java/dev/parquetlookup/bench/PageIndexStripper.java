package dev.parquetlookup.bench;

import dev.parquetlookup.writer.ParquetTail;

import org.apache.parquet.format.FileMetaData;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
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

    private PageIndexStripper() {}

    static void strip(Path source, Path target) throws IOException {
        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
            long length = in.size();
            ByteBuffer tail = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            in.read(tail, length - 8);
            int footerLength = tail.getInt(0);
            long footerStart = length - 8 - footerLength;
            byte[] footer = new byte[footerLength + 8];
            ByteBuffer into = ByteBuffer.wrap(footer);
            while (into.hasRemaining()) {
                in.read(into, footerStart + into.position());
            }
            FileMetaData meta = ParquetTail.read(footer, 0, footer.length);
            long[] index = ParquetTail.dropPageIndex(meta);
            if (index == null) {
                throw new IllegalStateException(source + " has no page index to strip");
            }
            long indexStart = Math.min(index[0], footerStart);
            try (FileChannel out =
                            FileChannel.open(
                                    target,
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.TRUNCATE_EXISTING,
                                    StandardOpenOption.WRITE);
                    OutputStream os = Channels.newOutputStream(out)) {
                long copied = 0;
                while (copied < indexStart) {
                    copied += in.transferTo(copied, indexStart - copied, out);
                }
                out.position(indexStart);
                ParquetTail.write(meta, os);
            }
        }
    }
}
