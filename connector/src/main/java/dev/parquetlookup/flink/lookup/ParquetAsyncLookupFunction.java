package dev.parquetlookup.flink.lookup;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Asynchronous lookup function: lookups of one subtask run concurrently on {@code
 * lookup.async.threads} threads, each a blocking point read in the (thread-safe, lock-free) engine.
 * Flink's async operator bounds how many are in flight ({@code
 * table.exec.async-lookup.buffer-capacity}) and handles ordering and timeouts.
 *
 * <p>Every returned future completes: with the rows, with the lookup's exception, or, when the
 * function closes before a queued lookup ran, with a {@link RejectedExecutionException}.
 */
public final class ParquetAsyncLookupFunction extends AsyncLookupFunction {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ParquetAsyncLookupFunction.class);

    private final ParquetLookupConfig config;
    private final LookupSpec spec;
    private final TableOpener opener;

    private transient LookupRuntime runtime;
    private transient ExecutorService executor;

    public ParquetAsyncLookupFunction(ParquetLookupConfig config, LookupSpec spec) {
        this(config, spec, TableOpener.DEFAULT);
    }

    /** With a given way to open the table (tests inject faults through it). */
    public ParquetAsyncLookupFunction(
            ParquetLookupConfig config, LookupSpec spec, TableOpener opener) {
        this.config = config;
        this.spec = spec;
        this.opener = opener;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        runtime = LookupRuntime.open(config, spec, context.getMetricGroup(), opener);
        executor = newExecutor(config.asyncThreads(), config.tableName());
    }

    @Override
    public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
        CompletableFuture<Collection<RowData>> future = new CompletableFuture<>();
        try {
            // Convert the key now: the planner may reuse its key row once this call returns.
            Object[] key = spec.normalizer().normalize(keyRow);
            Object[] residual = spec.residualValues(keyRow);
            executor.execute(new LookupTask(runtime, key, residual, future));
        } catch (RejectedExecutionException e) {
            future.completeExceptionally(
                    new RejectedExecutionException(
                            "lookup function of table '" + config.tableName() + "' is closed", e));
        } catch (Throwable t) {
            future.completeExceptionally(t);
        }
        return future;
    }

    @Override
    public void close() throws Exception {
        if (executor != null) {
            for (Runnable queued : executor.shutdownNow()) {
                ((LookupTask) queued).reject(config.tableName());
            }
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn(
                        "Lookups of table '{}' still running 30 s after close", config.tableName());
            }
            executor = null;
        }
        if (runtime != null) {
            runtime.close();
            runtime = null;
        }
    }

    /**
     * A fixed pool: {@code threads} lookups at a time; further ones wait in the queue, whose length
     * Flink's async operator bounds by its capacity.
     */
    static ExecutorService newExecutor(int threads, String tableName) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory =
                r -> {
                    Thread t =
                            new Thread(
                                    r,
                                    "parquet-lookup-"
                                            + tableName
                                            + "-"
                                            + counter.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                };
        return new ThreadPoolExecutor(
                threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory);
    }

    /** One lookup; completes its future whatever happens. */
    static final class LookupTask implements Runnable {
        private final LookupRuntime runtime;
        private final Object[] key;
        private final Object[] residual;
        private final CompletableFuture<Collection<RowData>> future;

        LookupTask(
                LookupRuntime runtime,
                Object[] key,
                Object[] residual,
                CompletableFuture<Collection<RowData>> future) {
            this.runtime = runtime;
            this.key = key;
            this.residual = residual;
            this.future = future;
        }

        @Override
        public void run() {
            try {
                List<RowData> rows = runtime.lookup(key, residual);
                future.complete(rows);
            } catch (Throwable t) {
                future.completeExceptionally(t instanceof CompletionException ? t.getCause() : t);
            }
        }

        void reject(String tableName) {
            future.completeExceptionally(
                    new RejectedExecutionException(
                            "lookup function of table '"
                                    + tableName
                                    + "' closed before the lookup ran"));
        }
    }
}
