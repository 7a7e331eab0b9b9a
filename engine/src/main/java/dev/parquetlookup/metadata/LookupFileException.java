package dev.parquetlookup.metadata;

/**
 * A dimension file cannot serve lookups: not Parquet, truncated, unsorted, missing a column, of an
 * unsupported type. The message names the file and column and says what to do.
 */
public class LookupFileException extends RuntimeException {

    private static final long serialVersionUID = 1L;

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
}
