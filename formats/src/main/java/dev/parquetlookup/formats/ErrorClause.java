package dev.parquetlookup.formats;

/**
 * A library's exception as a clause inside one of our sentences: its class's simple name and its
 * message without the closing period, so that {@code "...: " + of(e) + ". Repair it."} never reads
 * "The latest available version is 0.." (the Delta kernel's and iceberg-core's messages end with
 * one). Example: {@code of(new IllegalArgumentException("Cannot time travel."))} is {@code
 * "IllegalArgumentException: Cannot time travel"}.
 */
final class ErrorClause {

    private ErrorClause() {}

    static String of(Throwable e) {
        String m = String.valueOf(e.getMessage()).trim();
        while (m.endsWith(".")) {
            m = m.substring(0, m.length() - 1).trim();
        }
        return e.getClass().getSimpleName() + ": " + m;
    }
}
