package dev.parquetlookup.engine.source;

import dev.parquetlookup.io.RetryPolicy;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link dev.parquetlookup.engine.table.RefreshingTable} follows changes of its path.
 *
 * <p>Example: {@code new RefreshOptions(Duration.ofMinutes(5), SnapshotMode.LATEST_SUCCESS,
 * RetryPolicy.defaults())} checks every five minutes for a newer complete snapshot directory.
 *
 * @param interval how often the path is listed again, or {@code null} (or zero) to never refresh
 * @param snapshotMode what the path holds: the table's files, or versioned snapshot directories
 * @param retryPolicy retries of transient storage failures (reads, listings), used when the table
 *     creates its own store
 * @param format what the path is (option {@code format}): {@link TableFormat#FILES} (a directory,
 *     read as {@code snapshotMode} says) or the name of a {@link TableFormat} such as {@code
 *     iceberg} (the table's root; {@code snapshotMode} does not apply)
 */
public record RefreshOptions(
        @Nullable Duration interval,
        SnapshotMode snapshotMode,
        RetryPolicy retryPolicy,
        String format) {

    /** The marker file that makes a snapshot directory complete. */
    public static final String SUCCESS_MARKER = "_SUCCESS";

    public RefreshOptions {
        Objects.requireNonNull(snapshotMode, "snapshotMode");
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        format = format.trim().toLowerCase(Locale.ROOT);
        if (interval != null && interval.isNegative()) {
            throw new IllegalArgumentException(
                    "refresh.interval must not be negative, got " + interval);
        }
        if (interval != null && interval.isZero()) {
            interval = null;
        }
    }

    /** Options for a directory ({@link TableFormat#FILES}). */
    public RefreshOptions(
            @Nullable Duration interval, SnapshotMode snapshotMode, RetryPolicy retryPolicy) {
        this(interval, snapshotMode, retryPolicy, TableFormat.FILES);
    }

    /** Never refresh, all files of the path, default retries. */
    public static RefreshOptions defaults() {
        return new RefreshOptions(null, SnapshotMode.ALL_FILES, RetryPolicy.defaults());
    }

    /** These options with another interval ({@code null}: never refresh). */
    public RefreshOptions withInterval(@Nullable Duration newInterval) {
        return new RefreshOptions(newInterval, snapshotMode, retryPolicy, format);
    }

    /** These options with another snapshot mode. */
    public RefreshOptions withSnapshotMode(SnapshotMode mode) {
        return new RefreshOptions(interval, mode, retryPolicy, format);
    }

    /** These options with another retry policy. */
    public RefreshOptions withRetryPolicy(RetryPolicy policy) {
        return new RefreshOptions(interval, snapshotMode, policy, format);
    }

    /** These options with another table format ({@link TableFormat#FILES}, {@code iceberg}). */
    public RefreshOptions withFormat(String newFormat) {
        return new RefreshOptions(interval, snapshotMode, retryPolicy, newFormat);
    }

    /** Whether a background refresh runs. */
    public boolean refreshes() {
        return interval != null;
    }

    /** What the configured path holds (option {@code path.snapshot-mode}). */
    public enum SnapshotMode {
        /**
         * {@code all-files}: every data file below the path is part of the table. Publish by
         * writing each new file under a hidden ({@code .}) or {@code _} name, or elsewhere, and
         * renaming it into place.
         */
        ALL_FILES,

        /**
         * {@code latest-success}: the path is a parent of snapshot directories ({@code v=0001/},
         * {@code 2026-11-29T23/}, ...); the table is the newest directory holding a {@link
         * #SUCCESS_MARKER} file. "Newest" is the largest name, with digit runs compared as numbers
         * ({@code v10} after {@code v9}).
         */
        LATEST_SUCCESS;

        /** The value of this mode in the {@code path.snapshot-mode} option. */
        public String optionValue() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The option value, so that option parsers (Flink's enum options) read and print it. */
        @Override
        public String toString() {
            return optionValue();
        }
    }
}
