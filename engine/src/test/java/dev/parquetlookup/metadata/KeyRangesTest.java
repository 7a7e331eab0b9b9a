package dev.parquetlookup.metadata;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyRangesTest {

    private static final KeyType LONGS =
            KeyType.of(Types.required(PrimitiveTypeName.INT64).named("k"));
    private static final KeyType STRINGS =
            KeyType.of(
                    Types.required(PrimitiveTypeName.BINARY)
                            .as(LogicalTypeAnnotation.stringType())
                            .named("s"));

    @Test
    void searchesAsTheJavadocExampleSays() {
        KeyRanges pages = KeyRanges.of(LONGS, List.of(1L, 4L, 12L), List.of(4L, 9L, 20L));
        assertThat(pages.firstWithMaxAtLeast(4L)).isZero();
        assertThat(pages.lastWithMinAtMost(4L)).isEqualTo(1);
        assertThat(pages.firstWithMaxAtLeast(10L)).isEqualTo(2);
        assertThat(pages.lastWithMinAtMost(10L)).isEqualTo(1); // 2 > 1: no page
        assertThat(pages.lastWithMinAtMost(0L)).isEqualTo(-1);
        assertThat(pages.firstWithMaxAtLeast(21L)).isEqualTo(3);
        assertThat(pages.firstUnsorted()).isEqualTo(-1);
    }

    @Test
    void entriesWithoutBoundsAreSkippedButKeepTheirPageNumbers() {
        KeyRanges pages =
                KeyRanges.of(
                        LONGS,
                        Arrays.asList(null, 5L, null, 9L),
                        Arrays.asList(null, 7L, null, 11L));
        assertThat(pages.size()).isEqualTo(2);
        assertThat(pages.entry(pages.firstWithMaxAtLeast(8L))).isEqualTo(3);
    }

    @Test
    void detectsUnsortedBounds() {
        assertThat(KeyRanges.of(LONGS, List.of(1L, 3L), List.of(5L, 9L)).firstUnsorted())
                .isEqualTo(1);
        assertThat(KeyRanges.of(LONGS, List.of(1L, 5L), List.of(5L, 9L)).firstUnsorted())
                .isEqualTo(-1);
    }

    @Test
    void stringsCompareAsUnsignedBytesAndToleratePrefixTruncation() {
        KeyRanges pages =
                KeyRanges.of(
                        STRINGS,
                        List.of(bytes("apple"), bytes("cherry"), bytes("é")),
                        List.of(bytes("banana"), bytes("date"), bytes("éz")));
        assertThat(pages.firstWithMaxAtLeast(bytes("zebra"))).isEqualTo(2); // 'é' > 'z' unsigned
        // Truncated maxima may exceed the next page's minimum: not an ordering error for strings.
        KeyRanges truncated =
                KeyRanges.of(
                        STRINGS,
                        List.of(bytes("aa"), bytes("ab")),
                        List.of(bytes("ac"), bytes("ad")));
        assertThat(truncated.firstUnsorted()).isEqualTo(-1);
        KeyRanges unsorted =
                KeyRanges.of(
                        STRINGS, List.of(bytes("b"), bytes("a")), List.of(bytes("c"), bytes("d")));
        assertThat(unsorted.firstUnsorted()).isEqualTo(1);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
