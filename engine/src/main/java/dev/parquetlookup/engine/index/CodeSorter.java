package dev.parquetlookup.engine.index;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Sorts (code, row position) entries in bounded memory: entries are collected in chunks of at most
 * {@code chunk} entries, each chunk is sorted by code (signed order; stable, see {@link #sort}),
 * and when more than one chunk is needed the sorted chunks but the last are spilled to run files in
 * {@code spillDirectory} (written in bulk, read back mapped) and merged with the last one. Several
 * sorters fed consecutive row ranges on threads of their own merge into one index file ({@link
 * #emit}), on several threads too. Positions must be added in ascending order: entries with equal
 * codes then come out in row order. An entry is two adjacent longs, code then position, so that a
 * sort moves it as one. Memory: about 32 bytes per chunk entry. Not thread-safe.
 *
 * <p>Example: adding {@code (7,0), (3,1), (7,2)} emits {@code (3,1), (7,0), (7,2)}.
 */
final class CodeSorter implements Closeable {

    /** Receives the sorted entries. */
    interface Sink {
        /**
         * Receives entries {@code [0, n)} of {@code entries} (entry {@code i}: code at {@code 2i},
         * position at {@code 2i + 1}), in order after the previous ones.
         */
        void accept(long[] entries, int n) throws IOException;
    }

    private final int chunk;
    private final Path spillDirectory;
    private long[] entries;
    private int size;
    private long total;
    private final List<Path> runs = new ArrayList<>();
    private final List<Integer> runSizes = new ArrayList<>();
    private long[] scratch;
    private boolean finished;

    /** Longs per bulk write of a run, and per window of a run read back in the merge. */
    private static final int IO_LONGS = 1 << 13;

    CodeSorter(int chunk, Path spillDirectory) {
        this.chunk = chunk;
        this.spillDirectory = spillDirectory;
        this.entries = new long[2 * Math.min(chunk, 1 << 16)];
    }

    void add(long code, long position) throws IOException {
        if (2 * size == entries.length) {
            if (size == chunk) {
                spill();
            } else {
                entries = Arrays.copyOf(entries, 2 * (int) Math.min(chunk, 2L * size));
            }
        }
        entries[2 * size] = code;
        entries[2 * size + 1] = position;
        size++;
        total++;
    }

    /** Entries added. */
    long size() {
        return total;
    }

    /**
     * Sorts the entries held in memory (the last chunk, never spilled), on the thread that added
     * them, and lets go of the scratch array; no entry may be added after.
     */
    void finish() {
        if (!finished) {
            sort(entries, size, scratch());
            scratch = null;
            finished = true;
        }
    }

    /**
     * Writes the entries of every sorter in {@code sorters} to {@code writer} in code order, those
     * of an earlier sorter first among equal codes: sorters fed consecutive row ranges, in row
     * order, write what one sorter fed every row would. Each sorter should be {@link #finish
     * finished} (sorted) by the thread that fed it; one that is not is finished here. Merged in up
     * to {@code parallel.threads()} ranges of codes of at least {@code parallel.minRowsPerRange()}
     * entries at once: the codes are cut at splitters taken from the largest run at equal steps,
     * each run is cut at the first entry not below each splitter (so that equal codes fall in one
     * range, in their order), and each range of codes is merged by a thread of its own into its
     * place in the file ({@link KeyIndexWriter#part}).
     *
     * <p>Example: runs {@code [1, 4, 6, 9]} and {@code [2, 3, 7, 8]} in two ranges, splitter 6:
     * {@code [1, 4] + [2, 3]} go to entries 0-3, {@code [6, 9] + [7, 8]} to entries 4-7.
     */
    static void emit(
            List<CodeSorter> sorters, KeyIndexWriter writer, KeyIndexBuilder.Parallel parallel)
            throws IOException {
        List<Source> sources = sources(sorters);
        long total = 0;
        Source largest = null;
        for (Source source : sources) {
            total += source.length() / 2;
            if (largest == null || source.length() > largest.length()) {
                largest = source;
            }
        }
        int ways =
                (int) Math.max(1, Math.min(parallel.threads(), total / parallel.minRowsPerRange()));
        if (ways == 1 || sources.size() == 1) {
            KeyIndexWriter.Part part = writer.part(0, total);
            if (sources.size() == 1 && sources.get(0).mapped() == null) {
                part.accept(sources.get(0).array(), sources.get(0).length() / 2); // one chunk
            } else if (!sources.isEmpty()) {
                merge(sources, part, null);
            }
            part.flush();
            return;
        }
        // cuts[w][r]: the first entry of run r in range w (cuts[ways][r]: the run's end).
        int[][] cuts = new int[ways + 1][sources.size()];
        for (int r = 0; r < sources.size(); r++) {
            cuts[ways][r] = sources.get(r).length() / 2;
        }
        int largestEntries = largest.length() / 2;
        for (int w = 1; w < ways; w++) {
            long splitter = largest.code((int) ((long) largestEntries * w / ways));
            for (int r = 0; r < sources.size(); r++) {
                cuts[w][r] = sources.get(r).firstNotBelow(splitter);
            }
        }
        List<BuildTasks.Task> merges = new ArrayList<>(ways);
        long first = 0;
        for (int w = 0; w < ways; w++) {
            List<Source> slices = new ArrayList<>(sources.size());
            long count = 0;
            for (int r = 0; r < sources.size(); r++) {
                int from = cuts[w][r];
                int to = cuts[w + 1][r];
                slices.add(sources.get(r).slice(from, to));
                count += to - from;
            }
            KeyIndexWriter.Part part = writer.part(first, count);
            long n = count;
            merges.add(
                    tasks -> {
                        merge(slices, part, tasks);
                        part.flush();
                        return n;
                    });
            first += count;
        }
        BuildTasks.run(merges, parallel.helpers());
    }

    /** The sorted runs of {@code sorters}, in order: each one's spilled runs, then its chunk. */
    private static List<Source> sources(List<CodeSorter> sorters) throws IOException {
        List<Source> sources = new ArrayList<>();
        for (CodeSorter sorter : sorters) {
            sorter.finish();
            for (int r = 0; r < sorter.runs.size(); r++) {
                sources.add(Source.mapped(sorter.runs.get(r), sorter.runSizes.get(r)));
            }
            if (sorter.size > 0) {
                sources.add(new Source(null, sorter.entries, 0, 2 * sorter.size));
            }
        }
        return sources;
    }

    /**
     * A sorted run the merge reads, its longs {@code [offset, offset + length)}: a spilled one
     * (mapped, read into a window at a time) or a chunk in memory ({@code array}, its own window).
     */
    private record Source(LongBuffer mapped, long[] array, int offset, int length) {
        static Source mapped(Path run, int entries) throws IOException {
            try (FileChannel in = FileChannel.open(run, StandardOpenOption.READ)) {
                LongBuffer longs =
                        in.map(FileChannel.MapMode.READ_ONLY, 0, 16L * entries)
                                .order(ByteOrder.nativeOrder())
                                .asLongBuffer();
                return new Source(longs, null, 0, 2 * entries);
            }
        }

        /** The code of entry {@code i}. */
        long code(int i) {
            int at = offset + 2 * i;
            return mapped != null ? mapped.get(at) : array[at];
        }

        /** The first entry whose code is not below {@code code} (the entries if none). */
        int firstNotBelow(long code) {
            int lo = 0;
            int hi = length / 2;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (code(mid) < code) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** Entries {@code [from, to)}. */
        Source slice(int from, int to) {
            return new Source(mapped, array, offset + 2 * from, 2 * (to - from));
        }
    }

    private void spill() throws IOException {
        sort(entries, size, scratch());
        Path run = Files.createTempFile(spillDirectory, "run-", ".tmp");
        runs.add(run);
        runSizes.add(size);
        try (FileChannel out = FileChannel.open(run, StandardOpenOption.WRITE)) {
            ByteBuffer buffer =
                    ByteBuffer.allocateDirect(IO_LONGS * 8).order(ByteOrder.nativeOrder());
            for (int at = 0; at < 2 * size; at += IO_LONGS) {
                int length = Math.min(IO_LONGS, 2 * size - at);
                buffer.clear();
                buffer.asLongBuffer().put(entries, at, length);
                buffer.limit(length * 8);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            }
        }
        size = 0;
    }

    /** The scratch array of {@link #sort}, kept from chunk to chunk. */
    private long[] scratch() {
        if (scratch == null || scratch.length < 2 * size) {
            scratch = new long[entries.length];
        }
        return scratch;
    }

    /**
     * Merges sorted runs (spilled ones mapped and read in windows, chunks in memory) through a tree
     * of losers: {@code tree[0]} is the run holding the smallest head, {@code tree[node]} the loser
     * of the match at that node (runs are the leaves {@code k + r}), so a new head plays one match
     * per level. Ties go to the earlier run, whose rows come first in the file; an exhausted run
     * loses every match.
     */
    private static void merge(List<Source> sources, Sink sink, BuildTasks tasks)
            throws IOException {
        int k = sources.size();
        LongBuffer[] mapped = new LongBuffer[k];
        long[][] window = new long[k][];
        int[] at = new int[k]; // the head entry's index in its window (in longs)
        int[] end = new int[k]; // the window's end (in longs)
        int[] read = new int[k]; // longs of the run read into windows so far
        int[] length = new int[k]; // the run's length in longs
        int[] offset = new int[k]; // where the run starts in its mapped buffer (in longs)
        for (int r = 0; r < k; r++) {
            Source source = sources.get(r);
            mapped[r] = source.mapped();
            length[r] = source.length();
            offset[r] = source.offset();
            if (mapped[r] == null) {
                // In memory: the whole run is its window.
                window[r] = source.array();
                at[r] = source.offset();
                end[r] = source.offset() + source.length();
                read[r] = length[r];
            } else {
                window[r] = new long[IO_LONGS];
            }
        }
        long[] head = new long[k];
        boolean[] done = new boolean[k];
        for (int r = 0; r < k; r++) {
            if (at[r] == end[r] && !refill(r, mapped, offset, window, at, end, read, length)) {
                done[r] = true;
            } else {
                head[r] = window[r][at[r]];
            }
        }
        int[] tree = new int[k];
        int[] winners = new int[2 * k];
        for (int r = 0; r < k; r++) {
            winners[k + r] = r;
        }
        for (int node = k - 1; node >= 1; node--) {
            int a = winners[2 * node];
            int b = winners[2 * node + 1];
            boolean aWins = beats(a, b, head, done);
            winners[node] = aWins ? a : b;
            tree[node] = aWins ? b : a;
        }
        tree[0] = winners[1];
        long[] batch = new long[IO_LONGS];
        int filled = 0;
        int w = tree[0];
        while (!done[w]) {
            if (filled == IO_LONGS) {
                sink.accept(batch, filled / 2);
                filled = 0;
                if (tasks != null) {
                    tasks.stopped();
                }
            }
            long[] from = window[w];
            int i = at[w];
            batch[filled++] = from[i];
            batch[filled++] = from[i + 1];
            at[w] = i += 2;
            if (i < end[w] || refill(w, mapped, offset, window, at, end, read, length)) {
                head[w] = window[w][at[w]];
            } else {
                done[w] = true;
            }
            for (int node = (w + k) >>> 1; node >= 1; node >>>= 1) {
                int other = tree[node];
                if (beats(other, w, head, done)) {
                    tree[node] = w;
                    w = other;
                }
            }
        }
        sink.accept(batch, filled / 2);
    }

    /** Whether run {@code a}'s head comes before run {@code b}'s. */
    private static boolean beats(int a, int b, long[] head, boolean[] done) {
        if (done[a] || done[b]) {
            return !done[a];
        }
        return head[a] != head[b] ? head[a] < head[b] : a < b;
    }

    /** Reads run {@code r}'s next window; false when the run is exhausted. */
    private static boolean refill(
            int r,
            LongBuffer[] mapped,
            int[] offset,
            long[][] window,
            int[] at,
            int[] end,
            int[] read,
            int[] length) {
        int n = Math.min(window[r].length, length[r] - read[r]);
        if (n == 0) {
            return false;
        }
        mapped[r].get(offset[r] + read[r], window[r], 0, n);
        read[r] += n;
        at[r] = 0;
        end[r] = n;
        return true;
    }

    /**
     * Sorts the first {@code n} entries of {@code entries} by code (signed order) with a scratch
     * array of at least {@code 2n} longs: a stable LSD radix sort of each code's distance to the
     * smallest code, in as few passes of at most 12 bits as that distance's width needs (2 passes
     * for keys spanning 16M values, 6 for 64-bit hashes). An entry moves as one (16 adjacent
     * bytes), one write stream per digit value.
     */
    private static void sort(long[] entries, int n, long[] scratch) {
        if (n < 2) {
            return;
        }
        long min = entries[0];
        long max = entries[0];
        for (int i = 2; i < 2 * n; i += 2) {
            long code = entries[i];
            min = Math.min(min, code);
            max = Math.max(max, code);
        }
        int bits = 64 - Long.numberOfLeadingZeros(max - min); // max - min read unsigned
        if (bits == 0) {
            return;
        }
        int passes = (bits + 11) / 12;
        int digit = (bits + passes - 1) / passes;
        int mask = (1 << digit) - 1;
        int[][] counts = new int[passes][mask + 2];
        int stop = 2 * n;
        for (int i = 0; i < stop; i += 2) {
            long k = entries[i] - min;
            for (int p = 0; p < passes; p++) {
                counts[p][(int) ((k >>> (digit * p)) & mask) + 1]++;
            }
        }
        long[] in = entries;
        long[] out = scratch;
        for (int p = 0; p < passes; p++) {
            int[] count = counts[p];
            for (int v = 1; v < count.length; v++) {
                count[v] += count[v - 1];
            }
            int shift = digit * p;
            for (int i = 0; i < stop; i += 2) {
                long code = in[i];
                int slot = 2 * count[(int) (((code - min) >>> shift) & mask)]++;
                out[slot] = code;
                out[slot + 1] = in[i + 1];
            }
            long[] t = in;
            in = out;
            out = t;
        }
        if (in != entries) {
            System.arraycopy(in, 0, entries, 0, stop);
        }
    }

    @Override
    public void close() throws IOException {
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
        runs.clear();
        runSizes.clear();
    }
}
