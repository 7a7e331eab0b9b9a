package dev.parquetlookup.io;

import java.io.IOException;
import java.io.InterruptedIOException;
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

    private interface Call<T> {
        T run() throws IOException;
    }

    private <T> T retry(Call<T> call, String what) throws IOException {
        for (int n = 1; ; n++) {
            try {
                return call.run();
            } catch (IOException e) {
                if (!TransientFailures.isTransient(e)) {
                    throw e;
                }
                if (n >= policy.maxAttempts()) {
                    throw new IOException(
                            what + " failed after " + n + " attempts: " + e.getMessage(), e);
                }
                try {
                    Thread.sleep(policy.backoffMillis(n));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting to retry " + what);
                }
            }
        }
    }
}
