package dev.parquetlookup.engine.table;

import dev.parquetlookup.engine.source.RefreshOptions;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.HashSet;
import java.util.Set;

/**
 * What the refreshes of one {@link RefreshingTable} did: when the path was last listed, how many
 * refreshes failed and why the last one did, and the log lines that say which version is served.
 * {@link #status(Snapshot)} turns it into the {@link RefreshStatus} that metrics read.
 */
final class RefreshHistory {

    private static final Logger LOG = LoggerFactory.getLogger(RefreshingTable.class);

    private final String path;
    private volatile long lastCheckMillis;
    private volatile long failedRefreshes;
    @Nullable private volatile String lastError;
    private volatile long lastErrorMillis;

    RefreshHistory(String path, long openedAtMillis) {
        this.path = path;
        this.lastCheckMillis = openedAtMillis;
    }

    /** The path was listed successfully just now. */
    void listed() {
        lastCheckMillis = System.currentTimeMillis();
    }

    /** The last refresh found nothing to do or swapped: no error to report. */
    void succeeded() {
        lastError = null;
    }

    /** A refresh failed: counts it and logs one WARN line saying what is still served. */
    void failed(Throwable e, Snapshot served, RefreshOptions options) {
        failedRefreshes++;
        lastError = oneLine(e);
        lastErrorMillis = System.currentTimeMillis();
        LOG.warn(
                "Refresh of {} failed; still serving version {} ({}, {} file(s) from {},"
                        + " published {} s ago){}: {}",
                path,
                served.version,
                served.sourceVersion,
                served.files.size(),
                served.location,
                (System.currentTimeMillis() - served.publishedAtMillis) / 1000,
                options.refreshes() ? ", retrying in " + options.interval().toMillis() + " ms" : "",
                lastError);
    }

    /** Logs the swap from {@code old} to {@code next}, with the files added and dropped. */
    void swapped(Snapshot old, Snapshot next) {
        lastError = null;
        Set<?> added = new HashSet<>(next.listed);
        added.removeAll(old.listed);
        Set<?> dropped = new HashSet<>(old.listed);
        dropped.removeAll(next.listed);
        LOG.info(
                "Swapped {} to version {} ({}): {} file(s) from {} ({} new or changed, {}"
                        + " dropped)",
                path,
                next.version,
                next.sourceVersion,
                next.files.size(),
                next.location,
                added.size(),
                dropped.size());
    }

    /** Version, age and last error of {@code current}. */
    RefreshStatus status(Snapshot current) {
        return new RefreshStatus(
                current.version,
                current.publishedAtMillis,
                lastCheckMillis,
                current.location,
                current.files.size(),
                current.newestFileMillis,
                failedRefreshes,
                lastError,
                lastErrorMillis,
                current.sourceVersion);
    }

    /** The message and a cause the message does not already mention, on one line. */
    private static String oneLine(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        Throwable cause = e.getCause();
        if (cause != null
                && cause.getMessage() != null
                && !s.toString().contains(cause.getMessage())) {
            s.append(" (caused by ").append(cause).append(')');
        }
        if (e.getMessage() == null) {
            s.setLength(0);
            s.append(e);
        }
        return s.toString().replace('\n', ' ');
    }
}
