package dev.parquetlookup.engine.index;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sorts (code, row position) entries in bounded memory: entries are collected in chunks of at most
 * {@code chunk} entries, each chunk is sorted by a stable radix sort on the code (signed order),
 * and when more than one chunk is needed the sorted chunks are spilled to run files in {@code
 * spillDirectory} and merged. Positions must be added in ascending order: entries with equal codes
 * then come out in row order. Memory: about 32 bytes per chunk entry. Not thread-safe.
 *
 * <p>Example: adding {@code (7,0), (3,1), (7,2)} emits {@code (3,1), (7,0), (7,2)}.
 */
final class CodeSorter implements Closeable {

    /** Receives the sorted entries. */
    interface Sink {
        void accept(long code, long position) throws IOException;
    }

    private final int chunk;
    private final Path spillDirectory;
    private long[] codes;
    private long[] positions;
    private int size;
    private long total;
    private final List<Path> runs = new ArrayList<>();

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
        sort(codes, positions, size);
        if (runs.isEmpty()) {
            for (int i = 0; i < size; i++) {
                sink.accept(codes[i], positions[i]);
            }
            return;
        }
        spill();
        merge(sink);
    }

    private void spill() throws IOException {
        sort(codes, positions, size);
        Path run = Files.createTempFile(spillDirectory, "run-", ".tmp");
        runs.add(run);
        try (DataOutputStream out =
                new DataOutputStream(
                        new BufferedOutputStream(Files.newOutputStream(run), 1 << 16))) {
            for (int i = 0; i < size; i++) {
                out.writeLong(codes[i]);
                out.writeLong(positions[i]);
            }
        }
        size = 0;
    }

    /** A run being merged: its next entry. */
    private static final class Run {
        final DataInputStream in;
        final int order;
        long remaining;
        long code;
        long position;

        Run(Path file, int order) throws IOException {
            this.in =
                    new DataInputStream(
                            new BufferedInputStream(Files.newInputStream(file), 1 << 16));
            this.order = order;
            this.remaining = Files.size(file) / 16;
        }

        boolean next() throws IOException {
            if (remaining == 0) {
                return false;
            }
            remaining--;
            code = in.readLong();
            position = in.readLong();
            return true;
        }
    }

    private void merge(Sink sink) throws IOException {
        // Equal codes: the earlier run first, its rows come first in the file.
        PriorityQueue<Run> heap =
                new PriorityQueue<>(
                        (a, b) ->
                                a.code != b.code
                                        ? Long.compare(a.code, b.code)
                                        : Integer.compare(a.order, b.order));
        List<Run> open = new ArrayList<>();
        try {
            for (int r = 0; r < runs.size(); r++) {
                Run run = new Run(runs.get(r), r);
                open.add(run);
                if (run.next()) {
                    heap.add(run);
                }
            }
            while (!heap.isEmpty()) {
                Run run = heap.poll();
                sink.accept(run.code, run.position);
                if (run.next()) {
                    heap.add(run);
                }
            }
        } finally {
            for (Run run : open) {
                run.in.close();
            }
        }
    }

    /**
     * Sorts the first {@code n} codes (signed order) with their positions: a stable LSD radix sort,
     * 8 bits per pass, passes whose byte is the same for every code skipped.
     */
    static void sort(long[] codes, long[] positions, int n) {
        if (n < 2) {
            return;
        }
        long[] codesTmp = new long[n];
        long[] positionsTmp = new long[n];
        int[][] counts = new int[8][257];
        for (int i = 0; i < n; i++) {
            long k = codes[i] ^ Long.MIN_VALUE;
            for (int b = 0; b < 8; b++) {
                counts[b][(int) ((k >>> (8 * b)) & 0xFF) + 1]++;
            }
        }
        long[] fromCodes = codes;
        long[] fromPositions = positions;
        long[] toCodes = codesTmp;
        long[] toPositions = positionsTmp;
        for (int b = 0; b < 8; b++) {
            int[] count = counts[b];
            boolean trivial = false;
            for (int v = 1; v <= 256; v++) {
                if (count[v] == n) {
                    trivial = true;
                    break;
                }
            }
            if (trivial) {
                continue;
            }
            for (int v = 1; v <= 256; v++) {
                count[v] += count[v - 1];
            }
            int shift = 8 * b;
            for (int i = 0; i < n; i++) {
                long code = fromCodes[i];
                int slot = count[(int) (((code ^ Long.MIN_VALUE) >>> shift) & 0xFF)]++;
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
    }
}
