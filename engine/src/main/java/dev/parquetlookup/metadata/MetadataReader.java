package dev.parquetlookup.metadata;

import dev.parquetlookup.engine.LookupFileException;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileRange;
import dev.parquetlookup.io.RangeSource;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Util;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.hadoop.metadata.IndexReference;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a file's footer and page index into a {@link FileMetadata}. Stateless.
 *
 * <p>A Parquet file ends with {@code [data pages][ColumnIndexes][OffsetIndexes][footer][footer
 * length: 4 bytes LE]["PAR1"]}. The reader fetches the last 64 KiB first (usually footer and
 * indexes at once), then at most one more read for a larger footer and one for the index region,
 * which it reads as a single range. Every offset is checked against the file length so a corrupt or
 * truncated file gives an error, never a wild read.
 */
public final class MetadataReader {

    /** Footer key-value entry our writer records the sort key in (comma-separated names). */
    public static final String SORT_KEY_METADATA = "parquet-lookup.sort-key";

    private static final Logger LOG = LoggerFactory.getLogger(MetadataReader.class);

    static final int TAIL_READ = 64 * 1024;
    private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ENCRYPTED_MAGIC = "PARE".getBytes(StandardCharsets.US_ASCII);

    private MetadataReader() {}

    /**
     * Reads the metadata of the file behind {@code source}.
     *
     * @param configuredSortKey the sort key the user declared, or empty to take the file's
     */
    public static FileMetadata read(RangeSource source, List<String> configuredSortKey)
            throws IOException {
        FileId file = source.file();
        long length = file.length();
        if (length == 0) {
            throw new LookupFileException(
                    "File "
                            + file
                            + " is empty (0 bytes): not a Parquet file. Remove it or"
                            + " rewrite it with 'prepare'.");
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
                            + " read. Rewrite it without encryption.");
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
            throw corrupt(
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
        FileMetaData thrift;
        ParquetMetadata footer;
        try {
            thrift =
                    Util.readFileMetaData(
                            new ByteArrayInputStream(footerBytes, footerOffset, footerLength));
            footer = new ParquetMetadataConverter().fromParquetMetadata(thrift);
        } catch (IOException | RuntimeException e) {
            throw corrupt(
                    file, "the footer is damaged (Thrift: " + stripPeriod(e.getMessage()) + ")", e);
        }
        MessageType schema = footer.getFileMetaData().getSchema();
        List<String> declared = declaredSortKey(file, thrift, schema);
        List<String> sortKey = configuredSortKey.isEmpty() ? declared : configuredSortKey;
        if (sortKey.isEmpty()) {
            throw new LookupFileException(
                    "File "
                            + file
                            + " does not declare its sort order (no sorting_columns and no '"
                            + SORT_KEY_METADATA
                            + "' entry; written by "
                            + footer.getFileMetaData().getCreatedBy()
                            + "). Name the columns it is sorted by with the 'sort-key' option, or"
                            + " rewrite it with 'prepare'.");
        }
        int[] leaves = new int[sortKey.size()];
        List<KeyType> keyTypes = new ArrayList<>();
        for (int i = 0; i < sortKey.size(); i++) {
            String name = sortKey.get(i);
            if (!schema.containsField(name)) {
                throw new LookupFileException(
                        "File "
                                + file
                                + " has no column '"
                                + name
                                + "' for the sort key "
                                + sortKey
                                + "; its columns are "
                                + topLevelNames(schema)
                                + ". Fix the 'sort-key' option or the table's columns.");
            }
            Type field = schema.getType(name);
            if (!field.isPrimitive()) {
                throw new LookupFileException(
                        "Sort-key column '"
                                + name
                                + "' of file "
                                + file
                                + " is nested ("
                                + field
                                + "); only top-level primitive columns can be lookup keys.");
            }
            KeyType keyType = KeyType.of(field.asPrimitiveType());
            if (keyType == null) {
                throw new LookupFileException(
                        "Sort-key column '"
                                + name
                                + "' of file "
                                + file
                                + " has type "
                                + field.asPrimitiveType()
                                + ", which cannot be a lookup key. Keys"
                                + " may be INT, BIGINT, STRING, BINARY, DATE, TIMESTAMP or"
                                + " DECIMAL columns.");
            }
            keyTypes.add(keyType);
            leaves[i] = leafIndex(schema, name);
        }
        if (!declared.isEmpty()
                && !configuredSortKey.isEmpty()
                && !isPrefix(configuredSortKey, declared)) {
            throw new LookupFileException(
                    "File "
                            + file
                            + " declares sort key "
                            + declared
                            + " but the table declares "
                            + configuredSortKey
                            + ". Set 'sort-key' to "
                            + String.join(",", declared)
                            + " (or a leading part of it), or remove the option.");
        }

        byte[] indexRegion = null;
        long indexStart = 0;
        FileRange region = indexRegion(footer, leaves, length);
        if (region != null) {
            if (region.offset() >= tailStart) {
                indexRegion = tail;
                indexStart = tailStart;
            } else {
                indexRegion = source.read(region);
                indexStart = region.offset();
            }
        }

        List<RowGroupInfo> rowGroups = new ArrayList<>();
        List<Object> rgMins = new ArrayList<>();
        List<Object> rgMaxs = new ArrayList<>();
        long firstRow = 0;
        long retained = 256L + 64L * schema.getColumns().size();
        List<BlockMetaData> blocks = footer.getBlocks();
        for (int r = 0; r < blocks.size(); r++) {
            BlockMetaData block = blocks.get(r);
            List<ColumnChunkMetaData> chunks = block.getColumns();
            ColumnChunkInfo[] columns = new ColumnChunkInfo[chunks.size()];
            for (int c = 0; c < chunks.size(); c++) {
                ColumnChunkMetaData chunk = chunks.get(c);
                PageLocations pages = null;
                IndexReference ref = chunk.getOffsetIndexReference();
                if (ref != null && indexRegion != null) {
                    pages = offsetIndex(file, indexRegion, indexStart, ref, length, chunk);
                }
                long dictionaryOffset = chunk.getDictionaryPageOffset();
                long dataOffset = chunk.getFirstDataPageOffset();
                boolean hasDictionary =
                        chunk.hasDictionaryPage()
                                && dictionaryOffset > 0
                                && dictionaryOffset < dataOffset;
                long start = chunk.getStartingPos();
                if (start < 4 || start + chunk.getTotalSize() > length) {
                    throw corrupt(
                            file,
                            "column chunk "
                                    + chunk.getPath()
                                    + " of row group "
                                    + r
                                    + " lies outside the file",
                            null);
                }
                columns[c] =
                        new ColumnChunkInfo(
                                chunk.getCodec(),
                                start,
                                dataOffset,
                                chunk.getTotalSize(),
                                hasDictionary,
                                pages);
            }
            KeyRanges[] keyPages = new KeyRanges[leaves.length];
            for (int k = 0; k < leaves.length; k++) {
                ColumnChunkMetaData chunk = chunks.get(leaves[k]);
                IndexReference ref = chunk.getColumnIndexReference();
                if (ref != null && indexRegion != null && columns[leaves[k]].pages() != null) {
                    keyPages[k] =
                            columnIndex(
                                    file,
                                    indexRegion,
                                    indexStart,
                                    ref,
                                    keyTypes.get(k),
                                    columns[leaves[k]].pages().pageCount(),
                                    sortKey.get(k));
                }
            }
            // Row-group bounds of the leading key column.
            ColumnChunkMetaData keyChunk = chunks.get(leaves[0]);
            Statistics<?> stats = keyChunk.getStatistics();
            if (block.getRowCount() > 0) {
                if (stats != null && stats.hasNonNullValue()) {
                    rgMins.add(keyTypes.get(0).decodeBound(stats.getMinBytes()));
                    rgMaxs.add(keyTypes.get(0).decodeBound(stats.getMaxBytes()));
                } else if (stats != null
                        && !stats.isEmpty()
                        && stats.getNumNulls() == block.getRowCount()) {
                    rgMins.add(null); // only nulls: no key can match
                    rgMaxs.add(null);
                } else {
                    throw new LookupFileException(
                            "Row group "
                                    + r
                                    + " of file "
                                    + file
                                    + " has no min/max statistics for"
                                    + " sort-key column '"
                                    + sortKey.get(0)
                                    + "', so keys cannot be"
                                    + " located. Rewrite the file with 'prepare' (statistics on).");
                }
            } else {
                rgMins.add(null);
                rgMaxs.add(null);
            }
            RowGroupInfo info =
                    new RowGroupInfo(r, firstRow, block.getRowCount(), columns, keyPages);
            retained += info.retainedBytes();
            rowGroups.add(info);
            firstRow += block.getRowCount();
        }
        KeyRanges rowGroupKeys = KeyRanges.of(keyTypes.get(0), rgMins, rgMaxs);
        retained += rowGroupKeys.retainedBytes();
        verifySorted(file, sortKey.get(0), rowGroupKeys, rowGroups);
        FileMetadata metadata =
                new FileMetadata(
                        file,
                        schema,
                        firstRow,
                        List.copyOf(rowGroups),
                        List.copyOf(sortKey),
                        List.copyOf(keyTypes),
                        leaves,
                        rowGroupKeys,
                        declared,
                        footer.getFileMetaData().getCreatedBy(),
                        retained);
        if (!metadata.hasPageIndex() && metadata.rowCount() > 0) {
            // Logged once per parse, and a file version is parsed once while it stays cached.
            LOG.warn(
                    "File {} has no page index for sort-key column '{}' (written by {}): lookups"
                            + " read whole column chunks of a row group. Rewrite it with 'prepare'"
                            + " for page-sized reads.",
                    file,
                    sortKey.get(0),
                    metadata.createdBy());
        }
        return metadata;
    }

    /** Row-group and page bounds of the leading key must not decrease. */
    private static void verifySorted(
            FileId file, String column, KeyRanges rowGroupKeys, List<RowGroupInfo> rowGroups) {
        int bad = rowGroupKeys.firstUnsorted();
        if (bad >= 0) {
            KeyType type = rowGroupKeys.type();
            throw unsorted(
                    file,
                    column,
                    "row group "
                            + rowGroupKeys.entry(bad - 1)
                            + " holds keys up to "
                            + type.format(rowGroupKeys.max(bad - 1))
                            + " but row group "
                            + rowGroupKeys.entry(bad)
                            + " starts at "
                            + type.format(rowGroupKeys.min(bad)));
        }
        for (RowGroupInfo rg : rowGroups) {
            KeyRanges pages = rg.keyPages()[0];
            if (pages == null) {
                continue;
            }
            int p = pages.firstUnsorted();
            if (p >= 0) {
                KeyType type = pages.type();
                throw unsorted(
                        file,
                        column,
                        "in row group "
                                + rg.ordinal()
                                + ", page "
                                + pages.entry(p - 1)
                                + " holds keys up to "
                                + type.format(pages.max(p - 1))
                                + " but page "
                                + pages.entry(p)
                                + " starts at "
                                + type.format(pages.min(p)));
            }
        }
    }

    static LookupFileException unsorted(FileId file, String column, String detail) {
        return new LookupFileException(
                "File "
                        + file
                        + " is not sorted by '"
                        + column
                        + "': "
                        + detail
                        + ". Lookups need files sorted by the key: rewrite it with 'prepare --key "
                        + column
                        + "'.");
    }

    private static FileRange indexRegion(ParquetMetadata footer, int[] keyLeaves, long length) {
        long start = Long.MAX_VALUE;
        long end = -1;
        for (BlockMetaData block : footer.getBlocks()) {
            List<ColumnChunkMetaData> chunks = block.getColumns();
            for (int c = 0; c < chunks.size(); c++) {
                IndexReference oi = chunks.get(c).getOffsetIndexReference();
                if (oi != null) {
                    start = Math.min(start, oi.getOffset());
                    end = Math.max(end, oi.getOffset() + oi.getLength());
                }
            }
            for (int leaf : keyLeaves) {
                IndexReference ci = chunks.get(leaf).getColumnIndexReference();
                if (ci != null) {
                    start = Math.min(start, ci.getOffset());
                    end = Math.max(end, ci.getOffset() + ci.getLength());
                }
            }
        }
        if (end < 0) {
            return null;
        }
        if (start < 4 || end > length || end - start > Integer.MAX_VALUE) {
            return null; // implausible references: treated as no page index
        }
        return new FileRange(start, (int) (end - start));
    }

    private static PageLocations offsetIndex(
            FileId file,
            byte[] region,
            long regionStart,
            IndexReference ref,
            long length,
            ColumnChunkMetaData chunk) {
        PageLocations decoded;
        try {
            decoded =
                    decodeOffsetIndex(
                            region, (int) (ref.getOffset() - regionStart), ref.getLength());
        } catch (IOException | RuntimeException e) {
            throw corrupt(
                    file,
                    "the OffsetIndex of column "
                            + chunk.getPath()
                            + " cannot be decoded: "
                            + e.getMessage(),
                    e);
        }
        long[] offsets = decoded.offsets();
        int[] sizes = decoded.sizes();
        long[] firstRows = decoded.firstRows();
        int n = offsets.length;
        for (int i = 0; i < n; i++) {
            if (offsets[i] < 4
                    || sizes[i] <= 0
                    || offsets[i] + sizes[i] > length
                    || (i == 0 ? firstRows[i] != 0 : firstRows[i] < firstRows[i - 1])) {
                throw corrupt(
                        file,
                        "the OffsetIndex of column "
                                + chunk.getPath()
                                + " has an invalid page "
                                + i,
                        null);
            }
        }
        if (n == 0) {
            return null;
        }
        return new PageLocations(offsets, sizes, firstRows);
    }

    private static KeyRanges columnIndex(
            FileId file,
            byte[] region,
            long regionStart,
            IndexReference ref,
            KeyType type,
            int pageCount,
            String column) {
        ColumnIndex index;
        try {
            index = Util.readColumnIndex(slice(region, regionStart, ref));
        } catch (IOException | RuntimeException e) {
            throw corrupt(
                    file,
                    "the ColumnIndex of column '"
                            + column
                            + "' cannot be decoded: "
                            + e.getMessage(),
                    e);
        }
        List<Boolean> nullPages = index.getNull_pages();
        List<ByteBuffer> mins = index.getMin_values();
        List<ByteBuffer> maxs = index.getMax_values();
        if (nullPages.size() != pageCount || mins.size() != pageCount || maxs.size() != pageCount) {
            throw corrupt(
                    file,
                    "the ColumnIndex of column '"
                            + column
                            + "' describes "
                            + mins.size()
                            + " pages but its OffsetIndex "
                            + pageCount,
                    null);
        }
        List<Object> minKeys = new ArrayList<>(pageCount);
        List<Object> maxKeys = new ArrayList<>(pageCount);
        try {
            for (int i = 0; i < pageCount; i++) {
                if (nullPages.get(i)) {
                    minKeys.add(null);
                    maxKeys.add(null);
                } else {
                    minKeys.add(type.decodeBound(mins.get(i)));
                    maxKeys.add(type.decodeBound(maxs.get(i)));
                }
            }
        } catch (RuntimeException e) {
            throw corrupt(
                    file,
                    "the ColumnIndex of column '"
                            + column
                            + "' holds a bound that cannot be decoded",
                    e);
        }
        return KeyRanges.of(type, minKeys, maxKeys);
    }

    /**
     * Decodes a Thrift {@code OffsetIndex} straight into arrays (parquet-java builds an object per
     * page, a third of an open's time). Validation of the values is the caller's.
     *
     * @throws IOException if the bytes are not a complete OffsetIndex
     */
    static PageLocations decodeOffsetIndex(byte[] bytes, int offset, int length)
            throws IOException {
        ThriftCompactReader in = new ThriftCompactReader(bytes, offset, length);
        PageLocations result = null;
        while (in.nextField()) {
            if (in.fieldId() != 1) {
                in.skip(in.fieldType()); // unencoded_byte_array_data_bytes, later fields
                continue;
            }
            int n = in.readListHeader("page_locations");
            in.expectElements(ThriftCompactReader.STRUCT, "page_locations");
            long[] offsets = new long[n];
            int[] sizes = new int[n];
            long[] firstRows = new long[n];
            for (int i = 0; i < n; i++) {
                int seen = 0;
                int outer = in.beginStruct();
                while (in.nextField()) {
                    switch (in.fieldId()) {
                        case 1 -> {
                            offsets[i] = in.readI64("offset");
                            seen |= 1;
                        }
                        case 2 -> {
                            sizes[i] = in.readI32("compressed_page_size");
                            seen |= 2;
                        }
                        case 3 -> {
                            firstRows[i] = in.readI64("first_row_index");
                            seen |= 4;
                        }
                        default -> in.skip(in.fieldType());
                    }
                }
                in.endStruct(outer);
                if (seen != 7) {
                    throw new IOException("page location " + i + " lacks a required field");
                }
            }
            result = new PageLocations(offsets, sizes, firstRows);
        }
        if (result == null) {
            throw new IOException("no page_locations");
        }
        return result;
    }

    private static ByteArrayInputStream slice(byte[] region, long regionStart, IndexReference ref) {
        int from = (int) (ref.getOffset() - regionStart);
        return new ByteArrayInputStream(region, from, ref.getLength());
    }

    private static List<String> declaredSortKey(
            FileId file, FileMetaData thrift, MessageType schema) {
        List<RowGroup> groups = thrift.getRow_groups();
        if (groups != null && !groups.isEmpty() && groups.get(0).isSetSorting_columns()) {
            List<String> names = new ArrayList<>();
            for (SortingColumn sc : groups.get(0).getSorting_columns()) {
                String[] path = schema.getColumns().get(sc.getColumn_idx()).getPath();
                String name = String.join(".", path);
                if (path.length > 1) {
                    throw new LookupFileException(
                            "File "
                                    + file
                                    + " is sorted by the nested column '"
                                    + name
                                    + "'; only top-level columns can be lookup keys. Set"
                                    + " 'sort-key' to top-level columns the file is sorted by, or"
                                    + " rewrite it with 'prepare'.");
                }
                if (sc.isDescending()) {
                    throw new LookupFileException(
                            "File "
                                    + file
                                    + " is sorted descending by '"
                                    + name
                                    + "'; lookups need"
                                    + " ascending order. Rewrite it with 'prepare --key "
                                    + name
                                    + "'.");
                }
                names.add(name);
            }
            if (!names.isEmpty()) {
                return List.copyOf(names);
            }
        }
        if (thrift.getKey_value_metadata() != null) {
            for (KeyValue kv : thrift.getKey_value_metadata()) {
                if (SORT_KEY_METADATA.equals(kv.getKey())
                        && kv.getValue() != null
                        && !kv.getValue().isBlank()) {
                    List<String> names = new ArrayList<>();
                    for (String part : kv.getValue().split(",")) {
                        names.add(part.trim());
                    }
                    return List.copyOf(names);
                }
            }
        }
        return List.of();
    }

    private static String stripPeriod(String message) {
        String m = String.valueOf(message).trim();
        while (m.endsWith(".")) {
            m = m.substring(0, m.length() - 1);
        }
        return m;
    }

    private static boolean isPrefix(List<String> prefix, List<String> of) {
        return prefix.size() <= of.size() && of.subList(0, prefix.size()).equals(prefix);
    }

    private static int leafIndex(MessageType schema, String topLevelName) {
        int leaf = 0;
        for (Type field : schema.getFields()) {
            if (field.getName().equals(topLevelName)) {
                return leaf;
            }
            leaf += leafCount(field);
        }
        throw new IllegalArgumentException(topLevelName);
    }

    static int leafCount(Type type) {
        if (type.isPrimitive()) {
            return 1;
        }
        int n = 0;
        for (Type child : type.asGroupType().getFields()) {
            n += leafCount(child);
        }
        return n;
    }

    private static List<String> topLevelNames(MessageType schema) {
        List<String> names = new ArrayList<>();
        for (Type field : schema.getFields()) {
            names.add(field.getName());
        }
        return names;
    }

    private static LookupFileException notParquet(FileId file, String why) {
        return new LookupFileException(
                "File "
                        + file
                        + " is not a readable Parquet file: "
                        + why
                        + ". Remove it from the table's path or rewrite it.");
    }

    static LookupFileException corrupt(FileId file, String why, Throwable cause) {
        return new LookupFileException(
                "File "
                        + file
                        + " is corrupt: "
                        + why
                        + ". Rewrite the file (for example with"
                        + " 'prepare').",
                cause);
    }
}
