package dev.parquetlookup.flink.lookup;

import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class KeyRangePartitionerTest {

    private static final KeyNormalizer ID =
            new KeyNormalizer(List.of("id"), List.of(new BigIntType()), List.of("id"));

    @Test
    void routesByRankAmongTheSamples() {
        KeyRangePartitioner p = new KeyRangePartitioner(ID, List.of(key(10L), key(20L), key(30L)));
        assertThat(p.partition(GenericRowData.of(5L), 2)).isEqualTo(0);
        assertThat(p.partition(GenericRowData.of(10L), 2)).isEqualTo(0);
        assertThat(p.partition(GenericRowData.of(25L), 2)).isEqualTo(1);
        assertThat(p.partition(GenericRowData.of(99L), 2)).isEqualTo(1);
        assertThat(p.partition(GenericRowData.of((Object) null), 2)).isEqualTo(0);
        assertThat(p.isDeterministic()).isTrue();
    }

    @Test
    void evenSamplesGiveEvenRangesForAnyParallelism() throws Exception {
        KeySampler sampler = new KeySampler(1024);
        for (long k = 0; k < 100_000; k++) {
            sampler.offer(KeyOrder.sortable(new Object[] {k}));
        }
        KeyRangePartitioner p =
                InstantiationUtil.clone(new KeyRangePartitioner(ID, sampler.samples()));
        for (int n : new int[] {1, 3, 4, 7}) {
            int[] counts = new int[n];
            int previous = 0;
            for (long k = 0; k < 100_000; k++) {
                int partition = p.partition(GenericRowData.of(k), n);
                assertThat(partition).isBetween(previous, n - 1); // monotone: ranges
                previous = partition;
                counts[partition]++;
            }
            for (int c : counts) {
                assertThat(c).isBetween(100_000 / n - 1_000, 100_000 / n + 1_000);
            }
        }
    }

    @Test
    void compositeKeysCompareLexicographicallyInSortOrder() {
        // Table (name, g) sorted by (g, name): key rows come as (name, g).
        KeyNormalizer normalizer =
                new KeyNormalizer(
                        List.of("name", "g"),
                        List.of(new VarCharType(10), new IntType()),
                        List.of("g", "name"));
        KeyRangePartitioner p =
                new KeyRangePartitioner(
                        normalizer,
                        List.of(
                                new Object[] {1L, bytes("m")},
                                new Object[] {2L, bytes("a")},
                                new Object[] {2L, bytes("z")}));
        assertThat(p.rank(new Object[] {1L, bytes("a")})).isEqualTo(0);
        assertThat(p.rank(new Object[] {1L, bytes("n")})).isEqualTo(1);
        assertThat(p.rank(new Object[] {2L, bytes("b")})).isEqualTo(2);
        assertThat(p.partition(GenericRowData.of(StringData.fromString("zz"), 3), 4)).isEqualTo(3);
    }

    @Test
    void samplerKeepsEvenlySpreadKeysInBoundedMemory() {
        KeySampler sampler = new KeySampler(100);
        for (long k = 0; k < 10_000; k++) {
            sampler.offer(new Object[] {k});
        }
        List<Object[]> samples = sampler.samples();
        assertThat(sampler.count()).isEqualTo(10_000);
        assertThat(samples).hasSize(100);
        List<Long> values = new ArrayList<>();
        for (Object[] s : samples) {
            values.add((Long) s[0]);
        }
        assertThat(values).isSorted();
        assertThat(values.get(0)).isZero();
        for (int i = 1; i < values.size(); i++) {
            assertThat(values.get(i) - values.get(i - 1)).isBetween(64L, 192L);
        }
        assertThat(values.get(values.size() - 1)).isGreaterThan(9_700L);
    }

    @Test
    void fewKeysAreAllKept() {
        KeySampler sampler = new KeySampler(10);
        sampler.offer(new Object[] {1L});
        sampler.offer(new Object[] {2L});
        assertThat(sampler.samples()).hasSize(2);
    }

    @Test
    void keyOrderMatchesTheFilesOrder() {
        assertThat(KeyOrder.compare(new Object[] {bytes("é")}, new Object[] {bytes("z")}))
                .isPositive(); // UTF-8 bytes compare unsigned, i.e. by code point
        assertThat(KeyOrder.compare(new Object[] {-1L}, new Object[] {1L})).isNegative();
        assertThat(KeyOrder.compare(new Object[] {1L}, new Object[] {1L, bytes("a")})).isNegative();
        assertThat(
                        KeyOrder.compare(
                                KeyOrder.sortable(
                                        new Object[] {
                                            new dev.parquetlookup.types.TimestampValue(5, 1)
                                        }),
                                KeyOrder.sortable(
                                        new Object[] {
                                            new dev.parquetlookup.types.TimestampValue(5, 2)
                                        })))
                .isNegative();
        assertThat(
                        KeyOrder.compare(
                                KeyOrder.sortable(new Object[] {new java.math.BigDecimal("1.10")}),
                                KeyOrder.sortable(new Object[] {new java.math.BigDecimal("1.1")})))
                .isZero();
    }

    private static Object[] key(long v) {
        return new Object[] {v};
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
