package dev.parquetlookup.writer;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * Sorts prepared rows by the sort key with bounded memory: rows are buffered until the row or byte
 * budget is reached, then sorted and spilled to a temporary file (a "run"); at the end the runs are
 * merged (in several passes when there are more than {@value #MAX_FAN_IN}). The sort is stable:
 * rows with equal keys keep their input order.
 */
final class ExternalSorter implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(ExternalSorter.class);

    /** Runs merged at once; each open run holds one buffered stream. */
    static final int MAX_FAN_IN = 64;

    private static final int STREAM_BUFFER = 64 << 10;

    private final RowLayout layout;
    private final PrimitiveTypeName[] physical;
    private final int maxRows;
    private final long maxBytes;
    private final Path tempParent;

    private ColumnarRows buffer;
    private final List<Path> runs = new ArrayList<>();
    private Path tempDir;
    private int spills;

    ExternalSorter(RowLayout layout, WriterOptions options) {
        this.layout = layout;
        this.maxRows = options.sortBufferRows();
        this.maxBytes = options.sortBufferBytes();
        this.tempParent =
                options.sortTempDir() != null
                        ? options.sortTempDir()
                        : Path.of(System.getProperty("java.io.tmpdir"));
        this.buffer = new ColumnarRows(layout);
        int n = layout.schema().getFieldCount();
        physical = new PrimitiveTypeName[n];
        for (int i = 0; i < n; i++) {
            physical[i] = layout.storedType(i);
        }
    }

    /** Number of runs spilled to disk so far (for tests and progress). */
    int spills() {
        return spills;
    }

    void add(Object[] prepared) throws IOException {
        buffer.add(prepared);
        if (buffer.size() >= maxRows
                || buffer.heapBytes() >= maxBytes
                || buffer.binaryNearlyFull()) {
            spill();
        }
    }

    private void spill() throws IOException {
        if (buffer.size() == 0) {
            return;
        }
        buffer.reorder(buffer.sortedOrder());
        Path run = null;
        try {
            if (tempDir == null) {
                Files.createDirectories(tempParent);
                tempDir = Files.createTempDirectory(tempParent, "parquet-lookup-sort-");
            }
            run = tempDir.resolve("run-" + runs.size() + "-" + spills);
            try (DataOutputStream out =
                    new DataOutputStream(
                            new BufferedOutputStream(Files.newOutputStream(run), STREAM_BUFFER))) {
                for (int i = 0; i < buffer.size(); i++) {
                    writeRow(out, buffer.row(i));
                }
            }
        } catch (IOException e) {
            // A full disk says only "No space left on device": name the directory and the fix.
            throw new IOException(
                    "The sort could not spill "
                            + buffer.size()
                            + " rows to "
                            + (run != null ? run : tempParent)
                            + " ("
                            + e
                            + "). Sorted runs need room for about the input's size in the sort's"
                            + " temporary directory: give one with room (prepare: --temp-dir DIR;"
                            + " the writer: WriterOptions.sortTempDir), or more memory to spill"
                            + " less (prepare: --sort-memory).",
                    e);
        }
        LOG.debug("Spilled a sorted run of {} rows to {}", buffer.size(), run);
        runs.add(run);
        spills++;
        buffer.clear(); // the run holds copies: the arrays serve the next rows
    }

    /** Sorts what was added and hands each row, numbered from 1, to {@code sink}. Call once. */
    void finishInto(RowSink sink) throws IOException {
        try (SortedRows sorted = finish()) {
            long n = 0;
            for (Object[] row = sorted.next(); row != null; row = sorted.next()) {
                sink.accept(row, ++n);
            }
        }
    }

    /** Sorts what was added and returns the rows in key order. Call once. */
    SortedRows finish() throws IOException {
        if (runs.isEmpty()) {
            // The rows come out as slices of the buffer: it is not reused after this.
            ColumnarRows rows = buffer;
            rows.reorder(rows.sortedOrder());
            buffer = new ColumnarRows(layout);
            return new SortedRows() {
                private int next;

                @Override
                public Object[] next() {
                    return next < rows.size() ? rows.row(next++) : null;
                }

                @Override
                public void close() {}
            };
        }
        spill();
        // Merge groups of runs until few enough remain to merge in one pass.
        List<Path> current = new ArrayList<>(runs);
        int pass = 0;
        while (current.size() > MAX_FAN_IN) {
            List<Path> next = new ArrayList<>();
            for (int from = 0; from < current.size(); from += MAX_FAN_IN) {
                List<Path> group =
                        current.subList(from, Math.min(current.size(), from + MAX_FAN_IN));
                Path merged = tempDir.resolve("merge-" + pass + "-" + next.size());
                try (Merger merger = new Merger(group);
                        DataOutputStream out =
                                new DataOutputStream(
                                        new BufferedOutputStream(
                                                Files.newOutputStream(merged), STREAM_BUFFER))) {
                    for (Object[] row = merger.next(); row != null; row = merger.next()) {
                        writeRow(out, row);
                    }
                }
                for (Path p : group) {
                    Files.deleteIfExists(p);
                }
                next.add(merged);
            }
            current = next;
            pass++;
        }
        return new Merger(current);
    }

    /** Rows in key order; {@code next()} returns null at the end. */
    interface SortedRows extends Closeable {
        Object[] next() throws IOException;
    }

    /** Where {@link #finishInto} hands the sorted rows: a writer's write of a prepared row. */
    @FunctionalInterface
    interface RowSink {
        void accept(Object[] prepared, long rowNumber) throws IOException;
    }

    /** Stable k-way merge: equal keys come from the earlier run first. */
    private final class Merger implements SortedRows {
        private final List<DataInputStream> inputs = new ArrayList<>();
        private final PriorityQueue<Head> heads;

        Merger(List<Path> runFiles) throws IOException {
            heads =
                    new PriorityQueue<>(
                            Math.max(1, runFiles.size()),
                            (a, b) -> {
                                int c = layout.compareKeys(a.row, b.row);
                                return c != 0 ? c : Integer.compare(a.run, b.run);
                            });
            try {
                for (int i = 0; i < runFiles.size(); i++) {
                    DataInputStream in =
                            new DataInputStream(
                                    new BufferedInputStream(
                                            Files.newInputStream(runFiles.get(i)), STREAM_BUFFER));
                    inputs.add(in);
                    Object[] row = readRow(in);
                    if (row != null) {
                        heads.add(new Head(row, i));
                    }
                }
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }

        @Override
        public Object[] next() throws IOException {
            Head head = heads.poll();
            if (head == null) {
                return null;
            }
            Object[] following = readRow(inputs.get(head.run));
            if (following != null) {
                heads.add(new Head(following, head.run));
            }
            return head.row;
        }

        @Override
        public void close() throws IOException {
            for (DataInputStream in : inputs) {
                in.close();
            }
        }
    }

    private record Head(Object[] row, int run) {}

    private void writeRow(DataOutputStream out, Object[] row) throws IOException {
        for (int i = 0; i < row.length; i++) {
            Object v = row[i];
            if (v == null) {
                out.writeByte(0);
                continue;
            }
            out.writeByte(1);
            PreparedValues.write(out, v);
        }
    }

    private Object[] readRow(DataInputStream in) throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        Object[] row = new Object[physical.length];
        for (int i = 0; i < row.length; i++) {
            int present = i == 0 ? first : in.readUnsignedByte();
            if (present == 0) {
                continue;
            }
            row[i] =
                    switch (physical[i]) {
                        case BOOLEAN -> in.readBoolean();
                        case INT32 -> in.readInt();
                        case INT64 -> in.readLong();
                        case FLOAT -> in.readFloat();
                        case DOUBLE -> in.readDouble();
                        case BINARY, FIXED_LEN_BYTE_ARRAY, INT96 -> {
                            byte[] bytes = new byte[in.readInt()];
                            in.readFully(bytes);
                            yield Binary.fromConstantByteArray(bytes);
                        }
                    };
        }
        return row;
    }

    /** Deletes the temporary runs. */
    @Override
    public void close() throws IOException {
        buffer = new ColumnarRows(layout);
        if (tempDir == null) {
            return;
        }
        try (var files = Files.list(tempDir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        Files.deleteIfExists(tempDir);
        tempDir = null;
    }
}
