package dev.parquetlookup.engine.index;

/**
 * A split-block Bloom filter of a key index's codes, kept in the heap beside its directory: answers
 * "the index may hold this code" or "it does not" by reading one 32-byte block (within one cache
 * line), never a wrong "does not". A table of unsorted files asks every file's index for every key
 * and finds it in at most one of them; this filter turns the others' searches (a directory slot and
 * a few codes of the mapped file, each a likely cache and TLB miss) into one block read.
 *
 * <p>Each code is mixed ({@link #mix}), its upper 32 bits choose a block of eight 32-bit words and
 * its lower 32 bits one bit in each word (eight salts, as in Parquet's split-block filters). About
 * {@link #BITS_PER_CODE} bits per code, so about one byte of heap per indexed row (at most {@link
 * #MAX_BLOCKS} blocks: a larger index gets more false positives, never a false negative): a false
 * positive rate of about 2-3%, each costing the search the filter saves. Built from the index's
 * codes when the index is opened (from a checked file), so it holds exactly what the file holds.
 * Immutable once built and thread-safe.
 */
final class CodeFilter {

    /** Bits per code aimed at. */
    static final int BITS_PER_CODE = 8;

    /** Blocks at most: 32 MiB of heap per index. */
    static final int MAX_BLOCKS = 1 << 20;

    private static final int[] SALT = {
        0x47b6137b,
        0x44974d91,
        0x8824ad5b,
        0xa2b7289d,
        0x705495c7,
        0x2df1424b,
        0x9efc4947,
        0x5c6bfb31
    };

    /** Eight words per block. */
    private final int[] words;

    private final long blocks;

    private CodeFilter(int blocks) {
        this.blocks = blocks;
        this.words = new int[blocks * 8];
    }

    /** An empty filter sized for {@code codes} codes. */
    static CodeFilter forCodes(long codes) {
        long wanted = (codes * BITS_PER_CODE + 255) / 256;
        return new CodeFilter((int) Math.max(1, Math.min(MAX_BLOCKS, wanted)));
    }

    /** Adds {@code code}. Not thread-safe: only while the filter is being built. */
    void add(long code) {
        long h = mix(code);
        int base = block(h);
        int key = (int) h;
        for (int i = 0; i < 8; i++) {
            words[base + i] |= 1 << ((key * SALT[i]) >>> 27);
        }
    }

    /** False only if {@code code} was never added. */
    boolean mayContain(long code) {
        return mayContain(code, base(code));
    }

    /** The first word of {@code code}'s block: where a probe of it reads (one cache line). */
    int base(long code) {
        return block(mix(code));
    }

    /** The word at {@code at}: read to start a block's load ({@link IndexProbe}). */
    int word(int at) {
        return words[at];
    }

    /** {@link #mayContain(long)} with {@code code}'s block base already known. */
    boolean mayContain(long code, int base) {
        int key = (int) mix(code);
        int missing = 0;
        for (int i = 0; i < 8; i++) {
            missing |= ~words[base + i] & (1 << ((key * SALT[i]) >>> 27));
        }
        return missing == 0;
    }

    /** Heap bytes of the filter's bits. */
    long bytes() {
        return words.length * 4L;
    }

    private int block(long h) {
        return (int) (((h >>> 32) * blocks) >>> 32) * 8;
    }

    /**
     * MurmurHash3's 64-bit finalizer: codes are often consecutive integers (BIGINT keys are their
     * own code), which must spread over all blocks and bits.
     */
    static long mix(long code) {
        long h = code;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
