package dev.parquetlookup.flink.table;

import org.apache.flink.table.connector.source.lookup.cache.trigger.CacheReloadTrigger;

/**
 * Loads the FULL row cache once when the join starts and never again: the default of {@code
 * 'lookup.cache' = 'FULL'} when no {@code lookup.full-cache.periodic-reload.interval} is given,
 * since the table's files are an immutable snapshot. Flink's own triggers require an interval.
 */
final class LoadOnceReloadTrigger implements CacheReloadTrigger {

    private static final long serialVersionUID = 1L;

    @Override
    public void open(Context context) {
        context.triggerReload();
    }

    @Override
    public void close() {}
}
