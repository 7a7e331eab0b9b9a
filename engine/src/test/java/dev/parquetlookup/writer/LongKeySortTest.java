package dev.parquetlookup.writer;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LongKeySort} orders rows exactly like a stable comparison sort by the key. */
class LongKeySortTest {

    /** Nulls first, then by value; ties keep input order (Arrays.sort is stable). */
    private static final Comparator<Object[]> BY_KEY =
            Comparator.comparing(
                    (Object[] r) -> (Number) r[1],
                    Comparator.nullsFirst(Comparator.comparingLong(Number::longValue)));

    @Test
    void matchesAStableComparisonSort() {
        for (long seed = 1; seed <= 30; seed++) {
            Random r = new Random(seed);
            int n = r.nextInt(3000);
            int spread = seed % 3 == 0 ? 5 : Integer.MAX_VALUE;
            Object[][] rows = new Object[n][];
            for (int i = 0; i < n; i++) {
                Object key;
                int pick = r.nextInt(20);
                if (pick == 0) {
                    key = null;
                } else if (pick < 4) {
                    key = r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                } else if (seed % 2 == 0) {
                    key = r.nextInt(spread) - spread / 2;
                } else {
                    key = r.nextLong() % (seed % 5 == 0 ? 3 : Long.MAX_VALUE);
                }
                rows[i] = new Object[] {i, key};
            }
            Object[][] expected = rows.clone();
            Arrays.sort(expected, BY_KEY);
            assertThat(LongKeySort.sort(rows, 1)).isTrue();
            assertThat(Arrays.asList(rows))
                    .as("seed %d", seed)
                    .containsExactlyElementsOf(Arrays.asList(expected));
        }
    }

    @Test
    void refusesOtherKeyTypesLeavingRowsAsTheyWere() {
        Object[][] rows = {{0, 5L}, {1, "x"}, {2, 1L}};
        Object[][] before = rows.clone();
        assertThat(LongKeySort.sort(rows, 1)).isFalse();
        assertThat(Arrays.asList(rows)).containsExactlyElementsOf(Arrays.asList(before));
    }
}
