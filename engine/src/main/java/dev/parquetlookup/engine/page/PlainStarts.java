package dev.parquetlookup.engine.page;

import javax.annotation.Nullable;

/**
 * Where every {@link #EVERY}-th PLAIN byte string of a cached page starts, so a lookup reaches its
 * row with at most {@code EVERY - 1} length reads instead of walking the page from its first value.
 * Built once, by the first lookup that skips on the page, and kept with the page, whose cache
 * weight reserves room for it ({@link DataPage#reserveStarts()}).
 *
 * <p>Example: a page of 1,024 strings keeps 128 starts; a skip to value 1,000 jumps to the start of
 * value 1,000 (block 125) and reads no length; a skip to value 1,003 then reads 3.
 */
final class PlainStarts {

    /** Values per kept start. */
    static final int EVERY = 8;

    private final int[] starts;
    private final int blocks;

    private PlainStarts(int[] starts, int blocks) {
        this.starts = starts;
        this.blocks = blocks;
    }

    /** Heap bytes the starts of a page of {@code values} values take at most. */
    static int bytesFor(int values) {
        return 32 + 4 * ((values + EVERY - 1) / EVERY);
    }

    /**
     * Walks the byte strings of {@code data[from, end)}, at most {@code maxValues}; null when a
     * length is negative or runs past {@code end} (the cursor's own walk then reports where).
     */
    @Nullable
    static PlainStarts build(byte[] data, int from, int end, int maxValues) {
        int[] starts = new int[(maxValues + EVERY - 1) / EVERY];
        int p = from;
        int i = 0;
        while (i < maxValues && p < end) {
            if (p + 4 > end) {
                return null;
            }
            int length = (int) LittleEndian.INT.get(data, p);
            if (length < 0 || length > end - p - 4) {
                return null;
            }
            if (i % EVERY == 0) {
                starts[i / EVERY] = p;
            }
            p += 4 + length;
            i++;
        }
        return new PlainStarts(starts, (i + EVERY - 1) / EVERY);
    }

    /** The last kept block at or before value {@code index}, or -1 when none was kept. */
    int blockAtOrBefore(int index) {
        return Math.min(index / EVERY, blocks - 1);
    }

    /** Where value {@code block * EVERY} starts. */
    int start(int block) {
        return starts[block];
    }
}
