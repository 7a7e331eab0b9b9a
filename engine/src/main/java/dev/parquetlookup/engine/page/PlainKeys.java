package dev.parquetlookup.engine.page;

import dev.parquetlookup.engine.codec.ScratchBuffers.Scratch;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A PLAIN key page searched in its bytes: INT32/INT64 keys read in place (little-endian),
 * FIXED_LEN_BYTE_ARRAY and BINARY strings compared in place as unsigned bytes (a BINARY page's
 * value offsets are found by one walk over its length prefixes, into the lookup's scratch slots).
 * One pass checks the leading key's order; no key is copied unless {@link #key} asks for it.
 *
 * <p>Example: a required INT64 page of 1,024 keys: a lookup reads about 10 of them; a page of
 * strings {@code ["ab", "b"]} is {@code [2 0 0 0 'a' 'b' 1 0 0 0 'b']}, with value offsets {@code
 * [4, 10]}.
 */
final class PlainKeys extends KeyPage {

    private static final VarHandle INT_LE =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Width of a fixed-width value; 0 for BINARY (offsets in slots). */
    private final int width;

    private final boolean longs;
    private final byte[] data;
    private final int valuesStart;
    private final NonNullRows rows;

    private PlainKeys(boolean longs, int width, byte[] data, int valuesStart, NonNullRows rows) {
        this.longs = longs;
        this.width = width;
        this.data = data;
        this.valuesStart = valuesStart;
        this.rows = rows;
    }

    /** Whether keys of this column are read here: integers and byte strings (not decimals). */
    static boolean handles(ColumnDescriptor column, KeyType type) {
        PrimitiveTypeName physical = column.getPrimitiveType().getPrimitiveTypeName();
        return switch (type.kind()) {
            case LONG -> physical == PrimitiveTypeName.INT32 || physical == PrimitiveTypeName.INT64;
            case BYTES ->
                    physical == PrimitiveTypeName.BINARY
                            || (physical == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
                                    && column.getPrimitiveType().getTypeLength() > 0);
            default -> false;
        };
    }

    static PlainKeys read(
            DataPage page, ColumnDescriptor column, KeyType type, KeyPage.Order order, Scratch ctx)
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
                new PlainKeys(type.kind() == KeyType.Kind.LONG, width, page.data(), start, rows);
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
            int length = (int) INT_LE.get(data, p);
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
        return width == 4 ? (int) INT_LE.get(data, at) : (long) LONG_LE.get(data, at);
    }

    private int from(int i) {
        return width > 0 ? valuesStart + i * width : HybridRle.get(rows.slots(), rows.base() + i);
    }

    private int to(int i) {
        return width > 0 ? from(i) + width : from(i) + (int) INT_LE.get(data, from(i) - 4);
    }

    private int compareAt(int i, int j) {
        return Arrays.compareUnsigned(data, from(i), to(i), data, from(j), to(j));
    }

    @Override
    KeyPage detached() {
        return new PlainKeys(longs, width, data, valuesStart, rows.detached());
    }

    @Override
    public int size() {
        return rows.count();
    }

    @Override
    public int row(int i) {
        return rows.row(i);
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
