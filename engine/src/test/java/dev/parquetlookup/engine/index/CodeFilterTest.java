package dev.parquetlookup.engine.index;

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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The key index's code filter: never turns away a code it holds (random codes, consecutive keys,
 * codes differing only in their high or low 32 bits, the extremes, an overfull filter), turns away
 * most codes it does not hold, and through {@link KeyIndex} finds every row of a file split over
 * several indexes in exactly the index that holds it; an {@link IndexProbe} of all those indexes
 * answers as each index does.
 */
class CodeFilterTest {

    @TempDir Path tmp;

    /** Code sets a filter must hold without a false negative. */
    private static List<long[]> shapes() {
        Random random = new Random(27);
        List<long[]> shapes = new ArrayList<>();
        long[] randomCodes = new long[50_000];
        for (int i = 0; i < randomCodes.length; i++) {
            randomCodes[i] = random.nextLong();
        }
        shapes.add(randomCodes);
        long[] consecutive = new long[50_000];
        for (int i = 0; i < consecutive.length; i++) {
            consecutive[i] = i + 1; // BIGINT keys are their own codes
        }
        shapes.add(consecutive);
        long[] highBits = new long[10_000];
        long[] lowBits = new long[10_000];
        for (int i = 0; i < highBits.length; i++) {
            highBits[i] = (long) i << 32; // same low 32 bits
            lowBits[i] = 0x5555_5555_0000_0000L | i; // same high 32 bits
        }
        shapes.add(highBits);
        shapes.add(lowBits);
        long[] strided = new long[10_000];
        for (int i = 0; i < strided.length; i++) {
            strided[i] = i * 1024L - 5_000_000L; // negative too
        }
        shapes.add(strided);
        shapes.add(new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1});
        return shapes;
    }

    @Test
    void neverTurnsAwayACodeItHolds() {
        for (long[] codes : shapes()) {
            CodeFilter filter = CodeFilter.forCodes(codes.length);
            for (long code : codes) {
                filter.add(code);
            }
            for (long code : codes) {
                assertThat(filter.mayContain(code)).as("code %d", code).isTrue();
            }
        }
    }

    @Test
    void anOverfullFilterStillHoldsEveryCode() {
        CodeFilter filter = CodeFilter.forCodes(1); // one block for 20,000 codes
        Random random = new Random(3);
        long[] codes = new long[20_000];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = random.nextLong();
            filter.add(codes[i]);
        }
        assertThat(filter.bytes()).isEqualTo(32);
        for (long code : codes) {
            assertThat(filter.mayContain(code)).isTrue();
        }
    }

    @Test
    void turnsAwayMostCodesItDoesNotHold() {
        for (long[] codes : shapes()) {
            if (codes.length < 10_000) {
                continue;
            }
            CodeFilter filter = CodeFilter.forCodes(codes.length);
            Set<Long> held = new HashSet<>();
            for (long code : codes) {
                filter.add(code);
                held.add(code);
            }
            // About one byte per code.
            assertThat(filter.bytes()).isBetween((long) codes.length, codes.length + 32L);
            Random random = new Random(5);
            int asked = 0;
            int passed = 0;
            for (int i = 0; i < 200_000; i++) {
                // Absent codes near the held ones (consecutive keys of another file) and random.
                long code =
                        i % 2 == 0
                                ? codes[random.nextInt(codes.length)] + 1 + random.nextInt(3)
                                : random.nextLong();
                if (!held.contains(code)) {
                    asked++;
                    passed += filter.mayContain(code) ? 1 : 0;
                }
            }
            assertThat((double) passed / asked).as("false positive rate").isLessThan(0.05);
        }
    }

    @Test
    void rowsOfAFileSplitOverSeveralIndexesAreFoundInTheirOwnIndexOnly() throws IOException {
        // The rows 1..30,000 scrambled over 10 files, each indexed: every key in exactly one.
        int files = 10;
        int rows = 30_000;
        List<List<Long>> keysOf = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            keysOf.add(new ArrayList<>());
        }
        for (long k = 1; k <= rows; k++) {
            keysOf.get((int) ((k * 7919) % files)).add(k);
        }
        List<KeyIndex> indexes = new ArrayList<>();
        for (int f = 0; f < files; f++) {
            List<Long> keys = keysOf.get(f);
            Path file = tmp.resolve("part-" + f + ".pli");
            try (CodeSorter sorter = new CodeSorter(1 << 20, tmp)) {
                for (int row = 0; row < keys.size(); row++) {
                    sorter.add(keys.get(row), row);
                }
                try (KeyIndexWriter writer =
                        new KeyIndexWriter(file, KeyIndexTest.HEADER, sorter.size())) {
                    CodeSorter.emit(List.of(sorter), writer, KeyIndexBuilder.Parallel.SERIAL);
                    writer.finish();
                }
            }
            indexes.add(KeyIndex.open(file, KeyIndexTest.HEADER));
        }
        IndexProbe probe = new IndexProbe(files);
        long turnedAway = 0;
        for (long k = 0; k <= rows + 1; k++) {
            int holders = 0;
            for (int f = 0; f < files; f++) {
                // Asked in reverse order: an answer's bit is the one it was asked with.
                probe.ask(files - 1 - f, indexes.get(f), k);
            }
            long absent = probe.absent();
            turnedAway += Long.bitCount(absent);
            for (int f = 0; f < files; f++) {
                long[] found = indexes.get(f).rows(k);
                boolean away = (absent & (1L << (files - 1 - f))) != 0;
                assertThat(away)
                        .as("the probe's answer for key %d in file %d", k, f)
                        .isEqualTo(!indexes.get(f).mayContain(k));
                if (found.length > 0) {
                    holders++;
                    assertThat(away).as("the holder of key %d turned away", k).isFalse();
                    assertThat(found).containsExactly((long) keysOf.get(f).indexOf(k));
                }
            }
            assertThat(holders)
                    .as("indexes holding key %d", k)
                    .isEqualTo(k >= 1 && k <= rows ? 1 : 0);
        }
        // Each key is in one of the 10 indexes: the probe turns most of the other nine away.
        assertThat(turnedAway).isGreaterThan((long) (rows * (files - 1) * 0.95));
    }

    @Test
    void aProbeAsksAtMost64Questions() {
        assertThatThrownBy(() -> new IndexProbe(65))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64");
        assertThat(new IndexProbe(0).absent()).isZero();
    }
}
