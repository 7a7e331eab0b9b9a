package dev.parquetlookup.engine;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.ReadStatistics;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * An immutable snapshot of a set of sorted Parquet files that answers point lookups: "every row
 * whose sort key (or a leading prefix of it) equals K".
 *
 * <p>Thread-safe: any number of threads may call {@link #lookup} at once; no lock is held while
 * reading. Example:
 *
 * <pre>{@code
 * try (DimensionTable table = DimensionTable.open(TableConfig.builder("/data/customers").build())) {
 *     LookupPlan plan = table.plan(List.of("id"), List.of("name", "country"));
 *     List<Object[]> rows = table.lookup(plan, new Object[] {42L});
 * }
 * }</pre>
 */
public final class DimensionTable implements Closeable {

    private DimensionTable() {}

    /**
     * Lists the files at the configured path, reads (or takes from the metadata cache) their
     * footers and page indexes, and checks that they are sorted by the sort key.
     *
     * @throws LookupFileException if a file is not usable for lookups; the message says why
     * @throws IOException if the path cannot be listed or read
     */
    public static DimensionTable open(TableConfig config) throws IOException {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** The configured path. */
    public String path() {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** Top-level columns of the files, in file order. */
    public List<ColumnSchema> columns() {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** The sort key the files are verified to be sorted by. */
    public List<String> sortKey() {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** The files of this snapshot, ordered by their key range. */
    public List<FileId> files() {
        throw new UnsupportedOperationException("engine in progress");
    }

    /**
     * Prepares lookups on {@code keyColumns} returning {@code projectedColumns}.
     *
     * @throws LookupFileException if the key is not a leading prefix of the sort key, or a
     *     projected column is missing or nested
     */
    public LookupPlan plan(List<String> keyColumns, List<String> projectedColumns) {
        throw new UnsupportedOperationException("engine in progress");
    }

    /**
     * Every row whose key columns equal {@code key} (values in the plan's key order; see {@link
     * ValueType} for their representation), in file order, as arrays of the projected values. A
     * null key component matches nothing. Returns an empty list on a miss.
     */
    public List<Object[]> lookup(LookupPlan plan, Object[] key) throws IOException {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** Every row of every file, in key order, projected like {@code plan}'s results. */
    public void scan(LookupPlan plan, RowConsumer consumer) throws IOException {
        throw new UnsupportedOperationException("engine in progress");
    }

    /** Bytes and read requests of data (and metadata) reads made by this table. */
    public ReadStatistics readStatistics() {
        throw new UnsupportedOperationException("engine in progress");
    }

    @Override
    public void close() throws IOException {}

    /** Receives rows of a {@link #scan}. */
    @FunctionalInterface
    public interface RowConsumer {
        void accept(Object[] row) throws IOException;
    }
}
