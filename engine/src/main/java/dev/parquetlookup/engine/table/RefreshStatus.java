package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.source.SnapshotSource;

import javax.annotation.Nullable;

/**
 * The state of a {@link RefreshingTable}, for metrics.
 *
 * @param version 1 for the first snapshot, +1 for each swap
 * @param publishedAtMillis when the current snapshot was swapped in (epoch milliseconds)
 * @param lastCheckMillis when the path was last listed successfully
 * @param location the directory the snapshot was opened from (the path in {@code all-files} mode,
 *     the chosen snapshot directory in {@code latest-success} mode, a table format's root)
 * @param fileCount files of the current snapshot
 * @param newestFileMillis the largest modification time among them
 * @param failedRefreshes refreshes that failed so far
 * @param lastError why the last refresh failed, or {@code null} if it succeeded
 * @param lastErrorMillis when it failed, or 0
 * @param sourceVersion the version as its source names it ({@link
 *     SnapshotSource.Listing#versionLabel()}: {@code "iceberg snapshot 4713"}, or the location of a
 *     directory)
 */
public record RefreshStatus(
        long version,
        long publishedAtMillis,
        long lastCheckMillis,
        String location,
        int fileCount,
        long newestFileMillis,
        long failedRefreshes,
        @Nullable String lastError,
        long lastErrorMillis,
        String sourceVersion) {

    /** How long the current snapshot has been served. */
    public long ageMillis(long nowMillis) {
        return Math.max(0, nowMillis - publishedAtMillis);
    }
}
