package dev.parquetlookup.engine.index;

import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table filter over several key indexes: never turns away a file that holds a code (random
 * codes, consecutive keys, files of unequal sizes, a position not covered, questions from an
 * offset), turns away most files that do not, answers only for the index instances it was built
 * from, and codes a key as the indexes do.
 */
class TableFilterTest {

    private static final List<KeyType> BIGINT =
            List.of(KeyType.of(Types.required(PrimitiveTypeName.INT64).named("k")));

    @TempDir Path tmp;

    private KeyIndex index(String name, long[] codes) throws IOException {
        Path file = tmp.resolve(name + ".pli");
        try (CodeSorter sorter = new CodeSorter(1 << 20, tmp)) {
            for (int row = 0; row < codes.length; row++) {
                sorter.add(codes[row], row);
            }
            try (KeyIndexWriter writer =
                    new KeyIndexWriter(file, KeyIndexTest.HEADER, sorter.size())) {
                CodeSorter.emit(List.of(sorter), writer, KeyIndexBuilder.Parallel.SERIAL);
                writer.finish();
            }
        }
        return KeyIndex.open(file, KeyIndexTest.HEADER);
    }

    /**
     * Nine indexes (position 4 left uncovered) over codes scattered so that each file holds a
     * different number: random codes, then consecutive keys, then codes one bit apart.
     */
    private final List<Set<Long>> held = new ArrayList<>();

    private KeyIndex[] scattered() throws IOException {
        Random random = new Random(27);
        int files = 10;
        List<List<Long>> codesOf = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            codesOf.add(new ArrayList<>());
            held.add(new HashSet<>());
        }
        List<Long> all = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {
            all.add(random.nextLong());
        }
        for (long k = 1; k <= 30_000; k++) {
            all.add(k); // BIGINT keys are their own codes
        }
        for (int b = 0; b < 64; b++) {
            all.add(1L << b);
        }
        all.add(Long.MIN_VALUE);
        all.add(Long.MAX_VALUE);
        all.add(0L);
        for (long code : all) {
            // File f takes about (f + 1) shares: unequal sizes; a code may be in two files.
            int f = (int) Math.floorMod(CodeFilter.mix(code) % 55, 55L);
            int file = (int) ((Math.sqrt(8.0 * f + 1) - 1) / 2); // 0,1,1,2,2,2,...
            codesOf.get(file).add(code);
            if (code % 13 == 0) {
                codesOf.get((file + 3) % files).add(code);
            }
        }
        KeyIndex[] indexes = new KeyIndex[files];
        for (int f = 0; f < files; f++) {
            if (f == 4) {
                continue; // not covered
            }
            long[] codes = codesOf.get(f).stream().mapToLong(Long::longValue).toArray();
            indexes[f] = index("part-" + f, codes);
            held.get(f).addAll(codesOf.get(f));
        }
        return indexes;
    }

    @Test
    void neverTurnsAwayAFileThatHoldsTheCode() throws IOException {
        KeyIndex[] indexes = scattered();
        TableFilter filter = TableFilter.build(BIGINT, indexes);
        long covered = 0b11_1110_1111L;
        for (int f = 0; f < indexes.length; f++) {
            for (long code : held.get(f)) {
                long away = filter.absent(code, 0, covered);
                assertThat(away & (1L << f))
                        .as("file %d turned away for code %d", f, code)
                        .isZero();
                // Asked from an offset: bit b is position from + b.
                long fromThree = filter.absent(code, 3, covered >>> 3);
                assertThat(fromThree).isEqualTo(away >>> 3);
            }
        }
    }

    @Test
    void turnsAwayMostFilesThatDoNotHoldTheCode() throws IOException {
        KeyIndex[] indexes = scattered();
        TableFilter filter = TableFilter.build(BIGINT, indexes);
        Random random = new Random(5);
        long asked = 0;
        long passed = 0;
        for (int i = 0; i < 100_000; i++) {
            long code = random.nextLong();
            for (int f = 0; f < indexes.length; f++) {
                if (indexes[f] != null && !held.get(f).contains(code)) {
                    asked++;
                    passed += (filter.absent(code, f, 1) & 1) == 0 ? 1 : 0;
                }
            }
        }
        assertThat((double) passed / asked).as("false positive rate").isLessThan(0.05);
        assertThat(filter.bytes()).as("heap bytes").isLessThan(20L * 30_000 * 2);
    }

    @Test
    void answersOnlyForTheIndexesItWasBuiltFrom() throws IOException {
        KeyIndex a = index("a", new long[] {1, 2, 3});
        KeyIndex b = index("b", new long[] {4, 5});
        TableFilter filter = TableFilter.build(BIGINT, new KeyIndex[] {a, null, b});
        assertThat(filter.covers(0, a)).isTrue();
        assertThat(filter.covers(2, b)).isTrue();
        assertThat(filter.covers(2, a)).as("another position's index").isFalse();
        assertThat(filter.covers(1, a)).as("a position not covered").isFalse();
        assertThat(filter.covers(0, null)).isFalse();
        assertThat(filter.covers(3, a)).as("past the last position").isFalse();
        KeyIndex reopened = KeyIndex.open(tmp.resolve("a.pli"), KeyIndexTest.HEADER);
        assertThat(filter.covers(0, reopened)).as("the same file opened again").isFalse();
        assertThat(filter.code(new Object[] {7L, "second part"}))
                .isEqualTo(KeyCodes.code(BIGINT, new Object[] {7L}));
        assertThat(filter.absent(4, 0, 0b101) & 0b100).isZero();
        List<KeyType> int32 =
                List.of(KeyType.of(Types.required(PrimitiveTypeName.INT32).named("k")));
        List<KeyType> string =
                List.of(KeyType.of(Types.required(PrimitiveTypeName.BINARY).named("k")));
        assertThat(TableFilter.codedAlike(BIGINT, int32)).as("both integers").isTrue();
        assertThat(TableFilter.codedAlike(BIGINT, string)).isFalse();
        assertThat(filter.absent(1, 0, 0b101) & 0b001).isZero();
    }

    @Test
    void tablesOfTheSameIndexesShareOneFilterUntilTheLastLetsItGo() throws IOException {
        KeyIndex a = index("a", new long[] {1, 2, 3});
        KeyIndex b = index("b", new long[] {4, 5});
        int before = TableFilter.sharedCount();
        TableFilter first = TableFilter.shared(BIGINT, new KeyIndex[] {a, b});
        TableFilter second = TableFilter.shared(BIGINT, new KeyIndex[] {a, b});
        TableFilter reversed = TableFilter.shared(BIGINT, new KeyIndex[] {b, a});
        assertThat(second).as("the same indexes at the same positions").isSameAs(first);
        assertThat(reversed).isNotSameAs(first);
        assertThat(reversed.covers(0, b)).isTrue();
        assertThat(TableFilter.sharedCount()).isEqualTo(before + 2);
        first.release();
        assertThat(TableFilter.sharedCount()).as("one holder left").isEqualTo(before + 2);
        second.release();
        reversed.release();
        assertThat(TableFilter.sharedCount()).isEqualTo(before);
        TableFilter again = TableFilter.shared(BIGINT, new KeyIndex[] {a, b});
        assertThat(again).as("built again once every holder let go").isNotSameAs(first);
        again.release();
        again.release(); // a second release of a filter no longer held changes nothing
        assertThat(TableFilter.sharedCount()).isEqualTo(before);
    }
}
