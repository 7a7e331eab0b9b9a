package dev.parquetlookup.testing;

import dev.parquetlookup.writer.ParquetTail;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Rewrites a Parquet file without its page index (ColumnIndex and OffsetIndex), as DuckDB and
 * pyarrow write files by default. Without header statistics the pages stay where they were, byte
 * for byte (only the index region and the footer's references go), so a file's own index and the
 * one synthesized from the copy must be identical. With header statistics each page's bounds move
 * from the ColumnIndex into its header (as pyarrow and parquet-cpp write them): the headers grow,
 * so page offsets shift, and the page payloads stay byte for byte.
 *
 * <p>Example: {@code PageIndexRewriter.rewrite(withIndex, withoutIndex, false)}.
 */
public final class PageIndexRewriter {

    private PageIndexRewriter() {}

    /**
     * Writes {@code target}: {@code source} without page index; with {@code headerStatistics} each
     * data page header also gets {@code min_value}/{@code max_value}/{@code null_count} from the
     * source's ColumnIndex (chunks without one get none).
     */
    public static void rewrite(Path source, Path target, boolean headerStatistics)
            throws IOException {
        byte[] file = Files.readAllBytes(source);
        int footerStart = ParquetTail.footerStart(file, file.length);
        FileMetaData meta = ParquetTail.read(file, footerStart, file.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(file.length);
        if (!headerStatistics) {
            // The data pages stay where they are (same offsets); the index region goes.
            long[] index = ParquetTail.dropPageIndex(meta);
            out.write(file, 0, index == null ? footerStart : (int) index[0]);
            ParquetTail.write(meta, out);
            Files.write(target, out.toByteArray());
            return;
        }
        ParquetTail.writeMagic(out);
        for (RowGroup rowGroup : meta.getRow_groups()) {
            long rowGroupStart = out.size();
            long rowGroupBytes = 0;
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                ColumnIndex index =
                        headerStatistics && chunk.isSetColumn_index_offset()
                                ? Util.readColumnIndex(
                                        new ByteArrayInputStream(
                                                file,
                                                (int) chunk.getColumn_index_offset(),
                                                chunk.getColumn_index_length()))
                                : null;
                rowGroupBytes += copyChunk(file, chunk.getMeta_data(), index, out);
                chunk.setFile_offset(chunkStart(chunk.getMeta_data()));
            }
            rowGroup.setFile_offset(rowGroupStart);
            rowGroup.setTotal_compressed_size(rowGroupBytes);
        }
        ParquetTail.dropPageIndex(meta);
        ParquetTail.write(meta, out);
        Files.write(target, out.toByteArray());
    }

    private static long chunkStart(ColumnMetaData md) {
        return md.isSetDictionary_page_offset() && md.getDictionary_page_offset() > 0
                ? Math.min(md.getDictionary_page_offset(), md.getData_page_offset())
                : md.getData_page_offset();
    }

    /** Copies one chunk's pages to {@code out}, updating {@code md}'s offsets and sizes. */
    private static long copyChunk(
            byte[] file, ColumnMetaData md, ColumnIndex index, ByteArrayOutputStream out)
            throws IOException {
        long start = chunkStart(md);
        long end = start + md.getTotal_compressed_size();
        long newStart = out.size();
        long newDataOffset = -1;
        long newDictionaryOffset = -1;
        int page = 0;
        int pos = (int) start;
        while (pos < end) {
            CountingInput in = new CountingInput(file, pos);
            PageHeader header = Util.readPageHeader(in);
            int payloadStart = pos + in.consumed();
            int payloadEnd = payloadStart + header.getCompressed_page_size();
            if (header.getType() == PageType.DICTIONARY_PAGE) {
                newDictionaryOffset = out.size();
            } else if (header.getType() == PageType.DATA_PAGE
                    || header.getType() == PageType.DATA_PAGE_V2) {
                if (newDataOffset < 0) {
                    newDataOffset = out.size();
                }
                if (index != null) {
                    Statistics stats = statistics(index, page, header);
                    if (header.getType() == PageType.DATA_PAGE) {
                        header.getData_page_header().setStatistics(stats);
                    } else {
                        header.getData_page_header_v2().setStatistics(stats);
                    }
                }
                page++;
            }
            Util.writePageHeader(header, out);
            out.write(file, payloadStart, payloadEnd - payloadStart);
            pos = payloadEnd;
        }
        long newSize = out.size() - newStart;
        md.setTotal_uncompressed_size(
                md.getTotal_uncompressed_size() + newSize - md.getTotal_compressed_size());
        md.setTotal_compressed_size(newSize);
        md.setData_page_offset(newDataOffset);
        if (newDictionaryOffset >= 0) {
            md.setDictionary_page_offset(newDictionaryOffset);
        } else {
            md.unsetDictionary_page_offset();
        }
        return newSize;
    }

    private static Statistics statistics(ColumnIndex index, int page, PageHeader header) {
        Statistics stats = new Statistics();
        if (index.isSetNull_counts()) {
            stats.setNull_count(index.getNull_counts().get(page));
        }
        if (!index.getNull_pages().get(page)) {
            stats.setMin_value(bytes(index.getMin_values().get(page)));
            stats.setMax_value(bytes(index.getMax_values().get(page)));
        } else if (!index.isSetNull_counts()) {
            int values =
                    header.getType() == PageType.DATA_PAGE
                            ? header.getData_page_header().getNum_values()
                            : header.getData_page_header_v2().getNum_values();
            stats.setNull_count(values);
        }
        return stats;
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    /** An input stream over {@code file} from {@code pos} that counts what it gave. */
    private static final class CountingInput extends java.io.InputStream {
        private final byte[] file;
        private final int start;
        private int pos;

        CountingInput(byte[] file, int pos) {
            this.file = file;
            this.start = pos;
            this.pos = pos;
        }

        int consumed() {
            return pos - start;
        }

        @Override
        public int read() {
            return pos < file.length ? file[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= file.length) {
                return -1;
            }
            int n = Math.min(len, file.length - pos);
            System.arraycopy(file, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
