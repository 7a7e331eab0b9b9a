package dev.parquetlookup.tools;

import dev.parquetlookup.engine.lookup.ColumnBinding;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.RowGroupInfo;
import dev.parquetlookup.metadata.RowGroupInfo.ColumnChunkInfo;
import dev.parquetlookup.metadata.RowGroupInfo.PageLocations;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What {@code inspect} knows about one file: its layout (row groups, column chunks, pages) and the
 * engine's verdict on it. Built from the engine's {@link FileMetadata} whenever the engine accepts
 * the file, so inspect and lookups see the same footer, sort key and sort order.
 *
 * @param file the file
 * @param createdBy the writer
 * @param schema the Parquet schema
 * @param sortKey the sort key the engine resolved (declared, or given with {@code --key}); empty
 *     when the file declares none and none was given
 * @param declaredSortKey the sort key the file declares, empty if none
 * @param rowGroups the row groups, in file order
 * @param leadKeyBounds row-group bounds of the leading sort-key column, or null when the engine did
 *     not accept the file
 * @param metadataBytes bytes the engine read for the footer and page index
 * @param verdict the engine's verdict on the file's sort order
 */
record FileLayout(
        FileId file,
        String createdBy,
        MessageType schema,
        List<String> sortKey,
        List<String> declaredSortKey,
        List<RowGroupLayout> rowGroups,
        @Nullable KeyRanges leadKeyBounds,
        long metadataBytes,
        SortVerdict verdict) {

    /** This layout with another verdict (after {@link RowOrderCheck} read its rows). */
    FileLayout withVerdict(SortVerdict newVerdict) {
        return new FileLayout(
                file,
                createdBy,
                schema,
                sortKey,
                declaredSortKey,
                rowGroups,
                leadKeyBounds,
                metadataBytes,
                newVerdict);
    }

    /** One row group. */
    record RowGroupLayout(long rows, List<ChunkLayout> chunks, boolean leadKeyColumnIndex) {}

    /**
     * One column chunk.
     *
     * @param column the dotted column path
     * @param pages page locations from the OffsetIndex, or null without one
     */
    record ChunkLayout(
            String column,
            String codec,
            boolean dictionary,
            long dictionaryBytes,
            long bytes,
            @Nullable PageLocations pages) {}

    /** The engine's verdict on whether lookups can use the file's order. */
    record SortVerdict(Status status, String detail) {
        enum Status {
            /** The engine verified the order from row-group and page statistics. */
            SORTED,
            /** The engine refused the file: not sorted by its key. */
            NOT_SORTED,
            /** No sort key declared and none given: the order was not checked. */
            NO_KEY
        }

        static SortVerdict sorted() {
            return new SortVerdict(Status.SORTED, "");
        }

        /** Sorted, statistics and every row's leading key checked ({@link RowOrderCheck}). */
        static final String ROWS_CHECKED = "every row checked";

        boolean rowsChecked() {
            return status == Status.SORTED && detail.equals(ROWS_CHECKED);
        }

        /**
         * Whether a table finds this file unsorted when it opens it: its row groups are out of
         * order (footer statistics, all a table reads at open; see {@code SortOrderCheck}). A file
         * out of order only between pages (page indexes are read row group by row group on first
         * use) or inside them is found at the first lookup into such a row group or page. The
         * detail is the engine's own message, pinned by the inspect tests.
         */
        boolean foundAtOpen() {
            return status == Status.NOT_SORTED && detail.contains("': row group ");
        }
    }

    /** The layout as the engine read it. */
    static FileLayout of(FileMetadata meta, long metadataBytes) {
        List<ColumnDescriptor> leaves = meta.schema().getColumns();
        List<RowGroupLayout> groups = new ArrayList<>();
        for (RowGroupInfo rg : meta.rowGroups()) {
            List<ChunkLayout> chunks = new ArrayList<>();
            ColumnChunkInfo[] columns = rg.columns();
            for (int c = 0; c < columns.length; c++) {
                ColumnChunkInfo chunk = columns[c];
                chunks.add(
                        new ChunkLayout(
                                String.join(".", leaves.get(c).getPath()),
                                chunk.codec().name(),
                                chunk.hasDictionaryPage(),
                                chunk.hasDictionaryPage()
                                        ? chunk.firstDataPageOffset() - chunk.startOffset()
                                        : 0,
                                chunk.totalCompressedSize(),
                                chunk.pages()));
            }
            groups.add(new RowGroupLayout(rg.rowCount(), chunks, rg.keyPages()[0] != null));
        }
        return new FileLayout(
                meta.file(),
                meta.createdBy(),
                meta.schema(),
                meta.sortKey(),
                meta.declaredSortKey(),
                groups,
                meta.rowGroupKeys(),
                metadataBytes,
                SortVerdict.sorted());
    }

    /**
     * This layout with the table's names (a table format's file: renamed columns, added ones,
     * partition constants), so files of one table version compare as the table sees them.
     */
    FileLayout asTable(ColumnBinding.FileView view) {
        Map<String, String> names = view.tableNameOfField();
        List<RowGroupLayout> groups = new ArrayList<>();
        for (RowGroupLayout rg : rowGroups) {
            List<ChunkLayout> chunks = new ArrayList<>();
            for (ChunkLayout c : rg.chunks()) {
                int dot = c.column().indexOf('.');
                String field = dot < 0 ? c.column() : c.column().substring(0, dot);
                String table = names.get(field);
                if (table != null) {
                    String column = dot < 0 ? table : table + c.column().substring(dot);
                    chunks.add(
                            new ChunkLayout(
                                    column,
                                    c.codec(),
                                    c.dictionary(),
                                    c.dictionaryBytes(),
                                    c.bytes(),
                                    c.pages()));
                }
            }
            groups.add(new RowGroupLayout(rg.rows(), chunks, rg.leadKeyColumnIndex()));
        }
        return new FileLayout(
                file,
                createdBy,
                view.tableSchema(),
                sortKey.stream().map(k -> names.getOrDefault(k, k)).toList(),
                declaredSortKey.stream().map(k -> names.getOrDefault(k, k)).toList(),
                groups,
                leadKeyBounds,
                metadataBytes,
                verdict);
    }

    long rows() {
        return rowGroups.stream().mapToLong(RowGroupLayout::rows).sum();
    }

    long maxRowGroupRows() {
        return rowGroups.stream().mapToLong(RowGroupLayout::rows).max().orElse(0);
    }
}
