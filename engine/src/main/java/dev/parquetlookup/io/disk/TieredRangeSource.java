package dev.parquetlookup.io.disk;

import dev.parquetlookup.io.CopyingRangeSource;
import dev.parquetlookup.io.FileId;
import dev.parquetlookup.io.RangeSource;
import dev.parquetlookup.io.RangeSource.FileRange;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A remote file read through the {@link DiskTier}: ranges held on disk are copied out of the
 * mapping (a completed future, no thread hand-off), the others are read from the delegate (its
 * {@link #readAllAsync} for asynchronous reads) and handed to the tier's writer, so no lookup waits
 * for a disk write.
 *
 * <p>Holds a reference to the file version in the tier from open to close; the last close of a
 * version removes its ranges.
 */
public final class TieredRangeSource extends CopyingRangeSource {

    private final DiskTier tier;
    private final FileId file;
    private final AtomicBoolean closed = new AtomicBoolean();

    TieredRangeSource(DiskTier tier, FileId file, RangeSource delegate) {
        super(delegate);
        this.tier = tier;
        this.file = file;
        tier.retain(file);
    }

    @Override
    public FileId file() {
        return file;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
        if (tier.read(file, position, buffer, offset, length)) {
            return;
        }
        delegate().readFully(position, buffer, offset, length);
        tier.storeLater(file, position, Arrays.copyOfRange(buffer, offset, offset + length));
    }

    @Override
    public byte[][] readAll(List<FileRange> ranges) throws IOException {
        byte[][] result = new byte[ranges.size()][];
        List<FileRange> missing = fromDisk(ranges, result);
        if (missing.isEmpty()) {
            return result;
        }
        return fill(ranges, result, missing, delegate().readAll(missing));
    }

    @Override
    public CompletableFuture<byte[][]> readAllAsync(List<FileRange> ranges) {
        byte[][] result = new byte[ranges.size()][];
        List<FileRange> missing = fromDisk(ranges, result);
        if (missing.isEmpty()) {
            return CompletableFuture.completedFuture(result);
        }
        return delegate()
                .readAllAsync(missing)
                .thenApply(fetched -> fill(ranges, result, missing, fetched));
    }

    /**
     * The range from the tier's mapping (its blocks' checksums verified, as for every read), or
     * null when the tier does not hold it: then the caller reads it with {@link #readAllAsync}.
     */
    @Override
    public byte[] readHeld(FileRange range) {
        return tier.readHeld(file, range);
    }

    /** Fills what the disk holds into {@code result}; returns the ranges it does not hold. */
    private List<FileRange> fromDisk(List<FileRange> ranges, byte[][] result) {
        List<FileRange> missing = null;
        for (int i = 0; i < result.length; i++) {
            FileRange range = ranges.get(i);
            result[i] = tier.read(file, range);
            if (result[i] == null) {
                if (missing == null) {
                    missing = new ArrayList<>(result.length - i);
                }
                missing.add(range);
            }
        }
        return missing == null ? List.of() : missing;
    }

    private byte[][] fill(
            List<FileRange> ranges, byte[][] result, List<FileRange> missing, byte[][] fetched) {
        int next = 0;
        for (int i = 0; i < result.length; i++) {
            if (result[i] == null) {
                byte[] bytes = fetched[next];
                FileRange range = missing.get(next++);
                result[i] = bytes;
                // A copy: the caller owns the array it is given.
                tier.storeLater(file, range.offset(), bytes.clone());
            }
        }
        assert next == missing.size() && ranges.size() == result.length;
        return result;
    }

    /**
     * Fetches {@code range} into the tier now unless it is held already or another warm-up is
     * fetching it (then waits for that one). Returns whether this call fetched it.
     *
     * @throws IOException if the store fails the read (the caller retries later)
     */
    public boolean warm(FileRange range) throws IOException {
        if (tier.covers(file, range)) {
            return false;
        }
        DiskTier.WarmKey key = new DiskTier.WarmKey(file, range);
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> other = tier.warming.putIfAbsent(key, mine);
        if (other != null) {
            try {
                other.get();
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while warming " + file);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof IOException io
                        ? io
                        : new IOException("warming " + file + " failed", e.getCause());
            }
        }
        try {
            if (tier.covers(file, range)) {
                mine.complete(false); // stored by a warm-up that just finished
                return false;
            }
            byte[] bytes = delegate().readAll(List.of(range))[0];
            tier.store(file, range.offset(), bytes);
            mine.complete(true);
            return true;
        } catch (IOException | RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            tier.warming.remove(key, mine);
        }
    }

    /** Whether the tier holds {@code range} of this file. */
    public boolean isHeld(FileRange range) {
        return tier.covers(file, range);
    }

    @Override
    public void close() throws IOException {
        if (closed.compareAndSet(false, true)) {
            try {
                super.close();
            } finally {
                tier.release(file);
            }
        }
    }

    @Override
    public String toString() {
        return "TieredRangeSource{" + file + '}';
    }
}
