package dev.parquetlookup.engine.lookup;

import dev.parquetlookup.engine.page.ColumnTypes;
import dev.parquetlookup.engine.page.NestedShape;
import dev.parquetlookup.engine.read.FileErrors;
import dev.parquetlookup.engine.read.LookupContext;
import dev.parquetlookup.engine.read.PageLoader;
import dev.parquetlookup.engine.read.PageLoader.LoadedPage;
import dev.parquetlookup.engine.read.PagesPending;
import dev.parquetlookup.metadata.FileMetadata;
import dev.parquetlookup.metadata.RowGroupInfo;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;

/**
 * Owns reading one nested top-level column (ARRAY, MAP or ROW) of one file for {@link SortedFile}:
 * which pages of each of its leaf columns hold the wanted rows, and assembling each row's value
 * from all leaves ({@link NestedLeafCursor}, {@link NestedRecord}) into the engine's representation
 * ({@link NestedShape}). Immutable and thread-safe; the pages come through the file's {@link
 * PageLoader} with the flat columns' in the same batch.
 *
 * <p>Leaves whose chunk has an OffsetIndex are read from the pages holding the rows (its
 * first_row_index counts rows, and pages start at rows, as the spec requires with an OffsetIndex);
 * a chunk without one is walked from its first page, counting rows by repetition level 0.
 */
final class NestedColumn {

    private final NestedShape shape;
    private final int[] leaves;
    private final ColumnDescriptor[] descriptors;
    private final ColumnTypes.ValueReader[] readers;
    private final NestedRecord[] records;

    private NestedColumn(
            NestedShape shape,
            int[] leaves,
            ColumnDescriptor[] descriptors,
            ColumnTypes.ValueReader[] readers,
            NestedRecord[] records) {
        this.shape = shape;
        this.leaves = leaves;
        this.descriptors = descriptors;
        this.readers = readers;
        this.records = records;
    }

    /**
     * The reader of top-level {@code field}, whose leaves are {@code count} leaves from {@code
     * firstLeaf}; null when the field is flat or the engine cannot read it.
     */
    @Nullable
    static NestedColumn of(
            MessageType schema, Type field, ColumnDescriptor[] all, int firstLeaf, int count) {
        if (field.isPrimitive() && !field.isRepetition(Type.Repetition.REPEATED)) {
            return null;
        }
        NestedShape shape = NestedShape.of(field);
        if (shape == null) {
            return null;
        }
        int[] leaves = new int[count];
        ColumnDescriptor[] descriptors = new ColumnDescriptor[count];
        ColumnTypes.ValueReader[] readers = new ColumnTypes.ValueReader[count];
        NestedRecord[] records = new NestedRecord[count];
        for (int i = 0; i < count; i++) {
            leaves[i] = firstLeaf + i;
            descriptors[i] = all[firstLeaf + i];
            readers[i] = ColumnTypes.reader(descriptors[i].getPrimitiveType());
            records[i] = new NestedRecord(schema, descriptors[i]);
        }
        return new NestedColumn(shape, leaves, descriptors, readers, records);
    }

    int[] leaves() {
        return leaves;
    }

    /** Page requests this column adds for {@code spans}: one per leaf and span, leaf by leaf. */
    void addRequests(
            List<SortedFile.RowSpan> spans,
            FileMetadata meta,
            PageLoader loader,
            LookupContext ctx,
            List<PageLoader.PageRequest> out)
            throws IOException {
        for (int leaf : leaves) {
            for (SortedFile.RowSpan span : spans) {
                RowGroupInfo rg = ctx.rowGroup(meta, loader.source(), span.rowGroup());
                boolean indexed = rg.columns()[leaf].pages() != null;
                out.add(
                        new PageLoader.PageRequest(
                                rg,
                                leaf,
                                indexed ? span.from() : 0,
                                indexed ? span.to() : Long.MAX_VALUE));
            }
        }
    }

    /**
     * Reads this column of the rows of {@code spans} into column {@code c} of {@code rows}, from
     * the pages {@link #addRequests} asked for (from {@code pages.get(first)} on).
     *
     * @return whether dictionaries are still on their way (the lookup replays when they are here)
     */
    boolean read(
            List<List<LoadedPage>> pages,
            int first,
            List<SortedFile.RowSpan> spans,
            int c,
            Object[][] rows,
            PageLoader loader,
            FileErrors errors,
            FileMetadata meta,
            LookupContext ctx)
            throws IOException {
        Dictionary[][] dictionaries = new Dictionary[leaves.length * spans.size()][];
        boolean pending = false;
        for (int i = 0; i < dictionaries.length; i++) {
            List<LoadedPage> leafPages = pages.get(first + i);
            dictionaries[i] = new Dictionary[leafPages.size()];
            for (int p = 0; p < leafPages.size(); p++) {
                LoadedPage page = leafPages.get(p);
                try {
                    dictionaries[i][p] = loader.dictionaryFor(page, page.leaf, ctx);
                } catch (PagesPending signal) {
                    pending = true;
                }
            }
        }
        if (pending) {
            return true;
        }
        Object[][] roots = new Object[rows.length][1];
        for (int l = 0; l < leaves.length; l++) {
            NestedLeafCursor cursor = new NestedLeafCursor(descriptors[l], readers[l], records[l]);
            int row = 0;
            for (int s = 0; s < spans.size(); s++) {
                int i = l * spans.size() + s;
                SortedFile.RowSpan span = spans.get(s);
                List<LoadedPage> leafPages = pages.get(first + i);
                RowGroupInfo rg = ctx.rowGroup(meta, loader.source(), span.rowGroup());
                boolean indexed = rg.columns()[leaves[l]].pages() != null;
                try {
                    cursor.start(
                            leafPages,
                            dictionaries[i],
                            indexed && !leafPages.isEmpty() ? leafPages.get(0).firstRow : 0);
                    cursor.skipTo(span.from());
                    for (long r = span.from(); r < span.to(); r++) {
                        cursor.readRow(roots[row++]);
                    }
                } catch (IOException | RuntimeException e) {
                    LoadedPage at = leafPages.isEmpty() ? null : cursor.currentPage();
                    throw errors.pageError(rg, leaves[l], at == null ? -1 : at.pageNumber, e);
                }
            }
        }
        for (int r = 0; r < rows.length; r++) {
            rows[r][c] = shape.apply(roots[r][0]);
        }
        return false;
    }
}
