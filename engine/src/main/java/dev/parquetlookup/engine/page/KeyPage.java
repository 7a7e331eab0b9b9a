package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.ScratchBuffers.Scratch;
import dev.parquetlookup.metadata.KeyRanges;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import javax.annotation.Nullable;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.function.BiFunction;

/**
 * Owns the keys of one page of a sort-key column as a lookup searches them: the non-null keys in
 * comparable form ({@link KeyType}) with their row positions, and the binary searches over them.
 * Sorted order of the leading key is checked while the page is read: an unsorted page is an error,
 * never a wrong answer.
 *
 * <p>Which form {@link #read} picks: dictionary-encoded pages are searched over the ranks of their
 * ids ({@link DictionaryKeys}), PLAIN integer and byte-string pages in their bytes ({@link
 * PlainKeys}); the rest (delta encodings, PLAIN decimals stored as binary, v1 bit-packed levels)
 * are decoded value by value here.
 */
public abstract class KeyPage {

    /** Non-null keys on the page (the searchable ones). */
    public abstract int size();

    /** Page row of key {@code i}. */
    public abstract int row(int i);

    /** Key {@code i} in comparable form (for composite keys' later columns). */
    public abstract Object key(int i);

    /** First index whose key is at least ({@code strict}: above) {@code key}. */
    abstract int firstAbove(Object key, boolean strict);

    /** First index whose key is at least {@code key}. */
    public final int lowerBound(Object key) {
        return firstAbove(key, false);
    }

    /** First index whose key is above {@code key}. */
    public final int upperBound(Object key) {
        return firstAbove(key, true);
    }

    /**
     * Heap bytes per value of the searchable keys a cached page keeps of this column: row slots of
     * an optional column, ranks of dictionary ids, offsets of byte strings; keys decoded one by one
     * take a value each.
     */
    public static int keptBytesPerValue(DataPage page, ColumnDescriptor column, KeyType type) {
        if (!NonNullRows.readable(page, column)) {
            return type.kind() == KeyType.Kind.LONG ? 12 : 48;
        }
        int rows = column.getMaxDefinitionLevel() > 0 ? 4 : 0;
        Encoding encoding = page.valueEncoding();
        if (encoding.usesDictionary()) {
            return rows + 4;
        }
        if (encoding == Encoding.PLAIN && PlainKeys.handles(column, type)) {
            boolean binary =
                    column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.BINARY;
            return rows + (binary ? 4 : 0);
        }
        return type.kind() == KeyType.Kind.LONG ? 12 : 48;
    }

    /**
     * These keys with arrays of their own instead of the lookup's scratch arrays, to be kept with a
     * cached page and shared by later lookups (immutable then); {@code this} when nothing is
     * borrowed.
     */
    abstract KeyPage detached();

    /**
     * Reads the keys of a key page. Row positions and dictionary ranks go into the lookup's {@code
     * scratch} arrays; a dictionary-encoded page's dictionary comes from {@code dictionaries},
     * asked for only in the form this page's search needs.
     */
    public static KeyPage read(
            DataPage page,
            ColumnDescriptor column,
            KeyType type,
            Order order,
            Scratch scratch,
            Dictionaries dictionaries)
            throws IOException {
        Encoding encoding = page.valueEncoding();
        if (encoding.usesDictionary() && NonNullRows.readable(page, column)) {
            return DictionaryKeys.read(page, column, dictionaries.keys(), order, scratch);
        }
        if (encoding == Encoding.PLAIN
                && PlainKeys.handles(column, type)
                && NonNullRows.readable(page, column)) {
            return PlainKeys.read(page, column, type, order, scratch);
        }
        return Decoded.read(page, column, type, dictionaries.values(), order);
    }

    /** The dictionary of the chunk a key page belongs to, read when first asked for. */
    public interface Dictionaries {

        /** In comparable form (ranks), for a search over the page's dictionary ids. */
        KeyDictionary keys() throws IOException;

        /** As parquet-java decodes it, or null when the page is not dictionary-encoded. */
        @Nullable
        Dictionary values() throws IOException;
    }

    /**
     * Checks the leading key's order; {@code verified}: the page was checked before (a cached page,
     * see {@link DataPage#keysOrdered()}); {@code error} names the page and the two keys out of
     * order.
     */
    public record Order(
            int keyIndex, boolean verified, BiFunction<Object, Object, RuntimeException> error) {

        public Order(int keyIndex, BiFunction<Object, Object, RuntimeException> error) {
            this(keyIndex, false, error);
        }

        /**
         * Whether keys must be checked ascending: the leading key's, unless verified before (later
         * key columns are sorted only within runs).
         */
        public boolean checked() {
            return keyIndex == 0 && !verified;
        }

        RuntimeException unsorted(Object before, Object after) {
            return error.apply(before, after);
        }
    }

    /** Keys decoded one by one through parquet-java's readers, for the encodings not read above. */
    public static final class Decoded extends KeyPage {
        private final KeyType type;

        /** Page row of each key, or null when every row has one (key i is row i). */
        @Nullable private final int[] rows;

        @Nullable private final long[] longs;
        @Nullable private final Object[] objects;
        private final int size;

        private Decoded(
                KeyType type, int[] rows, @Nullable long[] longs, Object[] objects, int size) {
            this.type = type;
            this.rows = rows;
            this.longs = longs;
            this.objects = objects;
            this.size = size;
        }

        public static Decoded read(
                DataPage page,
                ColumnDescriptor column,
                KeyType type,
                @Nullable Dictionary dictionary,
                Order order)
                throws IOException {
            int n = page.rowsAvailable(); // a prefix when the rows after it are not asked for
            boolean int32 =
                    column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
            PageCursor cursor = new PageCursor(page, column, dictionary);
            int[] rows = new int[n];
            long[] longs = type.kind() == KeyType.Kind.LONG ? new long[n] : null;
            Object[] objects = longs == null ? new Object[n] : null;
            ValuesReader values = cursor.values();
            int size = 0;
            for (int r = 0; r < n; r++) {
                if (cursor.isNextNull()) {
                    continue;
                }
                rows[size] = r;
                if (longs != null) {
                    long v = int32 ? values.readInteger() : values.readLong();
                    if (order.checked() && size > 0 && v < longs[size - 1]) {
                        throw order.unsorted(longs[size - 1], v);
                    }
                    longs[size] = v;
                } else {
                    byte[] bytes = values.readBytes().getBytes();
                    Object v =
                            type.kind() == KeyType.Kind.BIG_INTEGER ? new BigInteger(bytes) : bytes;
                    if (order.checked() && size > 0 && type.compare(objects[size - 1], v) > 0) {
                        throw order.unsorted(objects[size - 1], v);
                    }
                    objects[size] = v;
                }
                size++;
            }
            return new Decoded(type, rows, longs, objects, size);
        }

        @Override
        KeyPage detached() {
            return this; // arrays of its own
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public int row(int i) {
            return rows == null ? i : rows[i];
        }

        @Override
        public Object key(int i) {
            return longs != null ? (Object) longs[i] : objects[i];
        }

        @Override
        int firstAbove(Object key, boolean strict) {
            return longs != null
                    ? KeyRanges.firstAbove(longs, size, (Long) key, strict)
                    : KeyRanges.firstAbove(objects, size, key, strict, type);
        }
    }

    /**
     * Where a key page's values start and which of its leading rows hold one (definition levels
     * read straight from the page bytes by {@link HybridRle}). The row numbers live in int slots
     * {@code [0, count)} of a scratch array of the lookup, followed by {@code extra} slots for the
     * caller (dictionary ranks, value offsets) from slot {@link #base}.
     *
     * <p>Example: an optional column's page {@code [5, null, 7]} read for 3 rows gives {@code count
     * = 2}, rows {@code 0, 2}; a required column's page needs no row slots ({@code all}, base 0).
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
                return new NonNullRows(
                        start, n, true, extra == 0 ? NONE : ctx.scratch(4 * extra), 0);
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
                    throw new IOException(
                            "definition levels of " + levels + " bytes exceed the page");
                }
                from = 4;
                end = 4 + levels;
                start = end;
            }
            int count = HybridRle.nonNullRows(data, from, end, maxDefinition, n, slots);
            return new NonNullRows(start, count, count == n, slots, n);
        }

        /**
         * These rows with a copy of the slots in use (rows, then the caller's {@code count} slots),
         * for keys kept beyond the lookup whose scratch array held them.
         */
        NonNullRows detached() {
            int used = Math.min(slots.length, 4 * (base + count));
            return new NonNullRows(valuesStart, count, all, Arrays.copyOf(slots, used), base);
        }

        /** Page row of value {@code i}. */
        int row(int i) {
            return all ? i : HybridRle.get(slots, i);
        }
    }

    /** Keys held at the non-null rows of a page ({@link NonNullRows}), searched in its bytes. */
    abstract static class RowKeys extends KeyPage {
        final NonNullRows rows;

        RowKeys(NonNullRows rows) {
            this.rows = rows;
        }

        @Override
        public final int size() {
            return rows.count();
        }

        @Override
        public final int row(int i) {
            return rows.row(i);
        }
    }

    /**
     * A PLAIN key page searched in its bytes: INT32/INT64 keys read in place (little-endian),
     * FIXED_LEN_BYTE_ARRAY and BINARY strings compared in place as unsigned bytes (a BINARY page's
     * value offsets are found by one walk over its length prefixes, into the lookup's scratch
     * slots). One pass checks the leading key's order; no key is copied unless {@link #key} asks
     * for it.
     *
     * <p>Example: a required INT64 page of 1,024 keys: a lookup reads about 10 of them; a page of
     * strings {@code ["ab", "b"]} is {@code [2 0 0 0 'a' 'b' 1 0 0 0 'b']}, with value offsets
     * {@code [4, 10]}.
     */
    static final class PlainKeys extends RowKeys {

        /** Width of a fixed-width value; 0 for BINARY (offsets in slots). */
        private final int width;

        private final boolean longs;
        private final byte[] data;
        private final int valuesStart;

        private PlainKeys(
                boolean longs, int width, byte[] data, int valuesStart, NonNullRows rows) {
            super(rows);
            this.longs = longs;
            this.width = width;
            this.data = data;
            this.valuesStart = valuesStart;
        }

        /** Whether keys of this column are read here: integers and byte strings (not decimals). */
        static boolean handles(ColumnDescriptor column, KeyType type) {
            PrimitiveTypeName physical = column.getPrimitiveType().getPrimitiveTypeName();
            return switch (type.kind()) {
                case LONG ->
                        physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
                case BYTES ->
                        physical == PrimitiveTypeName.BINARY
                                || (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                                        && column.getPrimitiveType().getTypeLength() > 0);
                default -> false;
            };
        }

        static PlainKeys read(
                DataPage page,
                ColumnDescriptor column,
                KeyType type,
                KeyPage.Order order,
                Scratch ctx)
                throws IOException {
            PrimitiveType primitive = column.getPrimitiveType();
            int width =
                    switch (primitive.getPrimitiveTypeName()) {
                        case INT32 -> 4;
                        case INT64 -> 8;
                        case FIXED_LEN_BYTE_ARRAY -> primitive.getTypeLength();
                        default -> 0;
                    };
            int extra = width == 0 ? page.rowsAvailable() : 0;
            NonNullRows rows = NonNullRows.read(page, column, extra, ctx);
            int count = rows.count();
            int start = rows.valuesStart();
            if (width > 0) {
                if (start + (long) count * width > page.length()) {
                    throw new IOException(
                            "PLAIN page of "
                                    + page.length()
                                    + " bytes is too short for "
                                    + count
                                    + " keys");
                }
            } else {
                offsets(page.data(), start, page.length(), count, rows.slots(), rows.base());
            }
            PlainKeys keys =
                    new PlainKeys(
                            type.kind() == KeyType.Kind.LONG, width, page.data(), start, rows);
            if (order.checked()) {
                keys.checkOrder(order);
            }
            return keys;
        }

        /** Walks {@code count} length-prefixed values, storing where each one's bytes start. */
        private static void offsets(byte[] data, int p, int end, int count, byte[] slots, int base)
                throws IOException {
            for (int i = 0; i < count; i++) {
                if (p + 4 > end) {
                    throw new IOException("PLAIN value " + i + " runs past the page");
                }
                int length = (int) LittleEndian.INT.get(data, p);
                if (length < 0 || length > end - p - 4) {
                    throw new IOException("PLAIN value " + i + " has length " + length);
                }
                HybridRle.set(slots, base + i, p + 4);
                p += 4 + length;
            }
        }

        private void checkOrder(KeyPage.Order order) {
            int count = rows.count();
            for (int i = 1; i < count; i++) {
                if (longs ? longAt(i - 1) > longAt(i) : compareAt(i - 1, i) > 0) {
                    throw order.unsorted(key(i - 1), key(i));
                }
            }
        }

        private long longAt(int i) {
            int at = valuesStart + i * width;
            return width == 4
                    ? (int) LittleEndian.INT.get(data, at)
                    : (long) LittleEndian.LONG.get(data, at);
        }

        private int from(int i) {
            return width > 0
                    ? valuesStart + i * width
                    : HybridRle.get(rows.slots(), rows.base() + i);
        }

        private int to(int i) {
            return width > 0
                    ? from(i) + width
                    : from(i) + (int) LittleEndian.INT.get(data, from(i) - 4);
        }

        private int compareAt(int i, int j) {
            return Arrays.compareUnsigned(data, from(i), to(i), data, from(j), to(j));
        }

        @Override
        KeyPage detached() {
            return new PlainKeys(longs, width, data, valuesStart, rows.detached());
        }

        @Override
        public Object key(int i) {
            return longs ? (Object) longAt(i) : Arrays.copyOfRange(data, from(i), to(i));
        }

        @Override
        int firstAbove(Object key, boolean strict) {
            int lo = 0;
            int hi = rows.count();
            if (longs) {
                long k = (Long) key;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    long v = longAt(mid);
                    if (v < k || (strict && v == k)) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                return lo;
            }
            byte[] k = (byte[]) key;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                int c = Arrays.compareUnsigned(data, from(mid), to(mid), k, 0, k.length);
                if (c < 0 || (strict && c == 0)) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }
}
