package dev.parquetlookup.metadata;

/**
 * A dimension file cannot serve lookups: not Parquet, truncated, unsorted, missing a column, of an
 * unsupported type. The message names the file and column and says what to do.
 */
public class LookupFileException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * Said wherever a message advises {@code prepare} (or another rewrite of a readable file): it
     * writes new files, which only plain Parquet files allow (a table format's data files belong to
     * its writers). Damaged files say {@link #DAMAGED_PLAIN_FILES_ONLY}, files whose columns do not
     * fit {@link #TABLE_WRITERS_ONLY}.
     */
    public static final String PLAIN_FILES_ONLY =
            " (plain Parquet files only: never rewrite a Delta or Iceberg table's data files)";

    /** The start of {@link #DAMAGED_PLAIN_FILES_ONLY} and {@link #TABLE_WRITERS_ONLY}. */
    private static final String NEVER_BEHIND_THE_LOG =
            " (plain Parquet files only: never rewrite or remove a Delta or Iceberg table's data"
                    + " files";

    /**
     * Said wherever a message advises removing or rewriting a file that is damaged or not Parquet:
     * that is for plain Parquet files. A Delta or Iceberg table's log names its data files (one
     * rewritten or removed behind it breaks the table), so its user restores the file or the table
     * instead.
     */
    public static final String DAMAGED_PLAIN_FILES_ONLY =
            NEVER_BEHIND_THE_LOG
                    + "; restore such a file from a copy, or the table to a version"
                    + " without it)";

    /**
     * Said wherever a message advises rewriting or moving away files that are readable but do not
     * fit the table (their columns' types): that is for plain Parquet files. A Delta or Iceberg
     * table's data files are rewritten by the table's own writers, never behind its log.
     */
    public static final String TABLE_WRITERS_ONLY =
            NEVER_BEHIND_THE_LOG + "; the table's own writers rewrite them, e.g. a compaction)";

    public LookupFileException(String message) {
        super(message);
    }

    public LookupFileException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The sort key, as given or as the files declare it, does not fit a file: no key known, a
     * column missing, nested or of a type that cannot be a key, or a key contradicting the declared
     * one. The fix is a setting ({@code 'sort-key'}, the command line's {@code --key}), so the
     * command line reports it as a usage error.
     */
    public static final class BadSortKey extends LookupFileException {

        private static final long serialVersionUID = 1L;

        public BadSortKey(String message) {
            super(message);
        }
    }

    /**
     * A file is not sorted by the lookup key: found at open from its statistics ({@link
     * SortOrderCheck}) or at a lookup by a key page out of order. The engine serves such a file
     * through a key index instead (the default); this reaches the user only when unsorted files are
     * refused. The message names the file, the column and the two keys out of order.
     */
    public static final class Unsorted extends LookupFileException {

        private static final long serialVersionUID = 1L;

        public Unsorted(String message) {
            super(message);
        }

        /**
         * The advice every refusal ends with: an index, never a rewrite of a table format's data
         * files (they belong to the table's writers; rewriting one outside its log breaks the
         * table).
         */
        public static String advice(String column) {
            return " Set 'unsorted-files' = 'index' (the default) to serve it through a key index"
                    + " the reader builds from the file; for plain Parquet files you own (never a"
                    + " Delta or Iceberg table's data files), 'prepare --key "
                    + column
                    + "' rewrites them sorted, the fastest layout.";
        }
    }
}
