package dev.parquetlookup.writer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Writes a directory of lookup-ready files: rows sorted by the key (sorted here when {@code
 * sortInput} is on, with the external sort over all rows), split into files of about a target size.
 * A file is closed only where the key changes, so the files' key ranges do not overlap and every
 * key lives in exactly one file.
 *
 * <p>Files are named {@code part-00000.parquet}, {@code part-00001.parquet}, ... Example:
 *
 * <pre>{@code
 * try (LookupDatasetWriter out = LookupDatasetWriter.open("/data/customers", columns,
 *         List.of("id"), WriterOptions.builder().sortInput(true).build(), 256L << 20)) {
 *     for (Object[] row : rows) {
 *         out.write(row);
 *     }
 * }
 * }</pre>
 */
public final class LookupDatasetWriter implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(LookupDatasetWriter.class);

    /** Rows between two checks of the current file's size. */
    private static final int SIZE_CHECK_ROWS = 512;

    private static final int PROGRESS_ROWS = 50_000;

    /** One written file. */
    public record WrittenFile(String path, long rows) {}

    private final String directory;
    private final List<ColumnSpec> columns;
    private final List<String> sortKey;
    private final WriterOptions fileOptions;
    private final long targetFileBytes;
    private final RowLayout layout;
    private final ExternalSorter sorter;
    private final List<WrittenFile> files = new ArrayList<>();

    private LongConsumer progress = rows -> {};
    private LookupFileWriter current;
    private Object[] previous;
    private boolean rollPending;
    private long rowsGiven;
    private long rowsWritten;
    private boolean failed;
    private boolean closed;

    private LookupDatasetWriter(
            String directory,
            List<ColumnSpec> columns,
            List<String> sortKey,
            WriterOptions options,
            long targetFileBytes) {
        this.directory = directory.endsWith("/") ? directory : directory + "/";
        this.columns = List.copyOf(columns);
        this.sortKey = List.copyOf(sortKey);
        this.fileOptions = options.toBuilder().sortInput(false).build();
        this.targetFileBytes = targetFileBytes;
        this.layout = new RowLayout(columns, sortKey);
        this.sorter = options.sortInput() ? new ExternalSorter(layout, options) : null;
    }

    /**
     * A writer of files below {@code directory} (local path or Hadoop URI).
     *
     * @param targetFileBytes a file is closed at the first key change after it reaches this size
     */
    public static LookupDatasetWriter open(
            String directory,
            List<ColumnSpec> columns,
            List<String> sortKey,
            WriterOptions options,
            long targetFileBytes) {
        if (targetFileBytes <= 0) {
            throw new IllegalArgumentException(
                    "target file size must be positive, got " + targetFileBytes);
        }
        return new LookupDatasetWriter(directory, columns, sortKey, options, targetFileBytes);
    }

    /** Called with the number of rows written to files so far, every 50,000 rows and at the end. */
    public LookupDatasetWriter onProgress(LongConsumer rowsWrittenListener) {
        this.progress = rowsWrittenListener;
        return this;
    }

    /** Adds one row (engine value representation, one value per column). */
    public void write(Object[] row) throws IOException {
        write(row, null);
    }

    /**
     * Adds one row whose values in the columns flagged by {@code physical} are already the physical
     * values parquet-java writes for the column (Boolean, Integer, Long, Float, Double or {@link
     * org.apache.parquet.io.api.Binary}, as a Parquet reader of a column of the same type gives
     * them): they are written unchanged, without the conversion and checks of engine values (for
     * copying Parquet files whose column types are the written ones).
     *
     * @param physical per column, whether its value is physical; null for none
     */
    public void write(Object[] row, @Nullable boolean[] physical) throws IOException {
        if (closed || failed) {
            throw new IllegalStateException(
                    "dataset writer of " + directory + " is " + (closed ? "closed" : "failed"));
        }
        Object[] prepared = layout.prepare(row, physical, rowsGiven + 1, directory);
        rowsGiven++;
        if (sorter != null) {
            sorter.add(prepared);
        } else {
            writeSorted(prepared, rowsGiven);
        }
    }

    private void writeSorted(Object[] prepared, long rowNumber) throws IOException {
        try {
            if (previous != null) {
                int c = layout.compareKeys(previous, prepared);
                if (c > 0) {
                    throw new IllegalArgumentException(
                            layout.unsortedMessage(directory, rowNumber, prepared, previous));
                }
                if (c != 0 && rollPending) {
                    finishFile();
                }
            }
            if (current == null) {
                String path = String.format("%spart-%05d.parquet", directory, files.size());
                current = LookupFileWriter.open(path, columns, sortKey, fileOptions);
                rollPending = false;
            }
            current.writePreparedRow(prepared);
        } catch (IOException | RuntimeException e) {
            failed = true;
            throw e;
        }
        previous = prepared;
        rowsWritten++;
        if (rowsWritten % SIZE_CHECK_ROWS == 0 && current.dataSize() >= targetFileBytes) {
            rollPending = true;
        }
        if (rowsWritten % PROGRESS_ROWS == 0) {
            progress.accept(rowsWritten);
        }
    }

    private void finishFile() throws IOException {
        LookupFileWriter done = current;
        current = null;
        done.close();
        files.add(new WrittenFile(done.path(), done.rowCount()));
        LOG.debug("Wrote {} rows to {}", done.rowCount(), done.path());
    }

    /** Rows given so far. */
    public long rowCount() {
        return rowsGiven;
    }

    /** The files written so far (all of them after {@link #close()}). */
    public List<WrittenFile> files() {
        return List.copyOf(files);
    }

    /** The sort's spilled runs so far (0 when sorting is off or everything fit in memory). */
    public int sortRuns() {
        return sorter == null ? 0 : sorter.spills();
    }

    /**
     * Stops without writing the rows still held by the sort: for an input that failed midway.
     * Deletes the file being written and the sort's runs; files already finished stay.
     */
    public void abort() throws IOException {
        failed = true;
        close();
    }

    /**
     * Sorts (if asked) and writes the remaining rows and closes the last file. After a failure, the
     * file being written is deleted; files already finished stay.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!failed && sorter != null) {
                sorter.finishInto(this::writeSorted);
            }
            if (current != null) {
                if (failed) {
                    current.markFailed();
                    current.close(); // deletes the partial file
                    current = null;
                } else {
                    finishFile();
                }
            }
            progress.accept(rowsWritten);
        } catch (IOException | RuntimeException e) {
            failed = true;
            if (current != null) {
                try {
                    current.markFailed();
                    current.close();
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        } finally {
            if (sorter != null) {
                sorter.close();
            }
        }
    }
}
