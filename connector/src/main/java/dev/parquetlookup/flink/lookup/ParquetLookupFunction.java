package dev.parquetlookup.flink.lookup;

import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

import java.io.IOException;
import java.util.Collection;

/**
 * Synchronous lookup function: one lookup at a time per subtask. A thin shell over {@link
 * LookupRuntime}; used for {@code 'lookup.async' = 'false'}, the hint {@code 'async' = 'false'},
 * and as the loader-side function of {@code 'lookup.cache' = 'FULL'}.
 */
public final class ParquetLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final ParquetLookupConfig config;
    private final LookupSpec spec;
    private final TableOpener opener;

    private transient LookupRuntime runtime;

    public ParquetLookupFunction(ParquetLookupConfig config, LookupSpec spec) {
        this(config, spec, TableOpener.DEFAULT);
    }

    /** With a given way to open the table (tests inject faults through it). */
    public ParquetLookupFunction(ParquetLookupConfig config, LookupSpec spec, TableOpener opener) {
        this.config = config;
        this.spec = spec;
        this.opener = opener;
    }

    @Override
    public void open(FunctionContext context) throws Exception {
        runtime = LookupRuntime.open(config, spec, context.getMetricGroup(), opener);
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) throws IOException {
        return runtime.lookup(keyRow);
    }

    @Override
    public void close() throws Exception {
        if (runtime != null) {
            runtime.close();
            runtime = null;
        }
    }
}
