package dev.parquetlookup.io;

import java.io.IOException;
import java.util.List;

/**
 * Decorator of a {@link FileStore} whose sources retry transient read failures ({@link
 * RetryingRangeSource}) and whose listings and file lookups are retried the same way.
 *
 * <p>Example: {@code new RetryingFileStore(HadoopFileStore.create(options),
 * RetryPolicy.defaults())}.
 */
public final class RetryingFileStore extends ForwardingFileStore {

    private final RetryPolicy policy;

    public RetryingFileStore(FileStore delegate, RetryPolicy policy) {
        super(delegate);
        this.policy = policy;
    }

    @Override
    public List<FileId> list(String path) throws IOException {
        return retry(() -> super.list(path), "Listing " + path);
    }

    @Override
    public FileId stat(String path) throws IOException {
        return retry(() -> super.stat(path), "Status of " + path);
    }

    @Override
    public RangeSource open(FileId file) throws IOException {
        RangeSource source = retry(() -> super.open(file), "Opening " + file.path());
        return new RetryingRangeSource(source, policy);
    }

    private <T> T retry(RetryingRangeSource.Attempt<T> call, String what) throws IOException {
        return RetryingRangeSource.retry(policy, Thread::sleep, call, () -> what);
    }
}
