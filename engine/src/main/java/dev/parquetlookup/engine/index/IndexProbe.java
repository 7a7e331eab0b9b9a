package dev.parquetlookup.engine.index;

/**
 * Asks several key indexes at once whether each may hold a code, so that their filters' block reads
 * overlap. A table of unsorted files asks every file's index for every key (each file spans the key
 * range) and finds the key in at most one; each filter block is a likely cache miss, and asked one
 * file after another, each test's branch waits for its block before the next read starts. Here the
 * blocks' addresses are computed first, then read in a loop nothing in it depends on (the reads are
 * in flight together), then tested on lines already in the cache. (Reading each index's directory
 * slot in the same loop, for the search of the index that answers "maybe", moved that read's cost
 * into this loop rather than hiding it: not done.)
 *
 * <p>One per lookup, on one thread; at most 64 questions.
 */
public final class IndexProbe {

    private final KeyIndex[] indexes;
    private final long[] codes;
    private final int[] bits;
    private final int[] bases;
    private int size;

    /** Keeps the block reads: a value nothing else uses could be dropped by the compiler. */
    @SuppressWarnings("unused")
    private int touched;

    /** A probe of at most {@code capacity} (at most 64) questions. */
    public IndexProbe(int capacity) {
        if (capacity < 0 || capacity > 64) {
            throw new IllegalArgumentException("0 to 64 questions, not " + capacity);
        }
        indexes = new KeyIndex[capacity];
        codes = new long[capacity];
        bits = new int[capacity];
        bases = new int[capacity];
    }

    /** Adds the question "may {@code index} hold {@code code}?", answered as bit {@code bit}. */
    public void ask(int bit, KeyIndex index, long code) {
        indexes[size] = index;
        codes[size] = code;
        bits[size] = bit;
        size++;
    }

    /**
     * The bits of the questions answered "no": an index whose codes' range or filter turns its code
     * away (never a wrong "no"). Forgets the questions.
     */
    public long absent() {
        int n = size;
        size = 0;
        for (int i = 0; i < n; i++) {
            bases[i] = indexes[i].inRange(codes[i]) ? indexes[i].filter().base(codes[i]) : -1;
        }
        int sum = 0;
        for (int i = 0; i < n; i++) {
            if (bases[i] >= 0) {
                sum += indexes[i].filter().word(bases[i]);
            }
        }
        touched = sum;
        long away = 0;
        for (int i = 0; i < n; i++) {
            if (bases[i] < 0 || !indexes[i].filter().mayContain(codes[i], bases[i])) {
                away |= 1L << bits[i];
            }
            indexes[i] = null;
        }
        return away;
    }
}
