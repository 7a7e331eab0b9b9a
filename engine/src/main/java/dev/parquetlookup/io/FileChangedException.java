package dev.parquetlookup.io;

import java.io.IOException;

/**
 * A file changed after it was listed and opened: the store now holds another version under the same
 * path (an object overwritten in place). Never retried: the version a snapshot was opened on is
 * gone, and reading on would mix bytes of two versions. A refresh lists the new version and serves
 * it.
 *
 * <p>Example message: {@code s3a://b/dim/part-0.parquet changed after it was opened: the table was
 * opened on the version with ETag "9b2c..." (1048576 bytes), and the store no longer has that
 * version (it was overwritten in place) ...}.
 */
public final class FileChangedException extends IOException {

    private final FileId file;

    public FileChangedException(FileId file, String message, Throwable cause) {
        super(message, cause);
        this.file = file;
    }

    /**
     * The failure of a read of {@code length} bytes at {@code position} of {@code file} refused
     * because the store no longer holds the listed version; {@code cause} is the store's answer.
     */
    public static FileChangedException of(FileId file, long position, int length, Throwable cause) {
        return new FileChangedException(
                file,
                String.format(
                        "%s changed after it was opened: the table was opened on the version with"
                                + " ETag %s (%d bytes), and the store no longer holds that version"
                                + " (the object was overwritten in place), so the read of %d bytes"
                                + " at offset %d was refused rather than mixing bytes of two"
                                + " versions. A refresh ('refresh.interval') serves the new"
                                + " version; without refresh, restart the job. Publish new files"
                                + " under new names (write elsewhere, then rename) or in a new"
                                + " snapshot directory ('path.snapshot-mode' = 'latest-success') so"
                                + " that files never change under running lookups. Store said: %s",
                        file.path(),
                        file.etag(),
                        file.length(),
                        length,
                        position,
                        cause.getMessage()),
                cause);
    }

    /** The version that was opened. */
    public FileId file() {
        return file;
    }
}
