package dev.parquetlookup.engine.page;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageTypeParser;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A cached page of PLAIN byte strings keeps where every {@link PlainStarts#EVERY}-th value starts;
 * a cursor skipping to any row, in one skip or two, reads the same value as a walk from the first
 * one, and a page whose lengths run past its end still fails the skip instead of reading garbage.
 */
class PlainStartsTest {

    private static final ColumnDescriptor REQUIRED_STRING =
            MessageTypeParser.parseMessageType("message m { required binary v (STRING); }")
                    .getColumns()
                    .get(0);

    @Test
    void skipsByTheKeptStartsReadTheValuesOfAWalk() throws IOException {
        Random r = new Random(42);
        for (int count : new int[] {1, 7, 8, 9, 100, 256, 1024}) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                values.add("v" + i + "-".repeat(r.nextInt(40)));
            }
            DataPage page = page(plain(values), count);
            page.reserveStarts();
            int unreserved = page(plain(values), count).retainedBytes();
            assertThat(page.retainedBytes())
                    .as("weight with room for the starts")
                    .isEqualTo(unreserved + PlainStarts.bytesFor(count));
            for (int row = 0; row < count; row++) {
                int first = r.nextInt(row + 1);
                PageCursor cursor = new PageCursor(page, REQUIRED_STRING, null);
                cursor.skipRows(first);
                cursor.skipRows(row - first);
                assertThat(cursor.isNextNull()).isFalse();
                assertThat(((Binary) cursor.values().readBytes()).toStringUsingUTF8())
                        .as("row %d of %d after skips of %d and %d", row, count, first, row - first)
                        .isEqualTo(values.get(row));
            }
            assertThat(page.starts() != null)
                    .as("starts built for a page of %d values", count)
                    .isEqualTo(count > PlainStarts.EVERY);
        }
    }

    @Test
    void anUncachedPageKeepsNoStarts() throws IOException {
        List<String> values = List.of("a", "bb", "ccc", "d", "e", "f", "g", "h", "i", "j", "k");
        DataPage page = page(plain(values), values.size());
        PageCursor cursor = new PageCursor(page, REQUIRED_STRING, null);
        cursor.skipRows(10);
        assertThat(cursor.isNextNull()).isFalse();
        assertThat(cursor.values().readBytes().toStringUsingUTF8()).isEqualTo("k");
        assertThat(page.starts()).isNull();
    }

    @Test
    void aLengthPastThePageFailsTheSkip() {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            values.add("value" + i);
        }
        byte[] data = plain(values);
        int at = 0;
        for (int i = 0; i < 12; i++) {
            at += 4 + values.get(i).length();
        }
        data[at + 3] = 0x7f; // value 12's length: about 2 GB
        DataPage page = page(data, values.size());
        page.reserveStarts();
        assertThat(PlainStarts.build(data, 0, data.length, values.size())).isNull();
        assertThatThrownBy(() -> new PageCursor(page, REQUIRED_STRING, null).skipRows(15))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("has length");
        assertThat(page.starts()).isNull();
    }

    /** A whole v1 page of a required column: no levels, the values from byte 0. */
    private static DataPage page(byte[] data, int count) {
        return new DataPage(count, false, Encoding.PLAIN, Encoding.RLE, data, 0, 0, 0);
    }

    private static byte[] plain(List<String> values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String v : values) {
            byte[] b = v.getBytes(StandardCharsets.UTF_8);
            out.write(b.length);
            out.write(b.length >>> 8);
            out.write(b.length >>> 16);
            out.write(b.length >>> 24);
            out.write(b, 0, b.length);
        }
        return out.toByteArray();
    }
}
