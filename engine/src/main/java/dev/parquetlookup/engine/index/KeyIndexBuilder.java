package dev.parquetlookup.engine.index;

import dev.parquetlookup.engine.codec.EngineCodecs;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSourceInputFile;
import dev.parquetlookup.metadata.KeyType;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Builds one key index file: reads only the key column(s) of a data file, once, page by page
 * through parquet-java's page reader and value decoders ({@link KeyColumnReader}; pages
 * decompressed by the engine's codecs, {@link EngineCodecs}), codes each row's key in batches of
 * rows ({@link KeyCodes}; rows with a NULL key part are left out: a NULL key matches nothing),
 * sorts the codes in bounded memory ({@link CodeSorter}) and writes {@link KeyIndex}'s layout to a
 * temporary file renamed into place. Stateless; runs on a builder thread.
 *
 * <p>A large file is read in ranges of consecutive row groups at once ({@link Parallel}): each
 * range on its own thread with its own reader and sorter (the memory of one sorter shared out among
 * them), then the sorted runs of every range are merged into the one file. The file is the same
 * byte for byte as a build in one range: equal codes come out in row order either way. Ranges no
 * helper thread took up run on the building thread, so a build never waits for a pool. One range
 * failing stops the others and fails the build; nothing of it is left on disk.
 *
 * <p>The engine reads the rows through its own page decoder and checks each row's key against its
 * code: two independent decoders must agree before a row is served.
 */
final class KeyIndexBuilder {

    /** Entries sorted in memory at once (about 32 MiB); more are spilled in sorted runs. */
    static final int CHUNK = 1 << 20;

    /** Rows at least per range read on a thread of its own: fewer are not worth a hand-off. */
    static final long MIN_ROWS_PER_RANGE = 1 << 18;

    private KeyIndexBuilder() {}

    /** What to index: the key leaves of a file read through {@code source}. */
    record Input(
            RangeSource source,
            IndexHeader header,
            List<ColumnDescriptor> keyLeaves,
            List<KeyType> keyTypes) {}

    /**
     * How one build may be spread: into at most {@code threads} ranges of row groups of at least
     * {@code minRowsPerRange} rows each, all but the first offered to {@code helpers}.
     *
     * <p>Example: {@code new Parallel(2, 1 << 18, pool)} reads a 10M-row file of 10 row groups as
     * two ranges of 5 row groups, one on the building thread and one on a thread of {@code pool}
     * (or on the building thread after the first, if no thread of {@code pool} took it up).
     */
    record Parallel(int threads, long minRowsPerRange, Executor helpers) {
        /** One range, on the building thread. */
        static final Parallel SERIAL = new Parallel(1, Long.MAX_VALUE, Runnable::run);

        Parallel {
            if (threads < 1 || minRowsPerRange < 1) {
                throw new IllegalArgumentException(threads + " threads, " + minRowsPerRange);
            }
        }
    }

    /**
     * What a build did: {@code entries} (rows with a non-NULL key) read in {@code ranges} ranges in
     * {@code readNanos}, then merged and written in {@code writeNanos}.
     */
    record Built(long entries, int ranges, long readNanos, long writeNanos) {}

    /** Row groups {@code [from, to)}, whose first row is row {@code base} of the file. */
    record Range(int from, int to, long base) {}

    /**
     * Writes the index of {@code input} to {@code target} (replacing what is there), sorting in
     * chunks of {@code chunk} entries (shared out among the ranges) spilled next to it.
     *
     * @return what it did (entries, ranges, time)
     */
    static Built build(Input input, Path target, int chunk, Parallel parallel) throws IOException {
        long start = System.nanoTime();
        Path directory = target.getParent();
        Path tmp = Files.createTempFile(directory, "building-", ".tmp");
        List<CodeSorter> sorters = new ArrayList<>();
        InputFile file = new RangeSourceInputFile(input.source());
        try (ParquetFileReader reader = new ParquetFileReader(file, EngineCodecs.readOptions())) {
            List<BlockMetaData> blocks = reader.getRowGroups();
            List<Range> ranges = ranges(blocks, parallel);
            for (int r = 0; r < ranges.size(); r++) {
                sorters.add(new CodeSorter(Math.max(1, chunk / ranges.size()), directory));
            }
            List<BuildTasks.Task> reads = new ArrayList<>(ranges.size());
            for (int r = 0; r < ranges.size(); r++) {
                Range range = ranges.get(r);
                CodeSorter sorter = sorters.get(r);
                boolean first = r == 0; // read through the reader already open
                reads.add(
                        tasks -> {
                            if (first) {
                                return readKeys(input, reader, range, sorter, tasks);
                            }
                            try (ParquetFileReader own =
                                    new ParquetFileReader(
                                            file,
                                            reader.getFooter(),
                                            EngineCodecs.readOptions(),
                                            file.newStream())) {
                                return readKeys(input, own, range, sorter, tasks);
                            }
                        });
            }
            long rows = BuildTasks.run(reads, parallel.helpers());
            long read = System.nanoTime();
            if (rows != input.header().rowCount()) {
                throw new IOException(
                        "read "
                                + rows
                                + " rows of "
                                + input.header().path()
                                + ", its footer says "
                                + input.header().rowCount());
            }
            long entries = 0;
            for (CodeSorter sorter : sorters) {
                entries += sorter.size();
            }
            try (KeyIndexWriter writer = new KeyIndexWriter(tmp, input.header(), entries)) {
                CodeSorter.emit(sorters, writer, parallel);
                writer.finish();
            }
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return new Built(entries, ranges.size(), read - start, System.nanoTime() - read);
        } finally {
            for (CodeSorter sorter : sorters) {
                sorter.close();
            }
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Cuts the non-empty row groups of {@code blocks} into at most {@code parallel.threads()}
     * ranges of consecutive row groups with about as many rows each, none under {@code
     * parallel.minRowsPerRange()} rows unless the file is.
     */
    static List<Range> ranges(List<BlockMetaData> blocks, Parallel parallel) {
        long total = 0;
        int nonEmpty = 0;
        for (BlockMetaData block : blocks) {
            total += block.getRowCount();
            nonEmpty += block.getRowCount() > 0 ? 1 : 0;
        }
        long wanted =
                Math.min(
                        Math.min(parallel.threads(), nonEmpty), total / parallel.minRowsPerRange());
        if (wanted <= 1) {
            return List.of(new Range(0, blocks.size(), 0));
        }
        List<Range> ranges = new ArrayList<>();
        int from = 0;
        long base = 0;
        long rows = 0;
        for (int b = 0; b < blocks.size(); b++) {
            rows += blocks.get(b).getRowCount();
            // Cut once this range holds its share of the rows (the last takes what is left).
            if (ranges.size() < wanted - 1
                    && rows > base
                    && rows * wanted >= total * (ranges.size() + 1)) {
                ranges.add(new Range(from, b + 1, base));
                from = b + 1;
                base = rows;
            }
        }
        ranges.add(new Range(from, blocks.size(), base));
        return ranges;
    }

    /** Rows coded at once, column by column. */
    private static final int BATCH = 4096;

    /**
     * Feeds every non-NULL key of the row groups of {@code range} to {@code sorter} and sorts it;
     * returns the rows read.
     */
    private static long readKeys(
            Input input, ParquetFileReader reader, Range range, CodeSorter sorter, BuildTasks tasks)
            throws IOException {
        List<KeyType> types = input.keyTypes();
        boolean exact = KeyCodes.exact(types);
        int n = input.keyLeaves().size();
        boolean[] integer = new boolean[n];
        for (int k = 0; k < n; k++) {
            integer[k] = types.get(k).kind() == KeyType.Kind.LONG;
        }
        long[][] parts = new long[n][BATCH];
        boolean[][] present = new boolean[n][BATCH];
        reader.setRequestedSchema(input.keyLeaves());
        List<BlockMetaData> blocks = reader.getRowGroups();
        KeyColumnReader[] columns = new KeyColumnReader[n];
        long base = range.base();
        for (int b = range.from(); b < range.to(); b++) {
            long rows = blocks.get(b).getRowCount();
            if (rows == 0) {
                continue;
            }
            tasks.stopped();
            PageReadStore pages = reader.readRowGroup(b);
            for (int k = 0; k < n; k++) {
                ColumnDescriptor leaf = input.keyLeaves().get(k);
                columns[k] =
                        new KeyColumnReader(pages.getPageReader(leaf), leaf, types.get(k), rows);
            }
            for (long at = 0; at < rows; at += BATCH) {
                int batch = (int) Math.min(BATCH, rows - at);
                for (int k = 0; k < n; k++) {
                    columns[k].read(parts[k], present[k], batch);
                }
                if (exact) {
                    for (int i = 0; i < batch; i++) {
                        if (present[0][i]) {
                            sorter.add(parts[0][i], base + at + i);
                        }
                    }
                    continue;
                }
                rows:
                for (int i = 0; i < batch; i++) {
                    long h = KeyCodes.start(n);
                    for (int k = 0; k < n; k++) {
                        if (!present[k][i]) {
                            continue rows;
                        }
                        long part = parts[k][i];
                        h = KeyCodes.step(h, integer[k] ? KeyCodes.longPart(part) : part);
                    }
                    sorter.add(h, base + at + i);
                }
            }
            base += rows;
        }
        sorter.finish();
        return base - range.base();
    }
}
