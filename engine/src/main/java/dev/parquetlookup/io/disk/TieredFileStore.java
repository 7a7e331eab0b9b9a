package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.FileStore;
import dev.parquetlookup.io.ForwardingFileStore;
import dev.parquetlookup.io.RangeSource;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * A {@link FileStore} whose remote files are read through a {@link DiskTier}: {@link #open} of an
 * {@code s3a://}, {@code hdfs://}, ... file returns a {@link TieredRangeSource}; local files
 * ({@code file:} or a plain path) are the delegate's own sources, never copied to disk.
 *
 * <p>Closing this store closes the delegate, not the tier (which is shared).
 */
public final class TieredFileStore extends ForwardingFileStore {

    private final DiskTier tier;

    TieredFileStore(FileStore delegate, DiskTier tier) {
        super(delegate);
        this.tier = tier;
    }

    public DiskTier tier() {
        return tier;
    }

    /** Whether {@code path} names a local file, which is never tiered. */
    public static boolean isLocal(String path) {
        int colon = path.indexOf(':');
        int slash = path.indexOf('/');
        if (colon < 0 || (slash >= 0 && slash < colon)) {
            return true; // no scheme: a plain local path
        }
        return path.regionMatches(true, 0, "file:", 0, 5);
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        TieredRangeSource tiered = openTiered(file);
        return tiered != null ? tiered : super.open(file);
    }

    /** A tiered source for a remote file, or null for a local one. */
    @Nullable
    public TieredRangeSource openTiered(FileId file) throws IOException {
        if (isLocal(file.path())) {
            return null;
        }
        RangeSource delegate = super.open(file);
        return new TieredRangeSource(tier, file, delegate);
    }
}
