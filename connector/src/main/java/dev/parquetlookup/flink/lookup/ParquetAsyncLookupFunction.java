package dev.parquetlookup.flink.lookup;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.AsyncLookupFunction;
import org.apache.flink.table.functions.FunctionContext;

import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * Asynchronous lookup function, a thin shell around {@link LookupRuntime#lookupAsync}: no thread of
 * its own. A lookup on local (memory-mapped) or cached pages completes in the calling thread; on an
 * object store it holds no thread while its read requests are out, and completes in the thread that
 * completes them. Flink's async operator bounds lookups in flight ({@code
 * table.exec.async-lookup.buffer-capacity}), {@code lookup.max-in-flight-requests} the read
 * requests.
 *
 * <p>Every returned future completes: with the rows, with the lookup's exception, or, when the
 * function closes first, with a {@link RejectedExecutionException}.
 */
public final class ParquetAsyncLookupFunction extends AsyncLookupFunction {

    private static final long serialVersionUID = 1L;

    private final ParquetLookupConfig config;
    private final LookupSpec spec;
    private final TableOpener opener;

    private transient volatile LookupRuntime runtime;

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
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public CompletableFuture<Collection<RowData>> asyncLookup(RowData keyRow) {
        LookupRuntime current = runtime;
        if (current == null) {
            return CompletableFuture.failedFuture(
                    new RejectedExecutionException(
                            "lookup function of table '" + config.tableName() + "' is closed"));
        }
        try {
            // Convert the key now: the planner may reuse its key row once this call returns.
            Object[] key = spec.normalizer().normalize(keyRow);
            Object[] residual = spec.residualValues(keyRow);
            // A List is a Collection: the future is only read, so the cast is safe.
            return (CompletableFuture) current.lookupAsync(key, residual);
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    @Override
    public void close() throws Exception {
        LookupRuntime current = runtime;
        runtime = null;
        if (current != null) {
            current.close();
        }
    }
}
