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
import java.util.List;

/**
 * Sorts (code, row position) entries in bounded memory: entries are collected in chunks of at most
 * {@code chunk} entries, each chunk is sorted by a stable radix sort on the code (signed order),
 * and when more than one chunk is needed the sorted chunks but the last are spilled to run files in
 * {@code spillDirectory} (written in bulk, read back mapped) and merged with the last one.
 * Positions must be added in ascending order: entries with equal codes then come out in row order.
 * Memory: about 32 bytes per chunk entry. Not thread-safe.
 *
 * <p>Example: adding {@code (7,0), (3,1), (7,2)} emits {@code (3,1), (7,0), (7,2)}.
 */
final class CodeSorter implements Closeable {

    /** Receives the sorted entries. */
    interface Sink {
        /** Receives entries {@code [0, n)} of the two arrays, in order after the previous ones. */
        void accept(long[] codes, long[] positions, int n) throws IOException;
    }

    private final int chunk;
    private final Path spillDirectory;
    private long[] codes;
    private long[] positions;
    private int size;
    private long total;
    private final List<Path> runs = new ArrayList<>();
    private final List<Integer> runSizes = new ArrayList<>();
    private long[] scratchCodes;
    private long[] scratchPositions;

    /** Longs per bulk write of a run. */
    private static final int IO_LONGS = 1 << 13;

    CodeSorter(int chunk, Path spillDirectory) {
        this.chunk = chunk;
        this.spillDirectory = spillDirectory;
        this.codes = new long[Math.min(chunk, 1 << 16)];
        this.positions = new long[codes.length];
    }

    void add(long code, long position) throws IOException {
        if (size == codes.length) {
            if (size == chunk) {
                spill();
            } else {
                int grown = (int) Math.min(chunk, 2L * size);
                codes = java.util.Arrays.copyOf(codes, grown);
                positions = java.util.Arrays.copyOf(positions, grown);
            }
        }
        codes[size] = code;
        positions[size++] = position;
        total++;
    }

    /** Entries added. */
    long size() {
        return total;
    }

    /** Emits every entry in code order (rows in order within a code). */
    void emit(Sink sink) throws IOException {
        sort(codes, positions, size, scratch());
        if (runs.isEmpty()) {
            sink.accept(codes, positions, size);
            return;
        }
        merge(sink);
    }

    private void spill() throws IOException {
        sort(codes, positions, size, scratch());
        Path run = Files.createTempFile(spillDirectory, "run-", ".tmp");
        runs.add(run);
        runSizes.add(size);
        try (FileChannel out = FileChannel.open(run, StandardOpenOption.WRITE)) {
            ByteBuffer buffer =
                    ByteBuffer.allocateDirect(IO_LONGS * 8).order(ByteOrder.nativeOrder());
            write(out, buffer, codes, size);
            write(out, buffer, positions, size);
        }
        size = 0;
    }

    /** Writes {@code values[0, n)} in native order through {@code buffer}, in bulk. */
    private static void write(FileChannel out, ByteBuffer buffer, long[] values, int n)
            throws IOException {
        for (int at = 0; at < n; at += IO_LONGS) {
            int length = Math.min(IO_LONGS, n - at);
            buffer.clear();
            buffer.asLongBuffer().put(values, at, length);
            buffer.limit(length * 8);
            while (buffer.hasRemaining()) {
                out.write(buffer);
            }
        }
    }

    /** The scratch arrays of {@link #sort}, kept from chunk to chunk. */
    private long[][] scratch() {
        if (scratchCodes == null || scratchCodes.length < size) {
            scratchCodes = new long[codes.length];
            scratchPositions = new long[codes.length];
        }
        return new long[][] {scratchCodes, scratchPositions};
    }

    /**
     * Merges the spilled runs (mapped) and the last chunk (in memory, not spilled): a binary heap
     * of run numbers ordered by (head code, run), so equal codes come from the earlier run first,
     * whose rows come first in the file.
     */
    private void merge(Sink sink) throws IOException {
        int k = runs.size() + 1;
        LongBuffer[] runCodes = new LongBuffer[k];
        LongBuffer[] runPositions = new LongBuffer[k];
        int[] lengths = new int[k];
        for (int r = 0; r < runs.size(); r++) {
            int n = runSizes.get(r);
            try (FileChannel in = FileChannel.open(runs.get(r), StandardOpenOption.READ)) {
                ByteBuffer mapped =
                        in.map(FileChannel.MapMode.READ_ONLY, 0, 16L * n)
                                .order(ByteOrder.nativeOrder());
                runCodes[r] = mapped.slice(0, 8 * n).order(ByteOrder.nativeOrder()).asLongBuffer();
                runPositions[r] =
                        mapped.slice(8 * n, 8 * n).order(ByteOrder.nativeOrder()).asLongBuffer();
            }
            lengths[r] = n;
        }
        runCodes[k - 1] = LongBuffer.wrap(codes, 0, size);
        runPositions[k - 1] = LongBuffer.wrap(positions, 0, size);
        lengths[k - 1] = size;
        int[] at = new int[k];
        long[] head = new long[k];
        int[] heap = new int[k];
        int live = 0;
        for (int r = 0; r < k; r++) {
            if (lengths[r] > 0) {
                head[r] = runCodes[r].get(0);
                heap[live] = r;
                siftUp(heap, live++, head);
            }
        }
        long[] batchCodes = new long[IO_LONGS];
        long[] batchPositions = new long[IO_LONGS];
        int batch = 0;
        while (live > 0) {
            int r = heap[0];
            if (batch == IO_LONGS) {
                sink.accept(batchCodes, batchPositions, batch);
                batch = 0;
            }
            batchCodes[batch] = head[r];
            batchPositions[batch++] = runPositions[r].get(at[r]);
            if (++at[r] < lengths[r]) {
                head[r] = runCodes[r].get(at[r]);
            } else {
                heap[0] = heap[--live];
            }
            siftDown(heap, live, head);
        }
        sink.accept(batchCodes, batchPositions, batch);
    }

    private static boolean before(int a, int b, long[] head) {
        return head[a] != head[b] ? head[a] < head[b] : a < b;
    }

    private static void siftUp(int[] heap, int i, long[] head) {
        int r = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(r, heap[parent], head)) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = r;
    }

    private static void siftDown(int[] heap, int live, long[] head) {
        if (live == 0) {
            return;
        }
        int r = heap[0];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= live) {
                break;
            }
            if (child + 1 < live && before(heap[child + 1], heap[child], head)) {
                child++;
            }
            if (!before(heap[child], r, head)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = r;
    }

    /**
     * Sorts the first {@code n} codes (signed order) with their positions: a stable LSD radix sort
     * of each code's distance to the smallest code, in as few passes of at most 12 bits as that
     * distance's width needs (2 passes for keys spanning 16M values, 6 for 64-bit hashes).
     */
    static void sort(long[] codes, long[] positions, int n) {
        sort(codes, positions, n, new long[][] {new long[n], new long[n]});
    }

    /** {@link #sort(long[], long[], int)} with scratch arrays of at least {@code n} entries. */
    private static void sort(long[] codes, long[] positions, int n, long[][] scratch) {
        if (n < 2) {
            return;
        }
        long min = codes[0];
        long max = codes[0];
        for (int i = 1; i < n; i++) {
            long code = codes[i];
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
        for (int i = 0; i < n; i++) {
            long k = codes[i] - min;
            for (int p = 0; p < passes; p++) {
                counts[p][(int) ((k >>> (digit * p)) & mask) + 1]++;
            }
        }
        long[] fromCodes = codes;
        long[] fromPositions = positions;
        long[] toCodes = scratch[0];
        long[] toPositions = scratch[1];
        for (int p = 0; p < passes; p++) {
            int[] count = counts[p];
            for (int v = 1; v < count.length; v++) {
                count[v] += count[v - 1];
            }
            int shift = digit * p;
            for (int i = 0; i < n; i++) {
                long code = fromCodes[i];
                int slot = count[(int) (((code - min) >>> shift) & mask)]++;
                toCodes[slot] = code;
                toPositions[slot] = fromPositions[i];
            }
            long[] t = fromCodes;
            fromCodes = toCodes;
            toCodes = t;
            t = fromPositions;
            fromPositions = toPositions;
            toPositions = t;
        }
        if (fromCodes != codes) {
            System.arraycopy(fromCodes, 0, codes, 0, n);
            System.arraycopy(fromPositions, 0, positions, 0, n);
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
