package dev.parquetlookup.engine.table;

/** What {@link RefreshingTable#refresh()} did. */
public enum RefreshResult {
    /** Nothing changed; the current snapshot stays. */
    UNCHANGED,
    /** A new snapshot was opened and is now served. */
    SWAPPED,
    /** The refresh failed; the last good snapshot stays (see {@link RefreshStatus#lastError()}). */
    FAILED
}
