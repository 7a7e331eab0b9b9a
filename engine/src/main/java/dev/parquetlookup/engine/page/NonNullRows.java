package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.Scratch;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;

import java.io.IOException;

/**
 * Where a key page's values start and which of its leading rows hold one (definition levels read
 * straight from the page bytes by {@link HybridRle}). The row numbers live in int slots {@code [0,
 * count)} of a scratch array of the lookup, followed by {@code extra} slots for the caller
 * (dictionary ranks, value offsets) from slot {@link #base}.
 *
 * <p>Example: an optional column's page {@code [5, null, 7]} read for 3 rows gives {@code count =
 * 2}, rows {@code 0, 2}; a required column's page needs no row slots ({@code all}, base 0).
 *
 * @param valuesStart where the values start in {@link DataPage#data()}
 * @param count non-null rows among the rows read
 * @param all whether every row read is non-null (row i is value i; no row slots)
 * @param slots the scratch array of int slots
 * @param base the first slot left to the caller
 */
record NonNullRows(int valuesStart, int count, boolean all, byte[] slots, int base) {

    private static final byte[] NONE = new byte[0];

    /** Whether the levels of this page can be read here (v1 bit-packed levels cannot). */
    static boolean readable(DataPage page, ColumnDescriptor column) {
        return column.getMaxRepetitionLevel() == 0
                && (column.getMaxDefinitionLevel() == 0
                        || page.v2()
                        || page.definitionEncoding() == Encoding.RLE);
    }

    /** The non-null rows among the page's {@link DataPage#rowsAvailable()} leading rows. */
    static NonNullRows read(DataPage page, ColumnDescriptor column, int extra, Scratch ctx)
            throws IOException {
        int n = page.rowsAvailable();
        int maxDefinition = column.getMaxDefinitionLevel();
        byte[] data = page.data();
        if (maxDefinition == 0) {
            int start = page.v2() ? page.valuesOffset() : 0;
            return new NonNullRows(start, n, true, extra == 0 ? NONE : ctx.scratch(4 * extra), 0);
        }
        byte[] slots = ctx.scratch(4 * (n + extra));
        int from;
        int end;
        int start;
        if (page.v2()) {
            from = page.definitionOffset();
            end = from + page.definitionLength();
            start = page.valuesOffset();
        } else {
            if (page.length() < 4) {
                throw new IOException("page of " + page.length() + " bytes has no levels");
            }
            int levels = HybridRle.get(data, 0);
            if (levels < 0 || levels > page.length() - 4) {
                throw new IOException("definition levels of " + levels + " bytes exceed the page");
            }
            from = 4;
            end = 4 + levels;
            start = end;
        }
        int count = HybridRle.nonNullRows(data, from, end, maxDefinition, n, slots);
        return new NonNullRows(start, count, count == n, slots, n);
    }

    /**
     * These rows with a copy of the slots in use (rows, then the caller's {@code count} slots), for
     * keys kept beyond the lookup whose scratch array held them.
     */
    NonNullRows detached() {
        int used = Math.min(slots.length, 4 * (base + count));
        return new NonNullRows(valuesStart, count, all, java.util.Arrays.copyOf(slots, used), base);
    }

    /** Page row of value {@code i}. */
    int row(int i) {
        return all ? i : HybridRle.get(slots, i);
    }
}
