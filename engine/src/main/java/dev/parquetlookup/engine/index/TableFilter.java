package dev.parquetlookup.engine.index;

import dev.parquetlookup.io.DaemonThreads;
import dev.parquetlookup.metadata.KeyType;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * One filter of the codes of a table's key indexes, by file: answers "which of these files may hold
 * this code" by reading one bucket (a word per file, side by side), where asking each file's {@link
 * CodeFilter} reads a block per file. A table of unsorted files asks every file for every key and
 * finds the key in at most one; with ten files the ten blocks cost more than the search of the file
 * that holds the key (issue 27's profile). Never a wrong "does not hold": a file it turns away
 * holds no row with that code.
 *
 * <p>A bucket has one 64-bit word per file position ({@code words[bucket * width + position]}); a
 * code sets {@link #HASH_BITS} bits of its bucket's word for its file. The hash is not the one
 * {@link CodeFilter} uses, so a code this filter lets through by mistake is mostly turned away by
 * the file's own filter before its search. About {@link #BITS_PER_CODE} bits per code of the
 * largest file (about one byte of heap per row when the files are alike), at most {@link
 * #MAX_WORDS} words: a larger table gets more false positives, never a false negative.
 *
 * <p>Built from indexes that are open and checked, once every file's index is ready ({@code
 * DimensionTable}); it answers only for the exact {@link KeyIndex} instances it was built from
 * ({@link #covers}), so a file whose index was replaced meanwhile is asked through its own filter.
 * Immutable and thread-safe.
 *
 * <p>Example: built over indexes {@code [a, b]} where {@code a} holds code 7 and {@code b} does
 * not, {@code absent(7, 0, 0b11)} is {@code 0b10} (or {@code 0b00} on a false positive).
 */
public final class TableFilter {

    /** Bits per code of the largest file aimed at. */
    static final int BITS_PER_CODE = 8;

    /** Bits a code sets in its file's word. */
    static final int HASH_BITS = 4;

    /** Words at most: 64 MiB of heap per table. */
    static final long MAX_WORDS = 1L << 23;

    /** Codes whose words are read together while building. */
    private static final int BATCH = 64;

    /** Keeps this filter's hash apart from {@link CodeFilter}'s (both start from the code). */
    private static final long SEED = 0x5bd1e9955bd1e995L;

    /** Builds the filters of tables whose indexes are all ready, off the lookups' threads. */
    public static final Executor BUILDER = builder();

    /**
     * The filters tables hold, by what they were built from: the tables of one file set opened in
     * several slots of a TaskManager (one per subtask) share one filter. Guarded by itself.
     */
    private static final Map<Shape, Shared> SHARED = new HashMap<>();

    /** What a filter is built from: the kinds of its key types and its indexes (by identity). */
    private record Shape(List<KeyType.Kind> kinds, List<KeyIndex> indexes) {}

    private static final class Shared {
        final TableFilter filter;
        int holders = 1;

        Shared(TableFilter filter) {
            this.filter = filter;
        }
    }

    private final Shape shape;
    private final List<KeyType> types;
    private final long[] words;
    private final int width;
    private final long buckets;

    /** Keeps the build's word reads: a value nothing else uses could be dropped by the compiler. */
    @SuppressWarnings("unused")
    private long touched;

    private TableFilter(Shape shape, List<KeyType> types, long buckets) {
        this.shape = shape;
        this.types = List.copyOf(types);
        this.width = shape.indexes().size();
        this.buckets = buckets;
        this.words = new long[(int) (buckets * width)];
    }

    /**
     * The filter of the codes of {@code indexes} by position (a null position is not covered), the
     * codes of keys of the types {@code types} ({@link KeyCodes#code}). Reads every code of every
     * index once: about 10-20 ns per row.
     */
    static TableFilter build(List<KeyType> types, KeyIndex[] indexes) {
        long largest = 0;
        for (KeyIndex index : indexes) {
            largest = Math.max(largest, index == null ? 0 : index.entries());
        }
        int width = Math.max(1, indexes.length);
        long wanted = Math.max(1, (largest * BITS_PER_CODE + 63) / 64);
        long buckets = Math.max(1, Math.min(wanted, MAX_WORDS / width));
        TableFilter filter = new TableFilter(shape(types, indexes), types, buckets);
        int[] at = new int[BATCH];
        long[] masks = new long[BATCH];
        for (int position = 0; position < indexes.length; position++) {
            KeyIndex index = indexes[position];
            int n = index == null ? 0 : (int) index.entries();
            for (int from = 0; from < n; from += BATCH) {
                filter.add(index, position, from, Math.min(BATCH, n - from), at, masks);
            }
        }
        return filter;
    }

    /**
     * Whether keys of the types {@code a} and of the types {@code b} have the same codes ({@link
     * KeyCodes#code} depends on the types' kinds and the comparable values only).
     */
    public static boolean codedAlike(List<KeyType> a, List<KeyType> b) {
        return kinds(a).equals(kinds(b));
    }

    /**
     * The filter of {@code indexes} as {@link #build} makes it, shared with every other holder of
     * one built from the same indexes: built only when none is held. Call {@link #release} when
     * done. Run on {@link #BUILDER} (one thread: no two builds of one filter).
     */
    public static TableFilter shared(List<KeyType> types, KeyIndex[] indexes) {
        Shape shape = shape(types, indexes);
        synchronized (SHARED) {
            Shared held = SHARED.get(shape);
            if (held != null) {
                held.holders++;
                return held.filter;
            }
        }
        TableFilter built = build(types, indexes); // outside the lock: a release does not wait
        synchronized (SHARED) {
            Shared held = SHARED.get(shape);
            if (held != null) {
                held.holders++;
                return held.filter;
            }
            SHARED.put(shape, new Shared(built));
            return built;
        }
    }

    /**
     * Ends one holder's use of a {@link #shared} filter: the last one lets it (and its indexes) go.
     */
    public void release() {
        synchronized (SHARED) {
            Shared held = SHARED.get(shape);
            if (held != null && held.filter == this && --held.holders == 0) {
                SHARED.remove(shape);
            }
        }
    }

    /** Filters held through {@link #shared} (for tests). */
    static int sharedCount() {
        synchronized (SHARED) {
            return SHARED.size();
        }
    }

    private static Shape shape(List<KeyType> types, KeyIndex[] indexes) {
        return new Shape(kinds(types), Arrays.asList(indexes.clone()));
    }

    private static List<KeyType.Kind> kinds(List<KeyType> types) {
        List<KeyType.Kind> kinds = new ArrayList<>(types.size());
        for (KeyType type : types) {
            kinds.add(type.kind());
        }
        return kinds;
    }

    /**
     * Adds the codes of entries {@code from} to {@code from + count} of {@code index} at {@code
     * position}: their words' places first, then the words read in a loop nothing in it depends on
     * (each word is a likely cache miss: read together, the misses overlap), then the bits set on
     * lines in the cache. One word after another took about 57 ns per code at 10M codes.
     */
    private void add(KeyIndex index, int position, int from, int count, int[] at, long[] masks) {
        for (int j = 0; j < count; j++) {
            long h = CodeFilter.mix(index.code(from + j) ^ SEED);
            at[j] = bucket(h) + position;
            masks[j] = mask(h);
        }
        long sum = 0;
        for (int j = 0; j < count; j++) {
            sum += words[at[j]];
        }
        touched = sum;
        for (int j = 0; j < count; j++) {
            words[at[j]] |= masks[j];
        }
    }

    /** Whether the filter answers for {@code index} at {@code position} (built from it). */
    public boolean covers(int position, KeyIndex index) {
        return index != null && position < width && shape.indexes().get(position) == index;
    }

    /** The code of a key whose first parts are {@code comparable}, as the indexes hold it. */
    public long code(Object[] comparable) {
        return KeyCodes.code(types, comparable);
    }

    /**
     * Of the positions {@code from + b} for each bit {@code b} of {@code asked} (each covered), the
     * bits of those whose index does not hold {@code code}: one bucket read.
     */
    public long absent(long code, int from, long asked) {
        long h = CodeFilter.mix(code ^ SEED);
        int base = bucket(h) + from;
        long mask = mask(h);
        long away = 0;
        for (long left = asked; left != 0; left &= left - 1) {
            int bit = Long.numberOfTrailingZeros(left);
            if ((words[base + bit] & mask) != mask) {
                away |= 1L << bit;
            }
        }
        return away;
    }

    /** Heap bytes of the filter's words. */
    public long bytes() {
        return words.length * 8L;
    }

    /** The first word of the bucket of hash {@code h}. */
    private int bucket(long h) {
        return (int) (((h >>> 32) * buckets) >>> 32) * width;
    }

    /** The {@link #HASH_BITS} bits of hash {@code h} in its file's word. */
    private static long mask(long h) {
        long mask = 0;
        for (int i = 0; i < HASH_BITS; i++) {
            mask |= 1L << (h >>> (6 * i));
        }
        return mask;
    }

    private static Executor builder() {
        return DaemonThreads.idleEndingPool(
                1, DaemonThreads.jvmWide("parquet-lookup-table-filter"));
    }
}
