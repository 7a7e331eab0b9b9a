package dev.parquetlookup.engine.page;

import dev.parquetlookup.metadata.KeyType;
import dev.parquetlookup.metadata.PageBoundsDecoder;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.PrimitiveType;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The engine's {@link PageBoundsDecoder}: decompresses a key page and decodes every value (v1 or
 * v2, plain or dictionary encoded, nulls skipped) to find its smallest and largest key, exactly as
 * a writer's ColumnIndex would record them. Used when a file has no page index and its page headers
 * carry no statistics (DuckDB, parquet-java). Stateless and thread-safe.
 *
 * <p>Example: a page holding {@code [3, null, 5, 9]} gives {@code {3L, 9L}}; a page of nulls only
 * gives {@code null}.
 */
public final class KeyPageBounds implements PageBoundsDecoder {

    /** The one instance. */
    public static final KeyPageBounds INSTANCE = new KeyPageBounds();

    private KeyPageBounds() {}

    @Override
    public Object dictionary(
            byte[] page,
            int offset,
            int length,
            ColumnDescriptor column,
            CompressionCodecName codec)
            throws IOException {
        PageDecoder.Header header = PageDecoder.header(page, offset, length);
        return PageDecoder.dictionary(page, header, codec, column);
    }

    /** Required PLAIN INT32/INT64 values, read straight from the page bytes. */
    @Nullable
    private static Object[] plainLongs(DataPage data, ColumnDescriptor column) throws IOException {
        int n = data.valueCount();
        boolean int32 =
                column.getPrimitiveType().getPrimitiveTypeName()
                        == PrimitiveType.PrimitiveTypeName.INT32;
        int width = int32 ? 4 : 8;
        int from = data.valuesOffset();
        if ((long) n * width > data.data().length - from) {
            throw new IOException(
                    n
                            + " values of "
                            + width
                            + " bytes do not fit the page's "
                            + data.data().length);
        }
        ByteBuffer b = ByteBuffer.wrap(data.data()).order(ByteOrder.LITTLE_ENDIAN);
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            long v = int32 ? b.getInt(from + 4 * i) : b.getLong(from + 8 * i);
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return n == 0 ? null : new Object[] {min, max};
    }

    @Override
    @Nullable
    public Object[] bounds(
            byte[] page,
            int offset,
            int length,
            @Nullable Object dictionary,
            ColumnDescriptor column,
            KeyType type,
            CompressionCodecName codec)
            throws IOException {
        PageDecoder.Header header = PageDecoder.header(page, offset, length);
        DataPage data = PageDecoder.dataPage(page, header, codec);
        if (type.kind() == KeyType.Kind.LONG
                && data.valueEncoding() == Encoding.PLAIN
                && column.getMaxDefinitionLevel() == 0) {
            return plainLongs(data, column);
        }
        PageCursor cursor = new PageCursor(data, column, (Dictionary) dictionary);
        ValuesReader values = cursor.values();
        int n = data.valueCount();
        if (type.kind() == KeyType.Kind.LONG) {
            boolean int32 =
                    column.getPrimitiveType().getPrimitiveTypeName()
                            == PrimitiveType.PrimitiveTypeName.INT32;
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            boolean any = false;
            for (int r = 0; r < n; r++) {
                if (cursor.isNextNull()) {
                    continue;
                }
                long v = int32 ? values.readInteger() : values.readLong();
                min = Math.min(min, v);
                max = Math.max(max, v);
                any = true;
            }
            return any ? new Object[] {min, max} : null;
        }
        Object min = null;
        Object max = null;
        for (int r = 0; r < n; r++) {
            if (cursor.isNextNull()) {
                continue;
            }
            byte[] bytes = values.readBytes().getBytes();
            Object v = type.decodeBound(bytes); // a copy: dictionary values share arrays
            if (min == null || type.compare(v, min) < 0) {
                min = v;
            }
            if (max == null || type.compare(v, max) > 0) {
                max = v;
            }
        }
        return min == null ? null : new Object[] {min, max};
    }
}
