package dev.parquetlookup.engine;

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
}
