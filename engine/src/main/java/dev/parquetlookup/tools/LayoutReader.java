package dev.parquetlookup.tools;

import dev.parquetlookup.io.CountingRangeSource;
import dev.parquetlookup.io.CountingRangeSource.ReadStatistics;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.FooterReader;
import dev.parquetlookup.metadata.LookupFileException;
import dev.parquetlookup.metadata.MetadataReader;
import dev.parquetlookup.metadata.PageIndexOptions;
import dev.parquetlookup.metadata.PageIndexReader;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;
import dev.parquetlookup.metadata.SortKeyResolver;
import dev.parquetlookup.tools.FileLayout.ChunkLayout;
import dev.parquetlookup.tools.FileLayout.RowGroupLayout;
import dev.parquetlookup.tools.FileLayout.SortVerdict;

import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.schema.MessageType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reads one file for {@code inspect} through the engine's metadata path: {@link
 * MetadataReader#read} with the sort key given on the command line (or the declared one), counted
 * by the engine's read counter. The engine's answer is the verdict: accepted means sorted; refused
 * as not sorted, or for want of a declared sort key, is reported, not thrown. Any other refusal (a
 * damaged footer, a missing key column) is the engine's error, naming the file.
 *
 * <p>Only for a file the engine refused is the layout read here, from the footer (the engine's
 * {@link FooterReader} and declared sort key) and the OffsetIndexes, so the report can still show
 * pages and codecs and say what to change.
 */
final class LayoutReader {

    private LayoutReader() {}

    /**
     * The layout of {@code file} and the engine's verdict on it.
     *
     * @param sortKey the sort key given with {@code --key}, or empty for the declared one
     */
    static FileLayout read(FileStore store, FileId file, List<String> sortKey) throws IOException {
        return read(store, file, schema -> SortKeyResolver.KeyNames.same(sortKey));
    }

    /**
     * Like {@link #read(FileStore, FileId, List)} with the sort key chosen once the file's schema
     * is known (a table format's file names its columns its own way), with the table's names of its
     * columns for the verdict.
     */
    static FileLayout read(
            FileStore store, FileId file, Function<MessageType, SortKeyResolver.KeyNames> sortKeyOf)
            throws IOException {
        ReadStatistics stats = new ReadStatistics();
        try (RangeSource source = new CountingRangeSource(store.open(file), stats)) {
            FileMetadata meta;
            try {
                meta = MetadataReader.read(source, sortKeyOf, PageIndexOptions.OWN);
            } catch (LookupFileException e) {
                SortVerdict verdict = verdict(e);
                if (verdict == null) {
                    throw e;
                }
                try {
                    return refusedLayout(source, file, sortKeyOf, verdict);
                } catch (IOException | RuntimeException unreadable) {
                    LookupFileException error =
                            new LookupFileException(
                                    "File "
                                            + file
                                            + ": its page index cannot be read for the report ("
                                            + unreadable.getMessage()
                                            + "), after the engine said: "
                                            + e.getMessage(),
                                    unreadable);
                    error.addSuppressed(e);
                    throw error;
                }
            }
            return FileLayout.of(meta, stats.bytesRead());
        }
    }

    /**
     * The verdict an engine refusal stands for, or null for refusals that are errors. The messages
     * are the engine's own (see MetadataReader), so the two cannot drift apart unnoticed: the
     * inspect tests pin both.
     */
    static SortVerdict verdict(LookupFileException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains(" is not sorted by '")) {
            return new SortVerdict(SortVerdict.Status.NOT_SORTED, message);
        }
        if (message.contains(" does not declare its sort order")) {
            return new SortVerdict(SortVerdict.Status.NO_KEY, message);
        }
        return null;
    }

    private static FileLayout refusedLayout(
            RangeSource source,
            FileId file,
            Function<MessageType, SortKeyResolver.KeyNames> sortKeyOf,
            SortVerdict verdict)
            throws IOException {
        FooterReader.Footer read = FooterReader.read(source);
        FileMetaData thrift = read.thrift();
        ParquetMetadata footer = read.metadata();
        MessageType schema = footer.getFileMetaData().getSchema();
        byte[] tail = read.tail();
        // The footer, its length and the magic bytes.
        long metadataBytes =
                8L
                        + ByteBuffer.wrap(tail, tail.length - 8, 4)
                                .order(ByteOrder.LITTLE_ENDIAN)
                                .getInt();
        List<RowGroupLayout> groups = new ArrayList<>();
        for (BlockMetaData block : footer.getBlocks()) {
            List<ChunkLayout> chunks = new ArrayList<>();
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                PageLocations pages = null;
                IndexReference ref = chunk.getOffsetIndexReference();
                if (ref != null) {
                    byte[] bytes = source.read(new FileRange(ref.getOffset(), ref.getLength()));
                    metadataBytes += ref.getLength();
                    pages = PageIndexReader.decodeOffsetIndex(bytes, 0, bytes.length);
                    pages = pages.pageCount() == 0 ? null : pages;
                }
                long dictionary =
                        chunk.hasDictionaryPage()
                                ? chunk.getFirstDataPageOffset() - chunk.getDictionaryPageOffset()
                                : 0;
                chunks.add(
                        new ChunkLayout(
                                chunk.getPath().toDotString(),
                                chunk.getCodec().name(),
                                chunk.hasDictionaryPage(),
                                Math.max(0, dictionary),
                                chunk.getTotalSize(),
                                pages));
            }
            groups.add(new RowGroupLayout(block.getRowCount(), chunks, false));
        }
        // As the engine read it: a declared key it refuses (nested, descending) never gets here.
        List<String> declared = SortKeyResolver.declaredSortKey(file, thrift, schema);
        List<String> givenKey = sortKeyOf.apply(schema).stored();
        List<String> resolved =
                !givenKey.isEmpty()
                        ? givenKey
                        : verdict.status() == SortVerdict.Status.NOT_SORTED ? declared : List.of();
        return new FileLayout(
                file,
                footer.getFileMetaData().getCreatedBy(),
                schema,
                resolved,
                declared,
                groups,
                null,
                metadataBytes,
                verdict);
    }
}
