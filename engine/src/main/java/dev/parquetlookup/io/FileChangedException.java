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

    /** The version that was opened. */
    public FileId file() {
        return file;
    }
}
